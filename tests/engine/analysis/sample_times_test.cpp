// Runs sampled at given times: the rows are t = 0 and those times; on the step grid they are the
// grid run's rows exactly, between steps the interpolant's (RK45's dense output, the trapezoidal
// rule's polynomial), close to a finer run's.
#include <gtest/gtest.h>

#include <cmath>

#include "simulation/kinematics_run.h"
#include "simulation/simulation_run.h"
#include "support/samples.h"

namespace lw::analysis {
namespace {

TEST(SampleTimes, KinematicsSolvesAtEachTime) {
  const auto r = test::sampleResolved("four-bar");
  KinematicsSpec grid, at;
  grid.tEnd = 0.5;
  grid.dt = 0.05;
  at.times = {0.05, 0.25, 0.5};
  const auto a = runKinematics(r, grid), b = runKinematics(r, at);
  ASSERT_TRUE(a.status.ok() && b.status.ok());
  const std::size_t w = a.columns.size();
  ASSERT_EQ(b.values.size(), 4 * w);
  const int rows[] = {0, 1, 5, 10};
  for (int k = 0; k < 4; ++k)
    for (std::size_t c = 0; c < w; ++c) EXPECT_NEAR(b.values[static_cast<std::size_t>(k) * w + c], a.values[static_cast<std::size_t>(rows[k]) * w + c], 1e-9);
  at.times = {0.3, 0.2};
  EXPECT_NE(runKinematics(r, at).status.message.find("not after"), std::string::npos);
}

TEST(SampleTimes, ADynamicsRunGivesItsRowsAtTheTimes) {
  const auto r = test::sampleResolved("five-bar");
  for (Integrator integrator : {Integrator::Trapezoidal, Integrator::RK45}) {
    SimulationSpec fine, at;
    fine.integrator = at.integrator = integrator;
    fine.tEnd = 0.3;
    fine.dt = at.dt = 1e-3;
    fine.outputDt = 1e-3;
    at.times = {0.1, 0.2005, 0.3};  // 0.2005 lies between two trapezoidal steps
    const auto a = runSimulation(r, fine), b = runSimulation(r, at);
    ASSERT_TRUE(a.status.ok() && b.status.ok()) << a.status.message << b.status.message;
    const std::size_t w = a.columns.size();
    ASSERT_EQ(b.values.size(), 4 * w);
    EXPECT_DOUBLE_EQ(b.values[w], 0.1);
    EXPECT_DOUBLE_EQ(b.values[2 * w], 0.2005);
    // at a grid time the same as the grid run's row; between, within the interpolant's error
    const std::size_t x = 1;  // the first point coordinate
    EXPECT_NEAR(b.values[w + x], a.values[100 * w + x], integrator == Integrator::Trapezoidal ? 1e-12 : 1e-7);
    EXPECT_NEAR(b.values[2 * w + x], 0.5 * (a.values[200 * w + x] + a.values[201 * w + x]), 1e-5);
  }
  SimulationSpec penalty;
  penalty.formulation = Formulation::Penalty;
  penalty.times = {0.1};
  EXPECT_NE(runSimulation(r, penalty).status.message.find("Matrix R"), std::string::npos);
}

}  // namespace
}  // namespace lw::analysis
