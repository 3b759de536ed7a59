// Add Target Path (issue 36): clicked positions become a targets cost timed where the coupler
// point passes nearest; the cost of the design as it stands is then the clicks' squared offsets.
#include "simulation/target_path.h"

#include <gtest/gtest.h>

#include <numbers>

#include "simulation/kinematics_run.h"
#include "support/samples.h"
#include "support/sketches.h"

namespace lw::analysis {
namespace {

Mechanism drawnFourBarWithCouplerPoint() {
  Mechanism m = test::drawnFourBar({0.6, 0.8}, {3.5, 2.0});
  Diagnostics d;
  const auto r = resolve(m, d);
  EXPECT_TRUE(edit::addBodyPoint(m, *r, "link2", {2.0, 2.2}).ok);
  return m;
}

TEST(TargetPath, TargetsAreTimedWhereThePointPassesNearestAndTheCostIsTheirOffsets) {
  Mechanism m = drawnFourBarWithCouplerPoint();
  Diagnostics d;
  const auto resolved = resolve(m, d);
  ASSERT_TRUE(resolved.has_value());
  KinematicsSpec spec;  // one second at 0.01 s: what the edit uses without a stored span
  const auto run = runKinematics(*resolved, spec);
  ASSERT_TRUE(run.status.ok());
  const auto col = [&](const std::string& n) { return static_cast<std::size_t>(std::find(run.columns.begin(), run.columns.end(), n) - run.columns.begin()); };
  const std::size_t cx = col("link2.C1.x"), cy = col("link2.C1.y"), w = run.columns.size();
  // clicks 1 cm off the path at rows 70, 20 and 45 (in that order: the cost sorts them by time)
  std::vector<Eigen::Vector2d> clicks;
  double expected = 0;
  for (std::size_t row : {70u, 20u, 45u}) {
    clicks.emplace_back(run.values[row * w + cx] + 0.006, run.values[row * w + cy] - 0.008);
    expected += 0.006 * 0.006 + 0.008 * 0.008;
  }
  const auto r = addTargetPath(m, {"link2", "C1"}, clicks);
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(m.costs.size(), 1u);
  const Cost& c = m.costs[0];
  EXPECT_EQ(c.name, "path1");
  EXPECT_EQ(c.type, Cost::Type::Targets);
  EXPECT_EQ(c.output, "link2_C1");
  ASSERT_EQ(c.targets.size(), 3u);
  EXPECT_NEAR(c.targets[0].t, 0.20, 1e-12);
  EXPECT_NEAR(c.targets[1].t, 0.45, 1e-12);
  EXPECT_NEAR(c.targets[2].t, 0.70, 1e-12);
  EXPECT_EQ(m.analysis.tEnd, 1);
  // the cost of the design as it stands, at the targets' times: the offsets of the clicks,
  // squared; with free timing (the cost made) at most that, the path between steps passing nearer
  EXPECT_EQ(c.timing, Cost::Timing::Free);
  Mechanism timed = m;
  timed.costs[0].timing = Cost::Timing::Prescribed;
  spec.mechanism = &timed;
  const auto resolved2 = resolve(timed, d);
  const auto costed = runKinematics(*resolved2, spec);
  ASSERT_EQ(costed.costValues.size(), 1u) << costed.costProblem;
  EXPECT_NEAR(costed.costValues[0], expected, 1e-12);
  spec.mechanism = &m;
  const auto free = runKinematics(*resolved2, spec);
  ASSERT_EQ(free.costValues.size(), 1u) << free.costProblem;
  EXPECT_LE(free.costValues[0], expected);
  EXPECT_GT(free.costValues[0], 0.5 * expected);
  // a second path reuses the output
  ASSERT_TRUE(addTargetPath(m, {"link2", "C1"}, {clicks[0]}).ok);
  EXPECT_EQ(m.outputs.size(), 1u);
  EXPECT_EQ(m.costs.back().name, "path2");
}

TEST(TargetPath, ClicksAreTimedInTheirOrderAroundALoop) {
  // a circle once round in a second: clicks at 0.9, 0.1 and 0.3 of a turn are timed so
  std::vector<Eigen::Vector2d> circle;
  std::vector<double> times;
  for (int k = 0; k <= 100; ++k) {
    const double a = 2 * std::numbers::pi * k / 100;
    circle.emplace_back(std::cos(a), std::sin(a));
    times.push_back(k / 100.0);
  }
  auto on = [](double turn) { return Eigen::Vector2d(std::cos(2 * std::numbers::pi * turn), std::sin(2 * std::numbers::pi * turn)); };
  auto t = clickTimes(circle, times, {on(0.9), on(0.1), on(0.3)});
  EXPECT_NEAR(t[0], 0.9, 1e-12);
  EXPECT_NEAR(t[1], 0.1, 1e-12);
  EXPECT_NEAR(t[2], 0.3, 1e-12);
  // two clicks on the same side of a figure eight's crossing: the one clicked second comes later
  // along the path, not at its nearest sample on the other lobe
  std::vector<Eigen::Vector2d> eight;
  for (int k = 0; k <= 100; ++k) {
    const double a = 2 * std::numbers::pi * k / 100;
    eight.emplace_back(std::sin(a), std::sin(a) * std::cos(a));
  }
  t = clickTimes(eight, times, {eight[10], eight[40], eight[60]});
  EXPECT_NEAR(t[0], 0.10, 1e-12);
  EXPECT_NEAR(t[1], 0.40, 1e-12);
  EXPECT_NEAR(t[2], 0.60, 1e-12);
  // not a loop (a stroke from x = 0 to 1): the times still increase in click order
  std::vector<Eigen::Vector2d> stroke;
  for (int k = 0; k <= 100; ++k) stroke.emplace_back(k / 100.0, 0);
  t = clickTimes(stroke, times, {{0.8, 0}, {0.2, 0}});
  EXPECT_LT(t[0], t[1]);
}

TEST(TargetPath, ANotDrivenMechanismOrAGroundPointIsRefused) {
  Mechanism five = test::sampleMechanism("five-bar");
  const auto r = addTargetPath(five, {five.bodies[1].name, five.bodies[1].points[0].name}, {{0, 0}});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("driven"), std::string::npos) << r.error;
  Mechanism m = drawnFourBarWithCouplerPoint();
  EXPECT_FALSE(addTargetPath(m, {"ground", "O1"}, {{0, 0}}).ok);
  EXPECT_FALSE(addTargetPath(m, {"link2", "C1"}, {}).ok);
  EXPECT_FALSE(addTargetPath(m, {"link2", "Q"}, {{0, 0}}).ok);
}

}  // namespace
}  // namespace lw::analysis
