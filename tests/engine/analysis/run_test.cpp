// The one entry point: every job through analysis::run gives what its stage's own function gives
// (the same rows, costs, events, gradients), names the file's outputs and evaluates its costs
// without being told, and a mechanism that does not resolve fails with its first error.
#include <gtest/gtest.h>

#include "analysis/run.h"
#include "mechanism/resolved.h"
#include "support/samples.h"

namespace lw::analysis {
namespace {

TEST(Run, KinematicsIsTheStagesOwnRunWithTheFilesOutputsAndCosts) {
  const Mechanism m = test::sampleMechanism("four-bar-path");
  KinematicsSpec k;
  k.tEnd = 0.5;
  k.dt = 0.01;
  const Results r = run(m, {k});
  ASSERT_TRUE(r.status().ok()) << r.status().message;
  ASSERT_NE(r.table(), nullptr);
  Diagnostics d;
  k.mechanism = &m;
  const KinematicsResult direct = runKinematics(*resolve(m, d), k);
  EXPECT_EQ(r.table()->columns, direct.columns);
  EXPECT_EQ(r.table()->values, direct.values);
  ASSERT_EQ(r.table()->costNames, std::vector<std::string>{"path_error"});
  EXPECT_EQ(r.table()->costValues, direct.costValues);
  EXPECT_NE(std::find(r.table()->columns.begin(), r.table()->columns.end(), "rocker_angle"), r.table()->columns.end());
}

TEST(Run, ASimulationKeepsItsEventsAndCounts) {
  const Mechanism m = test::sampleMechanism("bouncing-ball-t1");
  SimulationSpec s;
  s.tEnd = 1.3;
  s.dt = 1e-3;
  const Results r = run(m, {s});
  ASSERT_TRUE(r.status().ok()) << r.status().message;
  const auto& sim = std::get<SimulationResult>(r.of);
  ASSERT_EQ(sim.events.size(), 2u);
  EXPECT_NEAR(sim.events[0].t, 0.4515236409, 1e-8);  // seed 001 T1's first impact
  EXPECT_EQ(sim.costNames.size(), 5u);
  Diagnostics d;
  s.mechanism = &m;
  const SimulationResult direct = runSimulation(*resolve(m, d), s);
  EXPECT_EQ(sim.values, direct.values);
  EXPECT_EQ(sim.steps, direct.steps);
  EXPECT_EQ(sim.costValues, direct.costValues);
}

TEST(Run, AStudyIsTheSensitivityStagesOwn) {
  const Mechanism m = test::sampleMechanism("bouncing-ball-t1");
  sens::SensitivitySpec s;
  s.method = sens::Method::Direct;
  s.run.tEnd = 1.3;
  s.run.dt = 1e-3;
  const Results r = run(m, {s});
  ASSERT_TRUE(r.status().ok()) << r.status().message;
  EXPECT_EQ(r.table(), nullptr);
  const auto& study = std::get<sens::SensitivityResult>(r.of);
  const auto direct = sens::runSensitivity(m, s);
  ASSERT_EQ(study.methods.size(), 1u);
  EXPECT_EQ(study.methods[0].values, direct.methods[0].values);
  EXPECT_EQ(study.methods[0].gradient, direct.methods[0].gradient);
}

TEST(Run, AMechanismThatDoesNotResolveFailsWithItsFirstError) {
  Mechanism m = test::sampleMechanism("four-bar");
  m.joints[1].points[0] = Ref{"nobody", "B"};
  for (const AnalysisSpec& spec : {AnalysisSpec{KinematicsSpec{}}, AnalysisSpec{SimulationSpec{}}}) {
    const Results r = run(m, spec);
    ASSERT_FALSE(r.status().ok());
    ASSERT_NE(r.table(), nullptr);
    EXPECT_NE(r.status().message.find("joints[1]"), std::string::npos) << r.status().message;
    EXPECT_NE(r.status().message.find("nobody"), std::string::npos) << r.status().message;
  }
}

}  // namespace
}  // namespace lw::analysis
