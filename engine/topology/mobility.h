// Mobility by the Grübler–Kutzbach count. It treats every joint equation as independent, so it
// over-counts for passive freedoms (the spin of a spherical–spherical rod) and under-counts for
// redundant constraints (a planar linkage built from spatial revolute joints); the numerical rank
// of the constraint Jacobian (kinematics) settles those cases.
#pragma once

#include <string>

#include "mechanism/resolved.h"

namespace lw::topology {

struct Mobility {
  int bodyFreedoms = 3;      // 3 in a plane, 6 in space
  int movingBodies = 0;
  int removedByJoints = 0;   // Σ (bodyFreedoms − joint freedoms)
  int grueblerKutzbach = 0;  // bodyFreedoms·movingBodies − removedByJoints
  int drivers = 0;           // each driver prescribes one coordinate
  int remaining = 0;         // grueblerKutzbach − drivers: freedoms left to the dynamics
  std::string formula;       // "3·4 − 10 = 2"
};

Mobility grueblerKutzbach(const ResolvedMechanism& m);

}  // namespace lw::topology
