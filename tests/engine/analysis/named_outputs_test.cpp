// A simulation's rows carry the file's outputs by name: point coordinates as the point columns,
// joint coordinates as absolute angles (the driven crank's is its start angle plus the driver's),
// energies as the energy columns.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "analysis/simulation_run.h"
#include "support/samples.h"

namespace lw::analysis {
namespace {

std::map<std::string, std::vector<double>> columnsOf(const SimulationResult& r) {
  std::map<std::string, std::vector<double>> out;
  const std::size_t w = r.columns.size();
  for (std::size_t row = 0; row < r.values.size() / w; ++row)
    for (std::size_t c = 0; c < w; ++c) out[r.columns[c]].push_back(r.values[row * w + c]);
  return out;
}

TEST(NamedOutputs, TheRowsCarryTheFilesOutputsByName) {
  const Mechanism m = test::sampleMechanism("four-bar");
  Diagnostics d;
  const auto r = resolve(m, d);
  SimulationSpec spec;
  spec.tEnd = 0.5;
  spec.dt = 0.01;
  spec.mechanism = &m;
  const auto res = runSimulation(*r, spec);
  ASSERT_TRUE(res.status.ok()) << res.status.message;
  auto col = columnsOf(res);
  ASSERT_TRUE(col.count("crank_angle") && col.count("rocker_angle") && col.count("P.x") && col.count("P.y"));
  for (std::size_t i = 0; i < col["time"].size(); ++i) {
    const double t = col["time"][i];
    // the crank starts at 60° and the driver turns it 2πt
    EXPECT_NEAR(col["crank_angle"][i], M_PI / 3 + 2 * M_PI * t, 1e-9) << t;
    // the coupler point's output is the point's own column
    EXPECT_DOUBLE_EQ(col["P.x"][i], col["coupler.P.x"][i]);
  }
  // the rocker's stored angle (102.89°) at the start
  EXPECT_NEAR(col["rocker_angle"][0], 1.7957749733962085, 1e-9);
  EXPECT_GT(std::abs(col["rocker_angle"].back() - col["rocker_angle"][0]), 0.1);
}

TEST(NamedOutputs, EnergyOutputsAreTheEnergyColumns) {
  const Mechanism m = test::sampleMechanism("four-bar-free");
  Diagnostics d;
  const auto r = resolve(m, d);
  SimulationSpec spec;
  spec.tEnd = 0.2;
  spec.dt = 1e-3;
  spec.mechanism = &m;
  const auto res = runSimulation(*r, spec);
  ASSERT_TRUE(res.status.ok()) << res.status.message;
  auto col = columnsOf(res);
  ASSERT_TRUE(col.count("E"));
  EXPECT_EQ(col["E"], col["energy.total"]);
  EXPECT_NEAR(col["E"][0], 141.128, 1e-3);  // benchmark-mechanisms.md
}

}  // namespace
}  // namespace lw::analysis
