// The global formulations' sensitivities (issue 39): the direct method and the adjoint on the
// natural coordinates against central differences of whole runs, against each other, GSAM and
// LSAM against the forward-AD partials, against Matrix R's on the same model (the same continuous
// problem: their gradients agree to the discretisation's error), and seed 003's Table 1 by AD,
// GSAM and LSAM on the index-1 formulation.
#include "sensitivity/sensitivity.h"

#include <gtest/gtest.h>

#include <cmath>

#include "io/mechanism_io.h"
#include "support/costs.h"
#include "support/gradients.h"
#include "support/numeric.h"
#include "support/samples.h"

namespace lw::sens {
namespace {

SensitivitySpec spec(Method method, analysis::Formulation f, analysis::Integrator in, double tEnd, double dt) {
  SensitivitySpec s;
  s.method = method;
  s.run.formulation = f;
  s.run.integrator = in;
  s.run.tEnd = tEnd;
  s.run.dt = dt;
  return s;
}

using test::byMethod;

// |a − b| ≤ rtol·(|b| + floor · the largest |b| of its cost)
void expectNear(const SensitivityResult& r, const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, double rtol, double floor, const char* what) {
  ASSERT_EQ(a.rows(), b.rows());
  ASSERT_EQ(a.cols(), b.cols());
  for (Eigen::Index c = 0; c < b.rows(); ++c) {
    const double largest = b.row(c).cwiseAbs().maxCoeff();
    ASSERT_GT(largest, 0) << "a gradient that is all zeros proves nothing";
    for (Eigen::Index k = 0; k < b.cols(); ++k)
      EXPECT_TRUE(test::near(a(c, k), b(c, k), rtol * floor * largest, rtol))
          << what << ": " << r.costs[static_cast<std::size_t>(c)] << " d/d" << r.parameters[static_cast<std::size_t>(k)] << " " << a(c, k)
          << " against " << b(c, k);
  }
}

// A Compare study (s.method) on a global formulation: the adjoint against the direct method, the
// direct method against the complex step and against central differences of whole runs, then
// against Matrix R's gradients of the same motion; each pair within (relative, floor). Matrix R's
// result returned.
struct PairTolerances {
  double rtol, floor;
};
SensitivityResult checkedAgainstMatrixR(const Mechanism& m, SensitivitySpec s, const SensitivityResult& r, PairTolerances adjoint,
                                        PairTolerances complexStep, PairTolerances differences, PairTolerances matrixR) {
  const Gradient& ddm = byMethod(r, Method::Direct);
  expectNear(r, byMethod(r, Method::Adjoint).gradient, ddm.gradient, adjoint.rtol, adjoint.floor, "adjoint against direct");
  expectNear(r, ddm.gradient, byMethod(r, Method::ComplexStep).gradient, complexStep.rtol, complexStep.floor, "direct against complex step");
  expectNear(r, ddm.gradient, byMethod(r, Method::FiniteDifferences).gradient, differences.rtol, differences.floor, "direct against differences");
  s.method = Method::Direct;
  s.run.formulation = analysis::Formulation::MatrixR;
  SensitivityResult mr = runSensitivity(m, s);
  EXPECT_TRUE(mr.status.ok()) << mr.status.message;
  if (mr.status.ok()) expectNear(r, ddm.gradient, mr.methods.front().gradient, matrixR.rtol, matrixR.floor, "against Matrix R");
  return mr;
}

struct Case {
  analysis::Formulation formulation;
  analysis::Integrator integrator;
};

TEST(GlobalSensitivity, DirectAndAdjointEqualTheComplexStepOnEach) {
  const Mechanism m = test::sampleMechanism("ten-bar-chain");
  for (const Case& c : {Case{analysis::Formulation::Index1, analysis::Integrator::Trapezoidal},
                        Case{analysis::Formulation::Index1, analysis::Integrator::RK45},
                        Case{analysis::Formulation::Index3, analysis::Integrator::Trapezoidal},
                        Case{analysis::Formulation::PenaltyGlobal, analysis::Integrator::Trapezoidal}}) {
    SCOPED_TRACE(std::string(analysis::toString(c.formulation)) + (c.integrator == analysis::Integrator::RK45 ? " rk45" : " trapezoidal"));
    SensitivitySpec s = spec(Method::Compare, c.formulation, c.integrator, 0.05, 1e-3);
    s.parameters = {"l_1", "l_4", "l_10", "m_2", "m_7"};
    const SensitivityResult r = runSensitivity(m, s);
    ASSERT_TRUE(r.status.ok()) << r.status.message;
    ASSERT_EQ(r.methods.size(), 4u);
    const Gradient& ddm = byMethod(r, Method::Direct);
    const Gradient& avm = byMethod(r, Method::Adjoint);
    const Gradient& cs = byMethod(r, Method::ComplexStep);
    const Gradient& fd = byMethod(r, Method::FiniteDifferences);
    // the adjoint transposes the direct method's linearised steps: equal to the replays' round-off
    expectNear(r, avm.gradient, ddm.gradient, 1e-8, 1e-3, "adjoint against direct");
    // the complex step takes the same discrete steps again on complex numbers (its own Newton
    // iterations, none of the linearisations): the same gradient to the steps' convergence and
    // the outputs' differenced partials (1e-10 of the cost's largest entry)
    expectNear(r, ddm.gradient, cs.gradient, 1e-10, 1e-2, "direct against complex step");
    expectNear(r, avm.gradient, cs.gradient, 1e-10, 1e-2, "adjoint against complex step");
    // the equations' parameter partials by forward AD (the maps' by GSAM, δ = 1e-6) against
    // central differences of whole runs: to the differences' own error (the stiff penalty's
    // rounding the floor)
    expectNear(r, ddm.gradient, fd.gradient, 1e-7, 0.5, "direct against differences");
    EXPECT_NEAR(ddm.values[0], fd.values[0], 1e-12 * std::abs(fd.values[0]));
  }
}

TEST(GlobalSensitivity, TheAutomaticAndTheSemiAnalyticalRoutesAgree) {
  const Mechanism m = test::sampleMechanism("ten-bar-chain");
  for (const Case& c : {Case{analysis::Formulation::Index1, analysis::Integrator::Trapezoidal},
                        Case{analysis::Formulation::Index3, analysis::Integrator::Trapezoidal},
                        Case{analysis::Formulation::PenaltyGlobal, analysis::Integrator::RK45}}) {
    SCOPED_TRACE(std::string(analysis::toString(c.formulation)));
    SensitivitySpec s = spec(Method::Direct, c.formulation, c.integrator, 0.1, 1e-3);
    const SensitivityResult ad = runSensitivity(m, s);
    s.partials = Partials::GlobalSemiAnalytical;
    const SensitivityResult gsam = runSensitivity(m, s);
    s.partials = Partials::LocalSemiAnalytical;
    const SensitivityResult lsam = runSensitivity(m, s);
    ASSERT_TRUE(ad.status.ok() && gsam.status.ok() && lsam.status.ok()) << ad.status.message << gsam.status.message << lsam.status.message;
    ASSERT_EQ(gsam.parameters.size(), 20u);
    // the differences of O(δ) against the exact partials: the same gradient to that order
    expectNear(ad, gsam.methods.front().gradient, ad.methods.front().gradient, 1e-5, 1e-3, "gsam against ad");
    expectNear(ad, lsam.methods.front().gradient, ad.methods.front().gradient, 1e-5, 1e-3, "lsam against ad");
  }
}

TEST(GlobalSensitivity, AgreeWithMatrixRToTheDiscretisationError) {
  const Mechanism m = test::sampleMechanism("ten-bar-chain");
  SensitivitySpec s = spec(Method::Direct, analysis::Formulation::MatrixR, analysis::Integrator::RK45, 0.2, 1e-3);
  s.run.tol = 1e-10;
  const SensitivityResult reference = runSensitivity(m, s);
  ASSERT_TRUE(reference.status.ok()) << reference.status.message;
  s.run.formulation = analysis::Formulation::Index1;
  const SensitivityResult index1 = runSensitivity(m, s);
  ASSERT_TRUE(index1.status.ok()) << index1.status.message;
  expectNear(reference, index1.methods.front().gradient, reference.methods.front().gradient, 1e-4, 1e-2, "index-1 RK45 against Matrix R");
  s.run.formulation = analysis::Formulation::PenaltyGlobal;
  s.run.integrator = analysis::Integrator::Trapezoidal;
  s.run.dt = 2.5e-4;
  const SensitivityResult penalty = runSensitivity(m, s);
  ASSERT_TRUE(penalty.status.ok()) << penalty.status.message;
  expectNear(reference, penalty.methods.front().gradient, reference.methods.front().gradient, 1e-3, 1e-2, "penalty trapezoidal against Matrix R");
}

TEST(GlobalSensitivity, TenBarChainReproducesTheSeedsTable1ByAdGsamAndLsam) {
  // seed 003 Table 1 (its semi-analytical rows on the index-1 formulation): ∂ψ/∂m6 … ∂ψ/∂m10 =
  // −0.0042, −0.0087, −0.0014, 0.0071, −0.0020 over 1 s (4 printed decimals)
  const double table1[] = {-0.0042, -0.0087, -0.0014, 0.0071, -0.0020};
  for (Partials p : {Partials::AutomaticDifferentiation, Partials::GlobalSemiAnalytical, Partials::LocalSemiAnalytical}) {
    SensitivitySpec s = spec(Method::Direct, analysis::Formulation::Index1, analysis::Integrator::Trapezoidal, 1.0, 1e-3);
    s.parameters = {"m_6", "m_7", "m_8", "m_9", "m_10"};
    s.partials = p;
    const SensitivityResult r = runSensitivity(test::sampleMechanism("ten-bar-chain"), s);
    ASSERT_TRUE(r.status.ok()) << r.status.message;
    for (int k = 0; k < 5; ++k)
      EXPECT_NEAR(r.methods.front().gradient(0, k), table1[k], 0.5e-4) << r.parameters[static_cast<std::size_t>(k)] << (p == Partials::AutomaticDifferentiation ? " ad" : p == Partials::GlobalSemiAnalytical ? " gsam" : " lsam");
  }
}

// a bearing's force as a cost on the global formulations (the multipliers' sensitivities): the
// ten-bar chain's root pin, its mean square and its peak, by the direct method and the adjoint
// against central differences of whole runs, and against Matrix R's gradients of the same motion
TEST(GlobalSensitivity, AJointReactionIsACostLikeAnyOther) {
  Mechanism m = test::sampleMechanism("ten-bar-chain");
  test::bearingCosts(m, m.joints.front().name, m.bodies.front().name);
  SensitivitySpec s = spec(Method::Compare, analysis::Formulation::Index1, analysis::Integrator::Trapezoidal, 0.05, 1e-3);
  s.parameters = {"l_1", "l_2", "m_1", "m_5", "m_10"};
  const SensitivityResult res = runSensitivity(m, s);
  ASSERT_TRUE(res.status.ok()) << res.status.message;
  // the direct method differences the outputs along its columns, the adjoint by coordinate (their
  // 1e-6 steps' error, against the complex step's exact outputs, the floor: a peak's flat entries)
  checkedAgainstMatrixR(m, s, res, {1e-9, 0.1}, {1e-9, 0.1}, {1e-3, 2e-2}, {1e-2, 1e-2});
}

// a rod between ball joints (the RSSR's coupler: two points, no spin) on the global formulations:
// the crank's length and the rod's mass, the motor's torque and the rocker's swing, the direct
// method and the adjoint against the complex step, and against Matrix R's gradients
TEST(GlobalSensitivity, ARodBetweenBallJoints) {
  Mechanism m = test::sampleMechanism("rssr");
  for (const auto& [name, value] : {std::pair{"l_a", 1.0}, std::pair{"m_c", 4.0}}) {
    Parameter p;
    p.name = name;
    p.value = Number(value);
    m.parameters.push_back(p);
  }
  for (auto& b : m.bodies) {
    if (b.name == "crank")
      for (auto& p : b.points)
        if (p.name == "B") p.value[0] = Number::expr("l_a");
    if (b.name == "coupler") {
      b.mass = Number::expr("m_c");
      b.position[0] = Number::expr("l_a");
    }
  }
  m.costs = {test::expressionCost("swing", Cost::Type::Integral, "rocker_angle^2"), test::expressionCost("reach", Cost::Type::Terminal, "C.z")};
  for (analysis::Formulation f : {analysis::Formulation::Index1, analysis::Formulation::Index3, analysis::Formulation::PenaltyGlobal}) {
    SCOPED_TRACE(analysis::toString(f));
    SensitivitySpec s = spec(Method::Compare, f, analysis::Integrator::Trapezoidal, 0.1, 1e-3);
    const SensitivityResult r = runSensitivity(m, s);
    ASSERT_TRUE(r.status.ok()) << r.status.message;
    checkedAgainstMatrixR(m, s, r, {1e-10, 1e-3}, {1e-10, 1e-3}, {1e-4, 1e-2}, {1e-3, 1e-2});
  }
}

TEST(GlobalSensitivity, ATorsionSpringWoundPastHalfATurn) {
  // a bar on a pin spun up against a soft coil: θ = (ω₀/ωₙ) sin ωₙt reaches 4.1 rad, past π, where
  // the angle between the bodies' directions wraps; every point's torque must count the turns as
  // the run did (its tree coordinates), not as the last state the run accepted
  const auto loaded = io::loadMechanismFromString(R"({"format": "linkwright-mechanism", "version": 1, "name": "winder", "dimension": 2,
    "gravity": [0, 0], "parameters": [{"name": "k", "value": 2}, {"name": "w0", "value": 10}],
    "ground": {"points": {"O": [0, 0]}},
    "bodies": [{"name": "bar", "mass": 1, "com": [0.5, 0], "inertia": 0.0833, "points": {"O": [0, 0], "B": [1, 0]}}],
    "joints": [{"name": "O", "type": "pin", "points": ["ground.O", "bar.O"]}],
    "forces": [{"name": "coil", "type": "torsion_spring", "joint": "O", "stiffness": "k", "damping": 0.05, "natural_angle": 0}],
    "initial_velocities": [{"joint": "O", "value": "w0"}],
    "outputs": [{"name": "theta", "type": "joint_coordinate", "joint": "O"}],
    "costs": [{"name": "swing", "type": "integral", "expression": "theta^2"}, {"name": "reach", "type": "terminal", "expression": "theta"}]})");
  ASSERT_TRUE(loaded.ok()) << loaded.diagnostics[0].format();
  const Mechanism& m = *loaded.mechanism;
  for (analysis::Formulation f : {analysis::Formulation::Index1, analysis::Formulation::Index3}) {
    SCOPED_TRACE(analysis::toString(f));
    SensitivitySpec s = spec(Method::Compare, f, analysis::Integrator::Trapezoidal, 0.8, 1e-3);
    const SensitivityResult r = runSensitivity(m, s);
    ASSERT_TRUE(r.status.ok()) << r.status.message;
    EXPECT_GT(byMethod(r, Method::Direct).values[1], 3.5);  // wound past half a turn at the end
    // (the coil's stiffness and damping in f's partials by central differences: 1e-8)
    checkedAgainstMatrixR(m, s, r, {1e-8, 1e-3}, {1e-8, 1e-3}, {1e-5, 1e-2}, {1e-3, 1e-2});
  }
}

TEST(GlobalSensitivity, RefusesWhatItDoesNotDifferentiate) {
  const Mechanism m = test::sampleMechanism("ten-bar-chain");
  // index-3's step linearised needs independent constraints: a grid's redundant ones are refused
  SensitivitySpec grid = spec(Method::Direct, analysis::Formulation::Index3, analysis::Integrator::Trapezoidal, 0.01, 1e-3);
  const SensitivityResult index3 = runSensitivity(test::sampleMechanism("grid-1x15-parameters"), grid);
  EXPECT_FALSE(index3.status.ok());
  EXPECT_NE(index3.status.message.find("independent constraints"), std::string::npos) << index3.status.message;
  // RK45's steps are cut at an impact on its dense output, not retaken: refused there, naming it
  const SensitivityResult impacts =
      runSensitivity(test::sampleMechanism("five-bar"), spec(Method::Direct, analysis::Formulation::Index1, analysis::Integrator::RK45, 0.5, 1e-3));
  EXPECT_FALSE(impacts.status.ok());
  EXPECT_NE(impacts.status.message.find("--integrator trapezoidal"), std::string::npos) << impacts.status.message;
}

TEST(GlobalSensitivity, ThroughTheFiveBarsImpacts) {
  // seed 001's five-bar: its impacts' jumps (Theorems 1–3) in natural coordinates, the direct
  // method and the adjoint against the complex step (the event time made complex), against
  // central differences of whole runs, and against Matrix R's
  // gradients of the same motion; index-1, and index-3 (the tangent of its converged step)
  for (analysis::Formulation f : {analysis::Formulation::Index1, analysis::Formulation::Index3}) {
    SCOPED_TRACE(analysis::toString(f));
    const Mechanism m = test::sampleMechanism("five-bar");
    SensitivitySpec s = spec(Method::Compare, f, analysis::Integrator::Trapezoidal, 0.3, 2.5e-4);
    const SensitivityResult r = runSensitivity(m, s);
    ASSERT_TRUE(r.status.ok()) << r.status.message;
    ASSERT_FALSE(r.impacts.empty());
    ASSERT_FALSE(r.impacts.front().eventTime.empty());
    const SensitivityResult matrixR = checkedAgainstMatrixR(m, s, r, {1e-7, 1e-3}, {1e-7, 1e-3}, {1e-4, 1e-2}, {1e-2, 1e-2});
    ASSERT_TRUE(matrixR.status.ok());
    ASSERT_FALSE(matrixR.impacts.empty());
    EXPECT_NEAR(r.impacts.front().eventTime[0], matrixR.impacts.front().eventTime[0], 1e-2 * std::abs(matrixR.impacts.front().eventTime[0]) + 1e-6);
  }
}

}  // namespace
}  // namespace lw::sens
