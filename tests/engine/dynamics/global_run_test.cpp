// The global formulations as runs (issue 39: --formulation index3 | index1 | penalty-global): the
// same table as Matrix R's, the motion equal to Matrix R's to the integration error, the index-3
// rule second order in its step (positions and the energy's drift) with its constraints held to
// round-off, a fully driven mechanism's motor torque and bearing force equal to the kinematic
// run's, and what they do not do yet refused with the reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "sensitivity/sensitivity.h"
#include "simulation/kinematics_run.h"
#include "simulation/simulation_run.h"
#include "support/samples.h"

namespace lw::analysis {
namespace {

double at(const RunTable& r, std::size_t row, const std::string& column) {
  const auto it = std::find(r.columns.begin(), r.columns.end(), column);
  EXPECT_NE(it, r.columns.end()) << column;
  if (it == r.columns.end()) return NAN;
  return r.values[row * r.columns.size() + static_cast<std::size_t>(it - r.columns.begin())];
}

// the largest difference of the point columns (positions) in the last rows of a and b
double lastPointsApart(const ResolvedMechanism& m, const SimulationResult& a, const SimulationResult& b) {
  double worst = 0;
  for (std::size_t k = 1; k < m.bodies.size(); ++k)
    for (const auto& p : m.bodies[k].pointNames)
      for (const char* axis : {".x", ".y"}) {
        const std::string column = m.bodies[k].name + "." + p + axis;
        worst = std::max(worst, std::abs(at(a, a.rows() - 1, column) - at(b, b.rows() - 1, column)));
      }
  return worst;
}

SimulationResult run(const ResolvedMechanism& m, Formulation f, Integrator i, double tEnd, double dt, double tol = 1e-8,
                     const Mechanism* mech = nullptr) {
  SimulationSpec spec;
  spec.formulation = f;
  spec.integrator = i;
  spec.tEnd = tEnd;
  spec.dt = dt;
  spec.tol = tol;
  spec.mechanism = mech;
  SimulationResult r = runSimulation(m, spec);
  EXPECT_TRUE(r.status.ok()) << toString(f) << ": " << r.status.message;
  return r;
}

TEST(GlobalRun, RK45IntegratesTheCostsAsQuadraturesInEveryFormulation) {
  // the ten-bar chain's ∫|end|² over 1 s with rows every 0.1 s: Matrix R's and the index-1
  // formulation's RK45 take the tolerance's steps (not at most the rows' 0.1 s) and integrate the
  // cost over their stages, to the tolerance's order, against a run of 0.1 ms steps (the
  // trapezoidal rule over the steps and rows was 1.1e-7 off)
  const Mechanism m = test::sampleMechanism("ten-bar-chain");
  Diagnostics d;
  const auto r = resolve(m, d);
  ASSERT_TRUE(r);
  SimulationSpec fine;
  fine.integrator = Integrator::RK45;
  fine.tEnd = 1.0;
  fine.dt = 1e-4;
  fine.maxStep = 1e-4;
  fine.tol = 1e-11;
  fine.mechanism = &m;
  const SimulationResult reference = runSimulation(*r, fine);
  ASSERT_TRUE(reference.status.ok()) << reference.status.message;
  ASSERT_EQ(reference.costValues.size(), 1u);
  for (Formulation f : {Formulation::MatrixR, Formulation::Index1}) {
    const SimulationResult s = run(*r, f, Integrator::RK45, 1.0, 0.1, 1e-11, &m);
    ASSERT_EQ(s.costValues.size(), 1u);
    EXPECT_NEAR(s.costValues[0], reference.costValues[0], 1e-8 * reference.costValues[0]) << toString(f);
    EXPECT_GT(s.steps, 10);  // (RK45's own count: the tolerance's)
  }
}

TEST(GlobalRun, EachFormulationFollowsMatrixR) {
  struct Case {
    const char* sample;
    double tEnd;
    bool redundant = false;  // constraints that repeat others: index-1's matrix is singular
  };
  // an open chain, a four-bar loop swinging free (its motor taken off), the five-bar's two
  // freedoms without its wall; spatial: the swinging spatial four-bar, a four-bar of parallel
  // revolutes in space (its loop's out-of-plane constraints repeat each other), and the RSSR
  // swinging free (its coupler a rod between ball joints: two points, no spin)
  for (const Case& c : {Case{"ten-bar-chain", 0.5}, Case{"four-bar", 1.0}, Case{"five-bar", 0.5}, Case{"spatial-four-bar-swing", 0.5},
                        Case{"four-bar-free", 0.5, true}, Case{"rssr", 0.5}}) {
    SCOPED_TRACE(c.sample);
    Mechanism mech = test::withoutContacts(test::sampleMechanism(c.sample));
    mech.drivers.clear();
    mech.outputs.clear();
    mech.costs.clear();
    const auto l = test::loaded(mech);
    const SimulationResult ref = run(l->resolved, Formulation::MatrixR, Integrator::RK45, c.tEnd, 1e-2, 1e-11);
    // the same table: columns, and a row every dt
    const SimulationResult index3 = run(l->resolved, Formulation::Index3, Integrator::Trapezoidal, c.tEnd, 1e-3);
    EXPECT_EQ(index3.columns, ref.columns);
    EXPECT_EQ(index3.rows(), static_cast<std::size_t>(std::lround(c.tEnd / 1e-3)) + 1);
    EXPECT_EQ(index3.steps, std::lround(c.tEnd / 1e-3));
    const SimulationResult index3Half = run(l->resolved, Formulation::Index3, Integrator::Trapezoidal, c.tEnd, 5e-4);
    const double e1 = lastPointsApart(l->resolved, index3, ref), e2 = lastPointsApart(l->resolved, index3Half, ref);
    EXPECT_LT(e1, 1e-4);
    EXPECT_GT(e1 / e2, 3.5) << e1 << " " << e2;  // second order
    EXPECT_LT(e1 / e2, 4.5) << e1 << " " << e2;
    // index-3: every row's natural constraints at round-off after the projections
    for (std::size_t row = 0; row < index3.rows(); ++row) {
      ASSERT_LT(at(index3, row, "constraint.position"), 1e-10) << row;
      ASSERT_LT(at(index3, row, "constraint.velocity"), 1e-9) << row;
    }
    // the ODE formulations by RK45: Matrix R's motion to the tolerance (index-1's Baumgarte
    // terms and the penalty's yield, of order g/α, stay below it)
    const SimulationResult penalty = run(l->resolved, Formulation::PenaltyGlobal, Integrator::RK45, c.tEnd, 1e-2, 1e-10);
    EXPECT_LT(lastPointsApart(l->resolved, penalty, ref), 1e-5);
    if (c.redundant) {
      SimulationSpec s1;
      s1.formulation = Formulation::Index1;
      s1.tEnd = c.tEnd;
      const SimulationResult refused = runSimulation(l->resolved, s1);
      EXPECT_NE(refused.status.message.find("redundant constraint"), std::string::npos) << refused.status.message;
      continue;
    }
    const SimulationResult index1 = run(l->resolved, Formulation::Index1, Integrator::RK45, c.tEnd, 1e-2, 1e-10);
    EXPECT_LT(lastPointsApart(l->resolved, index1, ref), 1e-7);
    EXPECT_LT(at(index1, index1.rows() - 1, "constraint.position"), 1e-8);
    EXPECT_GT(index1.evaluations, 6 * index1.steps);  // RK45: six stages a step and more
    // and by the trapezoidal rule, to its truncation error
    for (Formulation f : {Formulation::Index1, Formulation::PenaltyGlobal}) {
      const SimulationResult r = run(l->resolved, f, Integrator::Trapezoidal, c.tEnd, 1e-3);
      EXPECT_LT(lastPointsApart(l->resolved, r, ref), 1e-4) << toString(f);
    }
  }
}

// every force element kind (damped springs, torsion springs on every pin — in the tree and
// closing the loop —, a body-frame point force, a torque): the global formulations' generalized
// forces are the recursive ones' by virtual work
TEST(GlobalRun, TheForceElementsActAsInTheRecursiveFormulations) {
  for (const char* sample : {"four-bar", "ten-bar-chain", "spatial-four-bar-swing"}) {
    SCOPED_TRACE(sample);
    Mechanism mech = test::sampleMechanism(sample);
    mech.drivers.clear();
    mech.outputs.clear();
    mech.costs.clear();
    const auto l = test::loaded(test::withEveryForce(mech));
    ASSERT_GE(l->resolved.forces.size(), 4u);
    const SimulationResult ref = run(l->resolved, Formulation::MatrixR, Integrator::RK45, 0.5, 1e-2, 1e-11);
    const SimulationResult index1 = run(l->resolved, Formulation::Index1, Integrator::RK45, 0.5, 1e-2, 1e-11);
    EXPECT_LT(lastPointsApart(l->resolved, index1, ref), 1e-7);
    const SimulationResult index3 = run(l->resolved, Formulation::Index3, Integrator::Trapezoidal, 0.5, 1e-3);
    const SimulationResult index3Half = run(l->resolved, Formulation::Index3, Integrator::Trapezoidal, 0.5, 5e-4);
    const double e1 = lastPointsApart(l->resolved, index3, ref), e2 = lastPointsApart(l->resolved, index3Half, ref);
    EXPECT_LT(e1, 1e-3);
    EXPECT_GT(e1 / e2, 3.5) << e1 << " " << e2;
    EXPECT_LT(e1 / e2, 4.5) << e1 << " " << e2;
    // the work the elements did and dissipated (a quadrature of the tree's powers over the
    // steps, which differ: 3e-5 of it apart on the spatial four-bar) is Matrix R's, and the
    // balance holds to that quadrature's error
    const double scale = at(ref, ref.rows() - 1, "energy.dissipated");
    EXPECT_GT(scale, 1.0);
    for (const char* column : {"energy.applied_work", "energy.dissipated"})
      EXPECT_NEAR(at(index1, index1.rows() - 1, column), at(ref, ref.rows() - 1, column), 1e-4 * scale) << column;
    EXPECT_LT(std::abs(at(index1, index1.rows() - 1, "energy.balance")), 1e-4 * scale);
  }
}

TEST(GlobalRun, TheIndex3EnergyDriftIsSecondOrder) {
  const auto l = test::loaded(test::sampleMechanism("ten-bar-chain"));
  double drift[2];
  for (int k = 0; k < 2; ++k) {
    const SimulationResult r = run(l->resolved, Formulation::Index3, Integrator::Trapezoidal, 0.5, k == 0 ? 2e-3 : 1e-3);
    drift[k] = 0;
    for (std::size_t row = 0; row < r.rows(); ++row) drift[k] = std::max(drift[k], std::abs(at(r, row, "energy.total") - at(r, 0, "energy.total")));
  }
  EXPECT_LT(drift[1], 1e-3);
  EXPECT_GT(drift[0] / drift[1], 3.5) << drift[0] << " " << drift[1];
  EXPECT_LT(drift[0] / drift[1], 4.5) << drift[0] << " " << drift[1];
}

// the slider-crank is fully driven: every formulation moves it as the kinematics does, and its
// motor torque and crank bearing force (the file's outputs) are the inverse dynamics' at each row
TEST(GlobalRun, AFullyDrivenMechanismsMotorTorqueIsTheKinematicRuns) {
  const auto l = test::loaded(test::sampleMechanism("slider-crank"));
  KinematicsSpec kspec;
  kspec.tEnd = 1;
  kspec.dt = 1e-2;
  kspec.mechanism = &l->mechanism;
  const KinematicsResult kin = runKinematics(l->resolved, kspec);
  ASSERT_TRUE(kin.status.ok()) << kin.status.message;
  double torqueScale = 0;
  for (std::size_t row = 0; row < kin.rows(); ++row) torqueScale = std::max(torqueScale, std::abs(at(kin, row, "motor_torque")));
  ASSERT_GT(torqueScale, 0.1);
  struct Case {
    Formulation f;
    Integrator i;
    double tol;  // relative to the largest torque
  };
  for (const Case& c : {Case{Formulation::Index3, Integrator::Trapezoidal, 1e-9}, Case{Formulation::Index1, Integrator::RK45, 1e-5},
                        Case{Formulation::PenaltyGlobal, Integrator::RK45, 1e-4}}) {
    SCOPED_TRACE(toString(c.f));
    const SimulationResult r = run(l->resolved, c.f, c.i, 1, 1e-2, 1e-10, &l->mechanism);
    ASSERT_EQ(r.rows(), kin.rows());
    for (std::size_t row = 0; row < r.rows(); ++row) {
      ASSERT_NEAR(at(r, row, "time"), at(kin, row, "time"), 1e-12);
      for (const char* column : {"motor_torque", "crank_bearing.fx", "crank_bearing.fy"})
        ASSERT_NEAR(at(r, row, column), at(kin, row, column), c.tol * torqueScale * 100) << column << " at row " << row;
      ASSERT_NEAR(at(r, row, "crank_angle"), at(kin, row, "crank_angle"), c.tol) << row;
    }
  }
}

// seed 001's five-bar striking its floor: the impacts (times, normal velocities, energies) of
// every global formulation are the recursive ones' to the integration error, index-3's second
// order in its step; a switch and a joint limit alike
TEST(GlobalRun, TheFiveBarsImpactsAreTheRecursiveFormulationsOnes) {
  const auto l = test::loaded(test::sampleMechanism("five-bar"));
  const SimulationResult ref = run(l->resolved, Formulation::MatrixR, Integrator::RK45, 1.0, 1e-3, 1e-11);
  ASSERT_EQ(ref.events.size(), 2u);
  auto worstTime = [&](const SimulationResult& r) {
    EXPECT_EQ(r.events.size(), ref.events.size());
    double worst = 0;
    for (std::size_t k = 0; k < std::min(r.events.size(), ref.events.size()); ++k) {
      worst = std::max(worst, std::abs(r.events[k].t - ref.events[k].t));
      if (r.events[k].normalAfter.size() != 1 || ref.events[k].normalAfter.size() != 1) {
        ADD_FAILURE() << "event " << k << " has not one contact";
        continue;
      }
      EXPECT_NEAR(r.events[k].normalAfter[0], ref.events[k].normalAfter[0], 1e-3 * std::abs(ref.events[k].normalAfter[0])) << k;
      EXPECT_NEAR(r.events[k].energyAfter, ref.events[k].energyAfter, 1e-4 * std::abs(ref.events[k].energyAfter)) << k;
    }
    return worst;
  };
  const double e1 = worstTime(run(l->resolved, Formulation::Index3, Integrator::Trapezoidal, 1.0, 1e-3));
  const double e2 = worstTime(run(l->resolved, Formulation::Index3, Integrator::Trapezoidal, 1.0, 5e-4));
  EXPECT_LT(e1, 1e-5);
  EXPECT_GT(e1 / e2, 3.0) << e1 << " " << e2;
  for (Formulation f : {Formulation::Index1, Formulation::PenaltyGlobal}) {
    EXPECT_LT(worstTime(run(l->resolved, f, Integrator::Trapezoidal, 1.0, 1e-3)), 1e-4) << toString(f);
    // by RK45: located on its dense output, to the tolerance
    EXPECT_LT(worstTime(run(l->resolved, f, Integrator::RK45, 1.0, 1e-3, 1e-10)), 1e-6) << toString(f) << " rk45";
  }
  for (const char* sample : {"switch-t4", "slider-crank-end-stop"}) {
    SCOPED_TRACE(sample);
    const auto s = test::loaded(test::sampleMechanism(sample));
    const SimulationResult r0 = run(s->resolved, Formulation::MatrixR, Integrator::RK45, 1.0, 1e-3, 1e-11);
    const SimulationResult r3 = run(s->resolved, Formulation::Index3, Integrator::Trapezoidal, 1.0, 5e-4);
    ASSERT_FALSE(r0.events.empty());
    ASSERT_EQ(r3.events.size(), r0.events.size());
    for (std::size_t k = 0; k < r0.events.size(); ++k) {
      EXPECT_EQ(r3.events[k].kind, r0.events[k].kind);
      EXPECT_NEAR(r3.events[k].t, r0.events[k].t, 1e-5) << k;
    }
  }
}

TEST(GlobalRun, WhatItDoesNotDoYetIsRefusedWithTheReason) {
  SimulationSpec spec;
  spec.formulation = Formulation::Index3;
  spec.tEnd = 0.1;
  spec.dt = 1e-3;
  {
    // a rod between ball joints whose centre of mass is off its line: its spin would move the line
    Mechanism rssr = test::sampleMechanism("rssr");
    for (auto& b : rssr.bodies)
      if (b.name == "coupler") b.com = {Number(0.75), Number(1.2), Number(1.4)};
    const auto l = test::loaded(rssr);
    const SimulationResult r = runSimulation(l->resolved, spec);
    EXPECT_FALSE(r.status.ok());
    EXPECT_NE(r.status.message.find("ball joints"), std::string::npos) << r.status.message;
    EXPECT_NE(r.status.message.find("--formulation matrix-r"), std::string::npos) << r.status.message;
  }
  {
    // a contact that comes to rest (no restitution: it would bounce without end) is held closed
    // as a row of the natural model, its sensitivities through the rest by AD
    // (sensitivity/resting_sensitivity_test.cpp); seed 003's differences of moved models do not
    // follow a rest: refused, naming why
    Mechanism ball = test::sampleMechanism("bouncing-ball-t1");
    ball.contacts.front().restitution = Number(0.0);
    sens::SensitivitySpec s;
    s.run = spec;
    s.run.tEnd = 1;
    s.run.integrator = Integrator::Trapezoidal;
    s.partials = sens::Partials::GlobalSemiAnalytical;
    const sens::SensitivityResult r = sens::runSensitivity(ball, s);
    EXPECT_FALSE(r.status.ok());
    EXPECT_NE(r.status.message.find("contact at rest"), std::string::npos) << r.status.message;
    EXPECT_NE(r.status.message.find("by AD only"), std::string::npos) << r.status.message;
  }
  {
    // the index-3 steps' sensitivities need independent constraints (sensitivity/global_formulation.h)
    sens::SensitivitySpec s;
    s.run = spec;
    const sens::SensitivityResult r = sens::runSensitivity(test::sampleMechanism("grid-1x15-parameters"), s);
    EXPECT_FALSE(r.status.ok());
    EXPECT_NE(r.status.message.find("independent constraints"), std::string::npos) << r.status.message;
  }
  {
    const auto l = test::loaded(test::sampleMechanism("ten-bar-chain"));
    spec.times = {0.05, 0.1};
    const SimulationResult r = runSimulation(l->resolved, spec);
    EXPECT_FALSE(r.status.ok());
    EXPECT_NE(r.status.message.find("index3"), std::string::npos) << r.status.message;
  }
}

}  // namespace
}  // namespace lw::analysis
