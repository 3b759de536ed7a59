// The energy balance's watch warns of an increment off the trend of the rows before (a lost
// branch, a step across a fast event), not of the smooth drift of the drivers' work quadrature;
// and driven samples run with both integrators without a warning (RK45 used to fail on them:
// one step to the end is a position problem too far from the last state; the RSSR's RK45 stopped
// at its choice's singular point, then warned of a balance its works' trapezoidal rule over the
// long steps missed by 1e-3 J: now quadratures over its stages).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "simulation/simulation_parts.h"
#include "simulation/simulation_run.h"
#include "support/samples.h"

namespace lw::analysis {
namespace {

// rows every 10 ms over 1 s of a 300 J system whose balance drifts as 0.5·t³ J (increments up to
// 0.015 J a row, above a 1e-5 bound of 3 mJ, but changing by at most 0.3 mJ between rows)
EnergyJumpWatch driftingRun(double spikeAt, double spike) {
  EnergyJumpWatch w;
  w.relative = 1e-5;
  for (int k = 0; k <= 100; ++k) {
    const double t = 0.01 * k;
    double balance = 0.5 * t * t * t;
    if (spikeAt >= 0 && t >= spikeAt - 1e-12) balance += spike;
    w.add(t, 300, 20, balance);
    if (std::abs(t - 0.3) < 1e-12) w.add(t, 300, 20, balance);  // an impact's two rows at one instant
  }
  return w;
}

TEST(EnergyJumpWatch, WarnsOfAnIncrementOffTheTrendNotOfASmoothDrift) {
  EXPECT_EQ(driftingRun(-1, 0).warning, "");
  const EnergyJumpWatch spiked = driftingRun(0.5, 0.01);
  EXPECT_NE(spiked.warning.find("between t = 0.49 and 0.5 s"), std::string::npos) << spiked.warning;
  // a spike below the bound is the accuracy's business
  EXPECT_EQ(driftingRun(0.5, 0.002).warning, "");
}

TEST(EnergyJumpWatch, DrivenSamplesRunWithBothIntegratorsWithoutAWarning) {
  for (const char* name : {"four-bar", "watt-six-bar", "jansen-leg", "rssr"}) {
    Diagnostics d;
    const auto m = resolve(test::sampleMechanism(name), d);
    ASSERT_TRUE(m) << name;
    for (Integrator integrator : {Integrator::Trapezoidal, Integrator::RK45}) {
      SimulationSpec spec;
      spec.integrator = integrator;
      spec.tEnd = 1;
      spec.dt = 0.01;
      const SimulationResult r = runSimulation(*m, spec);
      ASSERT_TRUE(r.status.ok()) << name << ": " << r.status.message;
      EXPECT_GE(r.steps, 100) << name;  // not one step to the end
      EXPECT_TRUE(r.warnings.empty()) << name << ": " << r.warnings.front();
      EXPECT_NEAR(r.values[r.values.size() - r.columns.size()], 1.0, 1e-12) << name;
    }
  }
}

// The switch sample (seed 001 T4): thrust a1 until the point crosses y = 0, a2 after. The applied
// work counted both forces all the time (the balance reached 15.7 J and warned on a shipped
// sample): a switched-off force does no work.
TEST(EnergyJumpWatch, ASwitchedOffForceDoesNoWork) {
  Diagnostics d;
  const Mechanism file = test::sampleMechanism("switch-t4");
  const auto m = resolve(file, d);
  ASSERT_TRUE(m);
  for (Formulation f : {Formulation::MatrixR, Formulation::Penalty}) {
    SimulationSpec spec;
    spec.formulation = f;
    spec.tEnd = 0.5;
    spec.dt = 1e-3;
    const SimulationResult r = runSimulation(*m, spec);
    ASSERT_TRUE(r.status.ok()) << r.status.message;
    ASSERT_EQ(r.events.size(), 1u);
    EXPECT_EQ(r.events[0].kind, "switch");
    EXPECT_TRUE(r.warnings.empty()) << r.warnings.front();
    const auto column = static_cast<std::size_t>(std::find(r.columns.begin(), r.columns.end(), "energy.balance") - r.columns.begin());
    ASSERT_LT(column, r.columns.size());
    double worst = 0;
    for (std::size_t row = 0; row < r.rows(); ++row) worst = std::max(worst, std::abs(r.values[row * r.columns.size() + column]));
    EXPECT_LT(worst, 1e-6) << (f == Formulation::MatrixR ? "matrix-r" : "penalty");
  }
}

}  // namespace
}  // namespace lw::analysis

namespace lw::analysis {
namespace {

// A run evaluates every cost it can: one on an energy (which FORMAT.md allows, though a study
// cannot differentiate it), and the others when one cannot be evaluated (a target after the run's
// end used to hide them all). A kinematic run reads a slider's rate (it was left out, and a cost
// on it refused for the wrong reason).
TEST(RunCosts, EveryCostThatCanBeEvaluatedIs) {
  Mechanism m = test::sampleMechanism("bouncing-ball");  // outputs: position, and E (its total energy)
  Cost energyEnd;
  energyEnd.name = "Eend";
  energyEnd.type = Cost::Type::Terminal;
  energyEnd.expression = Expression::parseOrThrow("E");
  Cost late;
  late.name = "late";
  late.type = Cost::Type::Targets;
  late.output = m.outputs.front().name;
  late.targets.push_back({5.0, std::vector<double>(static_cast<std::size_t>(m.dimension), 0.0)});
  m.costs = {energyEnd, late};
  Diagnostics d;
  const auto r = resolve(m, d);
  ASSERT_TRUE(r) << (d.empty() ? "" : d.front().format());
  SimulationSpec spec;
  spec.tEnd = 0.5;
  spec.dt = 1e-3;
  spec.mechanism = &m;
  const SimulationResult run = runSimulation(*r, spec);
  ASSERT_TRUE(run.status.ok()) << run.status.message;
  ASSERT_EQ(run.costNames, std::vector<std::string>{"Eend"});
  const auto column = static_cast<std::size_t>(std::find(run.columns.begin(), run.columns.end(), "energy.total") - run.columns.begin());
  EXPECT_NEAR(run.costValues[0], run.values[(run.rows() - 1) * run.columns.size() + column], 1e-12);
  EXPECT_NE(run.costProblem.find("cost 'late': target 1 at t = 5 s is after the run's end"), std::string::npos) << run.costProblem;
}

}  // namespace
}  // namespace lw::analysis
