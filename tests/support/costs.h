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

}  // namespace lw::test
