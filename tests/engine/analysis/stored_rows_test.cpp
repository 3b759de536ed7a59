// A simulation stores a row every output interval while it integrates every step: the stored rows
// are the full run's rows at those times (works and dissipation included, which are integrated at
// every step), and a run whose rows would not fit in memory is refused before it starts.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>

#include "simulation/kinematics_run.h"
#include "simulation/result_size.h"
#include "simulation/simulation_run.h"
#include "support/samples.h"

namespace lw::analysis {
namespace {

SimulationResult simulate(const ResolvedMechanism& m, Formulation f, double tEnd, double dt, double outputDt) {
  SimulationSpec spec;
  spec.formulation = f;
  spec.tEnd = tEnd;
  spec.dt = dt;
  spec.outputDt = outputDt;
  return runSimulation(m, spec);
}

TEST(StoredRows, EveryOutputIntervalTheyAreTheFullRunsRows) {
  // damped and forced: the dissipated energy and applied work depend on every step
  Diagnostics d;
  const auto m = resolve(test::withEveryForce(test::withoutContacts(test::sampleMechanism("five-bar"))), d);
  ASSERT_TRUE(m);
  for (Formulation f : {Formulation::MatrixR, Formulation::Penalty}) {
    // 0.305 s is not a whole number of output intervals: the last step is stored as well
    const SimulationResult full = simulate(*m, f, 0.305, 1e-3, 0);
    const SimulationResult sparse = simulate(*m, f, 0.305, 1e-3, 1e-2);
    ASSERT_TRUE(full.status.ok()) << full.status.message;
    ASSERT_TRUE(sparse.status.ok()) << sparse.status.message;
    EXPECT_EQ(sparse.steps, full.steps);
    ASSERT_EQ(full.rows(), 306u);
    ASSERT_EQ(sparse.rows(), 32u);  // t = 0, 0.01, ..., 0.30 and 0.305
    ASSERT_EQ(sparse.columns, full.columns);
    const std::size_t n = full.columns.size(), nb = m->bodies.size();
    ASSERT_EQ(sparse.poses.size(), sparse.rows() * 12 * nb);
    const auto dissipated = static_cast<std::size_t>(std::find(full.columns.begin(), full.columns.end(), "energy.dissipated") - full.columns.begin());
    ASSERT_LT(dissipated, n);
    EXPECT_GT(full.values[(full.rows() - 1) * n + dissipated], 0);
    for (std::size_t k = 0; k < sparse.rows(); ++k) {
      const std::size_t row = k + 1 < sparse.rows() ? 10 * k : full.rows() - 1;
      for (std::size_t c = 0; c < n; ++c)
        ASSERT_NEAR(sparse.values[k * n + c], full.values[row * n + c], 1e-12 * (1 + std::abs(full.values[row * n + c])))
            << full.columns[c] << " at stored row " << k;
      for (std::size_t i = 0; i < 12 * nb; ++i)
        ASSERT_DOUBLE_EQ(sparse.poses[k * 12 * nb + i], full.poses[row * 12 * nb + i]) << "pose at stored row " << k;
    }
  }
}

TEST(StoredRows, AStoppedRunEndsWithTheStateWhereItStopped) {
  const ResolvedMechanism m = test::sampleResolvedWithoutContacts("five-bar");
  for (Formulation f : {Formulation::MatrixR, Formulation::Penalty}) {
    SimulationSpec spec;
    spec.formulation = f;
    spec.tEnd = 1;
    spec.dt = 1e-3;
    spec.outputDt = 1e-2;
    std::atomic<bool> cancel{false};
    // the first progress report comes after 32 steps: stop there, between two stored rows
    const SimulationResult r = runSimulation(m, spec, [&](double) { cancel = true; }, &cancel);
    EXPECT_EQ(r.status.code, lw::Status::Code::Cancelled) << r.status.message;
    EXPECT_EQ(r.steps, 32);
    ASSERT_EQ(r.rows(), 5u);  // t = 0, 0.01, 0.02, 0.03 and 0.032
    EXPECT_NEAR(r.values[4 * r.columns.size()], 0.032, 1e-12);
  }
}

TEST(StoredRows, AFailedRunEndsWithItsLastAcceptedState) {
  // Matrix R: a force that stops being a number after t = 0.12 (the step to 0.15 fails however it
  // is split); penalty: a stiff spring at a long step, which its Newton iteration loses after one
  // step at k = 1e7
  struct Case {
    Formulation formulation;
    double stiffness, outputDt;
  };
  for (const Case& c : {Case{Formulation::MatrixR, 0, 0.15}, Case{Formulation::Penalty, 1e7, 0.1}}) {
    Mechanism mech = test::withoutContacts(test::sampleMechanism("five-bar"));
    if (c.stiffness > 0) {
      Force spring;
      spring.name = "stiff";
      spring.type = Force::Type::Spring;
      spring.points[0] = {"ground", "F"};
      spring.points[1] = {"bar_12", "P2"};
      spring.stiffness = c.stiffness;
      mech.forces.push_back(spring);
    } else {
      Force push;
      push.name = "push";
      push.type = Force::Type::PointForce;
      push.point = {"bar_12", "P2"};
      push.value = {Number::expr("100 * sqrt(0.12 - t)"), Number::expr("0")};
      mech.forces.push_back(push);
    }
    Diagnostics d;
    const auto m = resolve(mech, d);
    ASSERT_TRUE(m);
    const SimulationResult r = simulate(*m, c.formulation, 2, 0.05, c.outputDt);
    ASSERT_FALSE(r.status.ok());
    // it fails between two stored rows: only the final store keeps its last accepted state
    const long every = std::lround(c.outputDt / 0.05);
    ASSERT_GT(r.steps % every, 0) << r.status.message;
    ASSERT_EQ(r.rows(), static_cast<std::size_t>(r.steps / every + 2)) << r.status.message;
    const double last = r.values[(r.rows() - 1) * r.columns.size()];
    EXPECT_NEAR(last, 0.05 * static_cast<double>(r.steps), 1e-12) << r.status.message;
    EXPECT_LT(last, r.status.time) << r.status.message;
  }
}

TEST(StoredRows, AnIntervalThatIsNotAWholeNumberOfStepsIsRefused) {
  const ResolvedMechanism m = test::sampleResolvedWithoutContacts("five-bar");
  const SimulationResult r = simulate(m, Formulation::MatrixR, 0.1, 1e-3, 1.5e-3);
  EXPECT_EQ(r.status.code, lw::Status::Code::BadRequest);
  EXPECT_EQ(r.status.message, "the output interval (0.0015 s) must be a whole number of steps of 0.001 s");
  EXPECT_EQ(r.steps, 0);
  EXPECT_EQ(r.rows(), 0u);
}

// the refusal names the size, the rows and the limit, and says what to change
void expectTooLarge(const lw::Status& s, const std::string& rows, const std::string& limitAndRemedy) {
  EXPECT_EQ(s.code, lw::Status::Code::BadRequest);
  EXPECT_EQ(s.message.rfind("the results would take ", 0), 0u) << s.message;
  EXPECT_NE(s.message.find("(" + rows + " rows of "), std::string::npos) << s.message;
  EXPECT_NE(s.message.find("more than the " + limitAndRemedy), std::string::npos) << s.message;
}

TEST(StoredRows, ResultsThatWouldNotFitAreRefusedBeforeTheRun) {
  const ResolvedMechanism m = test::sampleResolvedWithoutContacts("five-bar");
  SimulationSpec spec;
  spec.tEnd = 10;
  spec.dt = 1e-3;
  spec.maxResultBytes = 1e6;
  const SimulationResult r = runSimulation(m, spec);
  expectTooLarge(r.status, "10001", "1.0 MB allowed: store fewer rows with a longer output interval, or shorten the run");
  EXPECT_EQ(r.steps, 0);
  // a row every 100 steps fits
  spec.outputDt = 0.1;
  const SimulationResult ok = runSimulation(m, spec);
  EXPECT_TRUE(ok.status.ok()) << ok.status.message;
  EXPECT_EQ(ok.rows(), 101u);
  EXPECT_GT(defaultResultBytesLimit(), 1e8);  // half of any machine this runs on
}

TEST(StoredRows, AKinematicRunThatWouldNotFitIsRefusedBeforeItStarts) {
  const ResolvedMechanism m = test::sampleResolved("four-bar");
  KinematicsSpec spec;
  spec.tEnd = 1e4;
  spec.dt = 1e-3;
  spec.maxResultBytes = 1e8;
  const KinematicsResult r = runKinematics(m, spec);
  expectTooLarge(r.status, "10000001", "100.0 MB allowed: use a longer time step, or shorten the run");
  EXPECT_EQ(r.steps(), 0u);
}

}  // namespace
}  // namespace lw::analysis
