// Independent reference models for accuracy tests and benchmarks.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

#include "io/mechanism_io.h"

namespace lw::test {

/// The grids of seed 004 (generate::grid) on their parallelogram branch, as an open chain without
/// loops: every horizontal bar translates, so all vertical bars of a row turn together and each
/// row is one link — its (columns + 1) vertical bars, equal in motion and energy to one rod of that
/// mass hinged at the row's left top node, and its `columns` horizontal bars, a point mass at the
/// row's bottom node. Link r hangs from node N(0, r−1); its bottom is N(0, r). The reference of a
/// grid's motion without singular positions: N(0, r) of the grid is L<r>.bottom here.
inline Mechanism gridAsChain(int columns, int rows) {
  const double rod = columns + 1, tip = columns, mass = rod + tip;
  const double zc = (rod * 0.5 + tip * 1.0) / mass;
  const double inertia = rod / 12 + rod * (0.5 - zc) * (0.5 - zc) + tip * (1 - zc) * (1 - zc);
  auto num = [](double v) {
    std::ostringstream o;
    o.precision(17);
    o << v;
    return o.str();
  };
  std::string bodies, joints, rates;
  for (int r = 1; r <= rows; ++r) {
    const std::string name = "L" + std::to_string(r);
    bodies += std::string(r > 1 ? "," : "") + R"({"name": ")" + name + R"(", "position": [0, 0, )" + std::to_string(-(r - 1)) +
              R"(], "mass": )" + num(mass) + R"(, "com": [0, 0, )" + num(-zc) + R"(], "inertia": [)" +
              num(inertia) + ", " + num(inertia) +
              R"(, 1e-6], "points": {"top": [0, 0, 0], "bottom": [0, 0, -1]}, "vectors": {"x": [1, 0, 0]}})";
    const std::string parent = r == 1 ? "ground.N0" : "L" + std::to_string(r - 1) + ".bottom";
    const std::string parentAxis = r == 1 ? "ground.x" : "L" + std::to_string(r - 1) + ".x";
    joints += std::string(r > 1 ? "," : "") + R"({"name": "R)" + std::to_string(r) + R"(", "type": "revolute", "points": [")" +
              parent + R"(", ")" + name + R"(.top"], "axes": [")" + parentAxis + R"(", ")" + name + R"(.x"]})";
    rates += std::string(r > 1 ? "," : "") + R"({"joint": "R)" + std::to_string(r) + R"(", "value": )" + (r == 1 ? "1.0471975511965976" : "0") + "}";
  }
  const std::string text = R"({"format": "linkwright-mechanism", "version": 1, "name": "grid as a chain", "dimension": 3,
    "gravity": [0, 0, -9.81], "ground": {"points": {"N0": [0, 0, 0]}, "vectors": {"x": [1, 0, 0]}},
    "bodies": [)" + bodies + R"(], "joints": [)" + joints + R"(], "initial_velocities": [)" + rates + "]}";
  auto r = io::loadMechanismFromString(text);
  if (!r.ok()) throw std::runtime_error("the grid's reference chain does not load");
  return *r.mechanism;
}

}  // namespace lw::test
