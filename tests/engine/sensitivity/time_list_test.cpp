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

// an automatic record keeps every point while they fit its budget, then drops every other one
// between the kept points (the start, impacts', changes') as often as it takes: the interval
// doubles each time, the points stay within the budget, and the kept ones stay
TEST(RunRecord, AnAutomaticRecordKeepsEveryPointWhileTheyFitThenThinsByHalves) {
  auto point = [](double t) {
    RunPoint p;
    p.t = t;
    p.x = p.v = p.a = p.aux = Eigen::VectorXd::Constant(4, t);
    return p;
  };
  const std::size_t perPoint = 16 * sizeof(double);
  const double dt = 0.01;
  RunRecord all(0, dt, 1000 * perPoint), thinned(0, dt, 40 * perPoint);
  for (RunRecord* r : {&all, &thinned}) ASSERT_TRUE(r->start(point(0)).ok());
  RunPoint a = point(0);
  for (int k = 1; k <= 300; ++k) {
    const RunPoint b = point(k * dt);
    for (RunRecord* r : {&all, &thinned}) {
      if (k == 150) ASSERT_TRUE(r->impact(a, b, {0}).ok());
      else ASSERT_TRUE(r->step(a, b, nullptr).ok());
    }
    a = b;
  }
  EXPECT_EQ(all.interval(), 1);
  EXPECT_EQ(all.saved.size(), 301u);
  EXPECT_EQ(thinned.interval(), 8);  // 301 points halved three times: 39 fit in 40
  EXPECT_LE(thinned.saved.size(), 40u);
  EXPECT_GE(thinned.saved.size(), 15u);
  bool impactKept = false;
  for (std::size_t i = 0; i < thinned.saved.size(); ++i) {
    const auto& s = thinned.saved[i];
    EXPECT_EQ(s.point.t, thinned.item(s.item).t1);  // each saved point is its item's
    impactKept |= s.item == 150;
    if (i > 0 && !s.kept && !thinned.saved[i - 1].kept) {
      EXPECT_EQ(s.item - thinned.saved[i - 1].item, 8u) << s.item;
    }
  }
  EXPECT_TRUE(impactKept);
  EXPECT_EQ(thinned.saved.front().item, 0u);
}

}  // namespace
}  // namespace lw::sens::detail
