// Two-sided, scaled comparisons that say where they failed (STYLE G7).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

namespace lw::test {

/// |actual − expected| ≤ atol + rtol·|expected|, reporting both values and the difference.
inline ::testing::AssertionResult near(double actual, double expected, double atol, double rtol) {
  const double diff = std::abs(actual - expected);
  if (std::isfinite(actual) && diff <= atol + rtol * std::abs(expected))
    return ::testing::AssertionSuccess();
  std::ostringstream os;
  os.precision(17);
  os << "actual " << actual << ", expected " << expected << ", diff " << diff << " > "
     << atol + rtol * std::abs(expected);
  return ::testing::AssertionFailure() << os.str();
}

}  // namespace lw::test
