// The edit guard's assembly: an edit that opens a joint is closed again by kinematics (the bodies
// move, the stored poses change) or refused with the joint and why; edits that open nothing are
// left as they are.
#include <gtest/gtest.h>

#include "simulation/assembly.h"
#include "mechanism/resolved.h"
#include "support/samples.h"

namespace lw::analysis {
namespace {

Mechanism withParameter(Mechanism m, const std::string& name, double value) {
  for (auto& p : m.parameters)
    if (p.name == name) p.value = Number(value);
  return m;
}

double largestGap(const Mechanism& m) {
  Diagnostics d;
  const auto r = resolve(m, d);
  EXPECT_TRUE(r.has_value());
  double gap = 0;
  for (const auto& j : r->joints) gap = std::max(gap, r->storedJointGap(j));
  return gap;
}

TEST(EditAssembly, ANegativeLengthIsAssembledNotLeftOpen) {
  const Mechanism before = test::sampleMechanism("five-bar");
  Mechanism after = withParameter(before, "L_A1", -1);
  ASSERT_GT(largestGap(after), 2.0);  // joint J1 is 2.41 m open as edited (the trial's finding)
  const AssemblyResult r = closeOpenedJoints(before, after);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_NE(r.description.find("joint J1"), std::string::npos) << r.description;
  EXPECT_NE(r.description.find("bar_A1"), std::string::npos) << r.description;
  EXPECT_LT(largestGap(after), 1e-6);
  // the ground pivots stay; the crank's points keep their own (edited) distance
  Diagnostics d;
  const auto res = resolve(after, d);
  const auto& crank = res->bodies[static_cast<std::size_t>(res->findBody("bar_A1"))];
  EXPECT_NEAR((crank.points[1] - crank.points[0]).norm(), 1.0, 1e-12);
}

TEST(EditAssembly, ALinkTooLongToCloseIsRefusedNamingTheJoint) {
  const Mechanism before = test::sampleMechanism("four-bar-path");
  Mechanism after = withParameter(before, "L2", 20);
  const AssemblyResult r = closeOpenedJoints(before, after);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("opens by"), std::string::npos) << r.error;
  // "joint C opens by 16.5 m and the mechanism does not close again: joint C stays 12.41 m open"
  EXPECT_NE(r.error.find("does not close again: joint"), std::string::npos) << r.error;
}

TEST(EditAssembly, ALengthThatStillClosesMovesOnlyWhatItMust) {
  const Mechanism before = test::sampleMechanism("four-bar-path");
  Mechanism after = withParameter(before, "L2", 3.6);
  const AssemblyResult r = closeOpenedJoints(before, after);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_FALSE(r.description.empty());
  EXPECT_LT(largestGap(after), 1e-6);
}

TEST(EditAssembly, AnEditThatOpensNothingIsLeftAlone) {
  const Mechanism before = test::sampleMechanism("five-bar");
  Mechanism after = withParameter(before, "m_A1", 2);
  const AssemblyResult r = closeOpenedJoints(before, after);
  EXPECT_TRUE(r.ok);
  EXPECT_TRUE(r.description.empty());
  EXPECT_EQ(after.bodies[0].angle.value, before.bodies[0].angle.value);
}

}  // namespace
}  // namespace lw::analysis
