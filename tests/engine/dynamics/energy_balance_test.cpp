// The energy outputs of a simulation: E(t) − E(0) = W_applied + W_driver − E_dissipated holds up to
// the integration and quadrature errors, which shrink as O(h²); dissipation only grows.
#include <gtest/gtest.h>

#include "simulation/simulation_run.h"
#include "support/samples.h"

namespace lw::analysis {
namespace {

struct Balance {
  double worst = 0;      // max |energy.balance|
  double scale = 0;      // max |E − E0|, |works|, dissipation
  double dissipated = 0, applied = 0, driver = 0;
  bool dissipationGrows = true;
};

Balance run(const Mechanism& mech, double dt, double tEnd) {
  Diagnostics d;
  const auto r = resolve(mech, d);
  SimulationSpec spec;
  spec.tEnd = tEnd;
  spec.dt = dt;
  const SimulationResult res = runSimulation(*r, spec);
  EXPECT_TRUE(res.status.ok()) << res.status.message;
  auto col = [&](const std::string& name) {
    const auto it = std::find(res.columns.begin(), res.columns.end(), name);
    EXPECT_NE(it, res.columns.end()) << name;
    return static_cast<std::size_t>(it - res.columns.begin());
  };
  const std::size_t total = col("energy.total"), dis = col("energy.dissipated"), app = col("energy.applied_work"),
                    drv = col("energy.driver_work"), bal = col("energy.balance"), nc = res.columns.size();
  Balance b;
  double lastDis = 0;
  for (std::size_t row = 0; row < res.rows(); ++row) {
    const double* v = &res.values[row * nc];
    b.worst = std::max(b.worst, std::abs(v[bal]));
    b.scale = std::max({b.scale, std::abs(v[total] - res.values[total]), std::abs(v[app]), std::abs(v[drv]), v[dis]});
    if (v[dis] < lastDis - 1e-12) b.dissipationGrows = false;
    lastDis = v[dis];
    b.dissipated = v[dis];
    b.applied = v[app];
    b.driver = v[drv];
  }
  return b;
}

TEST(EnergyBalance, DampedAndForcedFiveBarBalancesWithSecondOrderError) {
  const Mechanism m = test::withEveryForce(test::withoutContacts(test::sampleMechanism("five-bar")));
  const Balance coarse = run(m, 2e-3, 1.0), fine = run(m, 1e-3, 1.0);
  EXPECT_GT(fine.dissipated, 0.01 * fine.scale);
  EXPECT_TRUE(fine.dissipationGrows);
  EXPECT_GT(std::abs(fine.applied), 0.01 * fine.scale);
  EXPECT_EQ(fine.driver, 0);  // no drivers
  EXPECT_LT(fine.worst, 1e-3 * fine.scale);
  const double ratio = coarse.worst / fine.worst;
  EXPECT_GT(ratio, 3.0);
  EXPECT_LT(ratio, 5.5);
}

TEST(EnergyBalance, DriverWorkBalancesADrivenFourBar) {
  // fully driven: the driver supplies every change of energy; over part of a turn its work is large
  const Mechanism m = test::sampleMechanism("four-bar");
  const Balance coarse = run(m, 4e-3, 0.3), fine = run(m, 2e-3, 0.3);
  EXPECT_GT(std::abs(fine.driver), 0.1 * fine.scale);
  EXPECT_LT(fine.worst, 1e-3 * fine.scale);
  const double ratio = coarse.worst / fine.worst;
  EXPECT_GT(ratio, 3.0);
  EXPECT_LT(ratio, 5.5);
  // no freedom at all: every integrator and formulation just follows the drivers (this crashed once)
  Diagnostics d;
  const auto r = resolve(m, d);
  for (auto [formulation, integrator] : {std::pair{Formulation::MatrixR, Integrator::RK45}, std::pair{Formulation::Penalty, Integrator::Trapezoidal}}) {
    SimulationSpec spec;
    spec.formulation = formulation;
    spec.integrator = integrator;
    spec.tEnd = 0.1;
    spec.dt = 1e-2;
    const SimulationResult res = runSimulation(*r, spec);
    EXPECT_TRUE(res.status.ok()) << res.status.message;
    EXPECT_EQ(res.rows(), 11u);
  }
}

}  // namespace
}  // namespace lw::analysis
