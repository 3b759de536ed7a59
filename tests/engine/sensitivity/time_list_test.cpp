// The adjoint's compact list of step times: times on the grid k·dt (as the trapezoidal run computes
// its step ends) share one entry per run, others are listed; every time reads back bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "sensitivity/run_record.h"

namespace lw::sens::detail {
namespace {

TEST(TimeList, GridRunsAreOneEntryAndEveryTimeReadsBackExactly) {
  const double dt = 1e-3;
  TimeList list(dt);
  std::vector<double> times{0.0};
  for (int k = 1; k <= 1000; ++k) times.push_back(k * dt);                 // on the grid
  times.push_back(1.0003721);                                              // an event between
  times.push_back(1.0003721);                                              // the state after it
  for (int k = 1001; k <= 1500; ++k) times.push_back(k * dt);              // back on the grid
  for (double t = 1.5; times.size() < 1800;) times.push_back(t += 0.0007);  // steps of their own
  for (double t : times) list.push(t);
  ASSERT_EQ(list.size(), times.size());
  for (std::size_t i = 0; i < times.size(); ++i) ASSERT_EQ(list[i], times[i]) << i;
  EXPECT_EQ(list.back(), times.back());
  // three grid runs' entries and ~300 listed times: far below 8 bytes a time
  EXPECT_LT(list.bytes(), times.size() * 8 / 3);
}

TEST(TimeList, ATimeJustOffTheGridIsListedNotRounded) {
  TimeList list(0.01);
  const double off = std::nextafter(0.02, 1.0);
  for (double t : {0.0, 0.01, off, 0.03}) list.push(t);
  EXPECT_EQ(list[2], off);
  EXPECT_EQ(list[3], 0.03);
}

}  // namespace
}  // namespace lw::sens::detail
