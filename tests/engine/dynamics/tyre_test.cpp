// The tyre force element and the buggy sample (seed 000 §10.3): static equilibrium carries the
// weight on the tyres, a rolling buggy does not slip or lose speed on flat ground, the three
// formulations agree, and the file's bad tyres are refused with the item and the reason.
#include <gtest/gtest.h>

#include "simulation/simulation_run.h"
#include "io/mechanism_io.h"
#include "support/samples.h"

namespace lw::analysis {
namespace {

double column(const SimulationResult& r, std::size_t row, const std::string& name) {
  const auto it = std::find(r.columns.begin(), r.columns.end(), name);
  EXPECT_NE(it, r.columns.end()) << name;
  return r.values[row * r.columns.size() + static_cast<std::size_t>(it - r.columns.begin())];
}

Mechanism buggy(double speed) {
  Mechanism m = test::sampleMechanism("buggy");
  for (auto& p : m.parameters)
    if (p.name == "v0") p.value = speed;
  return m;
}

TEST(Tyre, ABuggyAtRestCarriesItsWeightOnItsTyres) {
  Diagnostics d;
  const auto r = resolve(buggy(0), d);
  SimulationSpec spec;
  spec.tEnd = 3;
  spec.dt = 2e-3;
  const SimulationResult res = runSimulation(*r, spec);
  ASSERT_TRUE(res.status.ok()) << res.status.message;
  const std::size_t last = res.rows() - 1;
  double mass = 0;
  for (const auto& b : r->bodies) mass += b.mass;
  double load = 0;
  const std::size_t nb = r->bodies.size();
  for (const char* w : {"fl", "fr", "rl", "rr"}) {
    const std::string name = std::string("wheel_") + w;
    std::size_t b = 0;
    while (r->bodies[b].name != name) ++b;
    // k_t δ at rest, δ = R·√(1 − a_z²) − z_C for a wheel with spin axis a (the swing arms tilt it)
    const double* pose = &res.poses[(last * nb + b) * 12];
    const double az = pose[7];  // (R e_y)_z: row 2, column 1
    const double z = column(res, last, name + ".C.z");
    load += 150000 * (0.3 * std::sqrt(1 - az * az) - z);
    EXPECT_NEAR(column(res, last, name + ".C.vz"), 0, 1e-4) << w;
  }
  EXPECT_NEAR(load, mass * 9.81, 2e-3 * mass * 9.81);
  EXPECT_NEAR(column(res, last, "chassis.P1.x"), column(res, 0, "chassis.P1.x"), 1e-6);  // friction holds it
}

TEST(Tyre, ARollingBuggyKeepsItsSpeedAndTheFormulationsAgree) {
  Diagnostics d;
  const auto r = resolve(buggy(3), d);
  std::vector<SimulationResult> runs;
  for (auto [formulation, integrator] : {std::pair{Formulation::MatrixR, Integrator::Trapezoidal},
                                         std::pair{Formulation::Penalty, Integrator::Trapezoidal},
                                         std::pair{Formulation::MatrixR, Integrator::RK45}}) {
    SimulationSpec spec;
    spec.formulation = formulation;
    spec.integrator = integrator;
    spec.tEnd = 1;
    spec.dt = integrator == Integrator::RK45 ? 1e-2 : 1e-3;
    runs.push_back(runSimulation(*r, spec));
    ASSERT_TRUE(runs.back().status.ok()) << runs.back().status.message;
  }
  const SimulationResult& m = runs[0];
  const std::size_t last = m.rows() - 1;
  // rolling without slip: no friction work, the speed stays (the suspension settling dissipates)
  EXPECT_NEAR(column(m, last, "chassis.P1.vx"), 3.0, 1e-4);
  EXPECT_NEAR(column(m, last, "chassis.P1.x") - column(m, 0, "chassis.P1.x"), 3.0, 1e-3);
  EXPECT_GT(column(m, last, "energy.dissipated"), 0);
  EXPECT_LT(std::abs(column(m, last, "energy.balance")), 1e-3 * column(m, last, "energy.dissipated") + 1e-2);
  for (std::size_t k = 1; k < runs.size(); ++k)
    for (const char* c : {"chassis.P1.x", "chassis.P1.z", "wheel_fl.C.z", "wheel_rr.C.vz"})
      EXPECT_NEAR(column(runs[k], runs[k].rows() - 1, c), column(m, last, c), 1e-6) << k << " " << c;
}

TEST(Tyre, BadTyresAreRefusedWithTheItemAndTheReason) {
  const auto text = [](const std::string& edit) {
    Mechanism m = test::sampleMechanism("buggy");
    Force& t = m.forces[1];
    if (edit == "radius") t.radius = -0.3;
    if (edit == "axis") t.axis = {"arm_fl", "y"};
    if (edit == "plane") t.planePoint = {"wheel_fl", "C"}, t.planeNormal = {"wheel_fl", "spin"};
    if (edit == "slip") t.slipVelocity = 0;
    return m;
  };
  struct Case {
    std::string edit, path, says;
  };
  const Case cases[] = {{"radius", "forces[1].radius", "the tyre radius must be positive (found -0.3)"},
                        {"axis", "forces[1].axis", "the wheel's centre and spin axis must be on the same body"},
                        {"plane", "forces[1].point", "the wheel and the plane are on the same body"},
                        {"slip", "forces[1].slip_velocity", "the slip velocity that regularises friction must be positive"}};
  for (const auto& [edit, path, says] : cases) {
    Diagnostics d;
    EXPECT_FALSE(resolve(text(edit), d).has_value()) << edit;
    bool named = false;
    for (const auto& e : d)
      if (e.path == path && e.message.find(says) != std::string::npos) named = true;
    EXPECT_TRUE(named) << edit << ": " << (d.empty() ? "" : d[0].format());
  }
}

}  // namespace
}  // namespace lw::analysis
