// Four-bar loops: the Grashof type by the textbook cases, and the closed-form extremes of the
// transmission angle against the angle measured over a kinematic run of a whole turn.
#include <gtest/gtest.h>

#include <algorithm>

#include "simulation/kinematics_run.h"
#include "support/samples.h"
#include "topology/four_bar.h"

namespace lw::topology {
namespace {

TEST(FourBar, TheCrankRockerSampleTurnsWithinItsTransmissionExtremes) {
  const ResolvedMechanism m = test::sampleResolved("four-bar");
  const auto loops = fourBarLoops(m);
  ASSERT_EQ(loops.size(), 1u);
  const FourBarLoop& l = loops[0];
  EXPECT_EQ(m.bodies[static_cast<std::size_t>(l.input)].name, "crank");  // the driven link
  EXPECT_EQ(m.bodies[static_cast<std::size_t>(l.output)].name, "rocker");
  EXPECT_TRUE(l.grashof);
  EXPECT_EQ(l.type, "crank-rocker");
  // one turn (2πt over 1 s) at 1 ms: the measured extremes meet the closed form
  analysis::KinematicsSpec spec;
  spec.tEnd = 1;
  spec.dt = 0.001;
  const auto run = analysis::runKinematics(m, spec);
  ASSERT_TRUE(run.status.ok()) << run.status.message;
  const std::size_t perRow = 12 * m.bodies.size();
  double lo = 180, hi = 0;
  for (std::size_t r = 0; r < run.poses.size() / perRow; ++r) {
    const std::vector<double> pose(run.poses.begin() + static_cast<long>(r * perRow), run.poses.begin() + static_cast<long>((r + 1) * perRow));
    const double mu = transmissionAngle(m, l, pose);
    lo = std::min(lo, mu);
    hi = std::max(hi, mu);
  }
  EXPECT_NEAR(lo, l.minTransmission, 0.05);
  EXPECT_NEAR(hi, l.maxTransmission, 0.05);
  EXPECT_GT(l.maxTransmission, l.minTransmission + 10);
}

TEST(FourBar, GrashofTypesByWhichLinkIsShortest) {
  ResolvedMechanism m = test::sampleResolved("four-bar");
  const FourBarLoop base = fourBarLoops(m)[0];
  // lengths by moving the rocker's ground pivot along the ground line: d grows until s + l > p + q
  auto withGround = [&](double d) {
    ResolvedMechanism r = m;
    const Eigen::Vector3d A = r.pointWorld(base.groundInput);
    Eigen::Vector3d& D = r.bodies[0].points[static_cast<std::size_t>(base.groundOutput.index)];
    D = A + d * (D - A).normalized();
    return fourBarLoops(r)[0];
  };
  const double a = base.crank, b = base.link, c = base.rocker;
  const FourBarLoop far = withGround(a + b + c - 1e-3);  // the ground longest, s + l > p + q
  EXPECT_FALSE(far.grashof);
  EXPECT_EQ(far.type, "triple-rocker");
  const FourBarLoop shortGround = withGround(0.5 * std::min({a, b, c}));
  EXPECT_TRUE(shortGround.grashof);
  EXPECT_EQ(shortGround.type, "double-crank");
}

}  // namespace
}  // namespace lw::topology
