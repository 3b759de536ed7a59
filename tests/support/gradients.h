// What sensitivity tests share: one method's answer out of a comparison.
#pragma once

#include <stdexcept>

#include "sensitivity/sensitivity.h"

namespace lw::test {

/// The gradient of method m in r (throws when r has none: the test then fails loudly).
inline const sens::Gradient& byMethod(const sens::SensitivityResult& r, sens::Method m) {
  for (const auto& g : r.methods)
    if (g.method == m) return g;
  throw std::runtime_error(std::string("no gradient by method ") + sens::toString(m));
}

}  // namespace lw::test
