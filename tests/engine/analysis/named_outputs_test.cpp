// A simulation's rows carry the file's outputs by name: point coordinates as the point columns,
// joint coordinates as absolute angles (the driven crank's is its start angle plus the driver's),
// energies as the energy columns.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "simulation/kinematics_run.h"
#include "outputs/outputs.h"
#include "simulation/simulation_run.h"
#include "support/samples.h"

namespace lw::analysis {
namespace {

// a run's table by column name (simulation and kinematics results alike)
template <class Result>
std::map<std::string, std::vector<double>> columnsOf(const Result& r) {
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

TEST(NamedOutputs, KinematicRowsCarryTheSameOutputsAsTheDynamics) {
  // the natural-coordinate kinematics measures the outputs from its poses and point columns: the
  // same absolute, continuous angles (the crank past 180° reads 240°, not −120°), slides and rates
  for (const char* name : {"four-bar", "slider-crank", "watt-six-bar"}) {
    SCOPED_TRACE(name);
    const Mechanism m = test::sampleMechanism(name);
    Diagnostics d;
    const auto r = resolve(m, d);
    KinematicsSpec k;
    k.tEnd = 1.0;
    k.dt = 0.01;
    k.mechanism = &m;
    const auto kin = runKinematics(*r, k);
    ASSERT_TRUE(kin.status.ok()) << kin.status.message;
    SimulationSpec s;
    s.tEnd = 1.0;
    s.dt = 0.01;
    s.mechanism = &m;
    const auto dyn = runSimulation(*r, s);
    ASSERT_TRUE(dyn.status.ok()) << dyn.status.message;
    auto a = columnsOf(kin);
    auto b = columnsOf(dyn);
    int compared = 0;
    for (const Output& o : m.outputs) {
      if (o.type != Output::Type::JointCoordinate && o.type != Output::Type::JointRate) continue;
      ASSERT_TRUE(a.count(o.name)) << o.name;
      ASSERT_EQ(a[o.name].size(), b[o.name].size());
      for (std::size_t i = 0; i < a[o.name].size(); ++i) EXPECT_NEAR(a[o.name][i], b[o.name][i], 1e-7) << o.name << " row " << i;
      ++compared;
    }
    EXPECT_GT(compared, 0);
  }
}

TEST(NamedOutputs, EveryColumnHasItsUnit) {
  const Mechanism m = test::sampleMechanism("four-bar");
  Diagnostics d;
  const auto r = resolve(m, d);
  SimulationSpec spec;
  spec.tEnd = 0.01;
  spec.mechanism = &m;
  const auto run = runSimulation(*r, spec);
  ASSERT_TRUE(run.status.ok()) << run.status.message;
  const auto units = columnUnits(run.columns, &m);
  ASSERT_EQ(units.size(), run.columns.size());
  std::map<std::string, std::string> unit;
  for (std::size_t c = 0; c < units.size(); ++c) unit[run.columns[c]] = units[c];
  EXPECT_EQ(unit["time"], "s");
  EXPECT_EQ(unit["crank.B.x"], "m");
  EXPECT_EQ(unit["crank.B.vy"], "m/s");
  EXPECT_EQ(unit["P.x"], "m");             // the file's point output
  EXPECT_EQ(unit["rocker_angle"], "rad");  // a pin's coordinate
  EXPECT_EQ(unit["energy.total"], "J");
  for (const auto& [name, u] : unit) {
    if (name.rfind("dof.joint ", 0) == 0) {
      EXPECT_EQ(u, "rad") << name;
    }
  }
  // a slider's coordinate is a length
  const Mechanism sc = test::sampleMechanism("slider-crank");
  for (const auto& j : sc.joints) {
    if (j.type == JointType::Slider) {
      EXPECT_EQ(columnUnits({"dof.joint " + j.name}, &sc)[0], "m");
    }
  }
}

}  // namespace
}  // namespace lw::analysis
