#include "topology/mobility.h"

namespace lw::topology {

Mobility grueblerKutzbach(const ResolvedMechanism& m) {
  Mobility r;
  r.bodyFreedoms = m.dimension == 2 ? 3 : 6;
  r.movingBodies = static_cast<int>(m.bodies.size()) - 1;  // bodies[0] is the ground
  for (const auto& j : m.joints) r.removedByJoints += r.bodyFreedoms - jointFreedoms(j.type);
  r.grueblerKutzbach = r.bodyFreedoms * r.movingBodies - r.removedByJoints;
  r.drivers = static_cast<int>(m.drivers.size());
  r.remaining = r.grueblerKutzbach - r.drivers;
  r.formula = std::to_string(r.bodyFreedoms) + "·" + std::to_string(r.movingBodies) + " − " +
              std::to_string(r.removedByJoints) + " = " + std::to_string(r.grueblerKutzbach);
  return r;
}

}  // namespace lw::topology
