// Costs built in tests (the file format's, without a file).
#pragma once

#include <string>

#include "mechanism/mechanism.h"

namespace lw::test {

/// A cost of `type` (integral, terminal, minimum, maximum) on an expression of outputs.
inline Cost expressionCost(const std::string& name, Cost::Type type, const std::string& expression) {
  Cost c;
  c.name = name;
  c.type = type;
  c.expression = Expression::parseOrThrow(expression);
  return c;
}

/// The joint's reaction on `body` as output "RA", and two costs of it: its mean square
/// ("bearing_load", integral of RA.fx² + RA.fy²) and its peak ("bearing_peak", the maximum of
/// RA.fy) in place of the file's costs.
inline void bearingCosts(Mechanism& m, const std::string& joint, const std::string& body) {
  Output r;
  r.name = "RA";
  r.type = Output::Type::JointReaction;
  r.joint = joint;
  r.on = body;
  m.outputs.push_back(r);
  m.costs = {expressionCost("bearing_load", Cost::Type::Integral, "RA.fx^2 + RA.fy^2"),
             expressionCost("bearing_peak", Cost::Type::Maximum, "RA.fy")};
}

}  // namespace lw::test
