// Gradients of costs with respect to design parameters: the direct method against the complex
// step (the same discrete trajectory: equal to round-off) and central differences (to their
// truncation error), the ten-bar chain's scaling invariants, and a closed form.
#include "sensitivity/sensitivity.h"

#include <gtest/gtest.h>

#include <functional>

#include <cmath>
#include <cstdio>

#include "simulation/kinematics_run.h"
#include "simulation/simulation_run.h"
#include "io/mechanism_io.h"
#include "mechanism/generators.h"
#include "support/costs.h"
#include "support/gradients.h"
#include "support/numeric.h"
#include "support/samples.h"

namespace lw::sens {
namespace {

SensitivitySpec spec(Method method, double tEnd, double dt) {
  SensitivitySpec s;
  s.method = method;
  s.run.tEnd = tEnd;
  s.run.dt = dt;
  return s;
}

using test::byMethod;

// every entry of `a` against `b`: |a − b| ≤ rtol·(|b| + the largest |b| of its cost · floor)
void expectGradientsNear(const SensitivityResult& r, const Gradient& a, const Gradient& b, double rtol, double floor) {
  for (Eigen::Index c = 0; c < b.gradient.rows(); ++c) {
    const double largest = b.gradient.row(c).cwiseAbs().maxCoeff();
    for (Eigen::Index k = 0; k < b.gradient.cols(); ++k)
      EXPECT_TRUE(test::near(a.gradient(c, k), b.gradient(c, k), rtol * floor * largest, rtol))
          << r.costs[static_cast<std::size_t>(c)] << " d/d" << r.parameters[static_cast<std::size_t>(k)] << " (" << toString(a.method)
          << " against " << toString(b.method) << ")";
  }
}

TEST(Sensitivity, TenBarChainDirectEqualsComplexStepAndDifferencesAgree) {
  const Mechanism m = test::sampleMechanism("ten-bar-chain");
  const SensitivityResult r = runSensitivity(m, spec(Method::Compare, 0.03, 1e-3));
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  ASSERT_EQ(r.parameters.size(), 20u);
  ASSERT_EQ(r.methods.size(), 4u);
  const Gradient& ddm = byMethod(r, Method::Direct);
  const Gradient& cs = byMethod(r, Method::ComplexStep);
  const Gradient& fd = byMethod(r, Method::FiniteDifferences);
  // the same discrete trajectory: equal up to the Newton tolerances of the two routes
  expectGradientsNear(r, ddm, cs, 1e-7, 1e-3);
  expectGradientsNear(r, byMethod(r, Method::Adjoint), cs, 1e-7, 1e-3);
  expectGradientsNear(r, fd, cs, 1e-4, 1e-3);
  EXPECT_NEAR(ddm.values[0], cs.values[0], 1e-12 * std::abs(cs.values[0]));
  // a length matters: ψ = ∫|end|² grows with every bar
  for (int k = 0; k < 10; ++k) EXPECT_GT(ddm.gradient(0, k), 0.2);
}

// the adjoint's parameter terms on an open chain as products of the transposed lanes kernel
// (TreeProducts): outputs that read the accelerations (their O_z̈ A_ρ term), the velocities, a
// joint rate and the positions, in integral and terminal costs, against the direct method's
// parameter columns
TEST(Sensitivity, AnOpenChainsAdjointByProductsEqualsTheDirectMethod) {
  Mechanism m = test::sampleMechanism("ten-bar-chain");
  auto pointOutput = [](const char* name, Output::Type type, const char* body) {
    Output o;
    o.name = name;
    o.type = type;
    o.point = Ref{body, "B"};
    return o;
  };
  m.outputs.push_back(pointOutput("acc", Output::Type::PointAcceleration, "bar_7"));
  m.outputs.push_back(pointOutput("vel", Output::Type::PointVelocity, "bar_4"));
  Output rate;
  rate.name = "w3";
  rate.type = Output::Type::JointRate;
  rate.joint = "J3";
  m.outputs.push_back(rate);
  m.costs = {test::expressionCost("kick", Cost::Type::Terminal, "acc.x*vel.y - 0.3*w3^2 + end.y"),
             test::expressionCost("shake", Cost::Type::Integral, "acc.x^2 + acc.y*vel.x + w3")};
  for (const auto integrator : {analysis::Integrator::Trapezoidal, analysis::Integrator::RK45}) {  // RK45: at its stages too
    SCOPED_TRACE(integrator == analysis::Integrator::RK45 ? "rk45" : "trapezoidal");
    SensitivitySpec s = spec(Method::Direct, 0.15, 1e-3);
    s.run.integrator = integrator;
    const SensitivityResult ddm = runSensitivity(m, s);
    s.method = Method::Adjoint;
    const SensitivityResult avm = runSensitivity(m, s);
    ASSERT_TRUE(ddm.status.ok() && avm.status.ok()) << ddm.status.message << avm.status.message;
    ASSERT_EQ(ddm.parameters.size(), 20u);
    expectGradientsNear(ddm, avm.methods.front(), ddm.methods.front(), 1e-9, 1e-6);
    for (Eigen::Index c = 0; c < 2; ++c) EXPECT_GT(ddm.methods.front().gradient.row(c).cwiseAbs().maxCoeff(), 1e-3);
  }
}

// the adjoint's parameter terms on trees with loops as products (MatrixRParameterTranspose: the
// tangent's lanes taken backwards, the lanes kernel's transpose on the point's motion and on the
// multipliers' turn): lengths that move the loops' points and the independent point, masses, a
// centre of mass, gravity and springs' natural lengths, outputs that read accelerations and velocities, terminal and integral costs,
// trapezoidal and RK45, against the direct method's parameter lanes
TEST(Sensitivity, ALoopsAdjointByProductsEqualsTheDirectMethod) {
  struct Case {
    const char* sample;
    std::vector<std::string> parameters;
    double tEnd;
  };
  for (const Case& c : {Case{"five-bar", {"L_s1", "m_A1", "xG_A1", "L_A1", "L_s2"}, 0.2},
                        Case{"grid-1x15-parameters", {"m_v", "m_h_3", "m_h_9", "g", "m_h_15", "w0"}, 0.3}}) {
    Mechanism m = test::withoutContacts(test::sampleMechanism(c.sample));
    Output acc;
    acc.name = "acc";
    acc.type = Output::Type::PointAcceleration;
    acc.point = m.outputs.front().point;
    m.outputs.push_back(acc);
    const std::string first = m.outputs.front().name;
    m.costs = {test::expressionCost("kick", Cost::Type::Terminal, "acc.x*" + first + ".y + acc.y"),
               test::expressionCost("shake", Cost::Type::Integral, "acc.x^2 + acc.y*" + first + ".x")};
    for (const auto integrator : {analysis::Integrator::Trapezoidal, analysis::Integrator::RK45}) {
      SCOPED_TRACE(std::string(c.sample) + (integrator == analysis::Integrator::RK45 ? " rk45" : " trapezoidal"));
      SensitivitySpec s = spec(Method::Direct, c.tEnd, 1e-3);
      s.parameters = c.parameters;
      s.run.integrator = integrator;
      const SensitivityResult ddm = runSensitivity(m, s);
      s.method = Method::Adjoint;
      const SensitivityResult avm = runSensitivity(m, s);
      ASSERT_TRUE(ddm.status.ok() && avm.status.ok()) << ddm.status.message << avm.status.message;
      ASSERT_EQ(ddm.parameters.size(), c.parameters.size());
      expectGradientsNear(ddm, avm.methods.front(), ddm.methods.front(), 1e-9, 1e-6);
      for (Eigen::Index k = 0; k + 1 < static_cast<Eigen::Index>(c.parameters.size()); ++k)
        EXPECT_GT(ddm.methods.front().gradient.col(k).cwiseAbs().maxCoeff(), 1e-6) << c.parameters[static_cast<std::size_t>(k)];
    }
  }
}

TEST(Sensitivity, TenBarChainReproducesTheSeedsTable1) {
  // seed 003 Table 1, the semi-analytical row: ∂ψ/∂m6 … ∂ψ/∂m10 = −0.0042, −0.0087, −0.0014,
  // 0.0071, −0.0020 over 1 s (4 printed decimals)
  SensitivitySpec s = spec(Method::Direct, 1.0, 1e-3);
  s.parameters = {"m_6", "m_7", "m_8", "m_9", "m_10"};
  const SensitivityResult r = runSensitivity(test::sampleMechanism("ten-bar-chain"), s);
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  const double table1[] = {-0.0042, -0.0087, -0.0014, 0.0071, -0.0020};
  for (int k = 0; k < 5; ++k) EXPECT_NEAR(r.methods.front().gradient(0, k), table1[k], 0.5e-4) << r.parameters[static_cast<std::size_t>(k)];
}

// the analytic kernels (the open chains' state Jacobians, parameter partials, outputs' partials)
// and the tangent by jet-free passes (loops) against forward AD of the whole pipeline, the
// reference they replace: the direct method and the adjoint, trapezoidal and RK45, equal to 1e-9
// relative on the ten-bar chain, the double pendulum's and the five-bar's impacts, a slider-crank's end stop and
// a switch, the grid 1×15 (its loops' state Jacobians by products: MatrixRTangent::stateJacobians,
// the parameters alone on the lanes), and the penalty formulation's impacts
TEST(Sensitivity, TheAnalyticKernelsGiveTheReferenceGradients) {
  struct Case {
    const char* sample;
    double tEnd;
    analysis::Integrator integrator;
    analysis::Formulation formulation = analysis::Formulation::MatrixR;
    bool everyForce = false;  // test::withEveryForce: an open chain's force elements by the kernels' laws on jets
    bool moreParameters = false;  // the other bars' masses as parameters too: nine, past one dual-number pass
  };
  for (const Case& c : {Case{"ten-bar-chain", 0.2, analysis::Integrator::Trapezoidal}, Case{"ten-bar-chain", 0.05, analysis::Integrator::RK45},
                        Case{"ten-bar-chain", 0.2, analysis::Integrator::Trapezoidal, analysis::Formulation::MatrixR, true},
                        Case{"double-pendulum-wall", 1.0, analysis::Integrator::Trapezoidal}, Case{"five-bar", 0.3, analysis::Integrator::Trapezoidal},
                        Case{"five-bar", 0.29, analysis::Integrator::RK45}, Case{"slider-crank-end-stop", 0.35, analysis::Integrator::Trapezoidal},
                        Case{"switch-t4", 0.4, analysis::Integrator::Trapezoidal}, Case{"grid-1x15-parameters", 0.04, analysis::Integrator::Trapezoidal},
                        // the penalty formulation's impact jumps by the same kernels
                        Case{"five-bar", 0.3, analysis::Integrator::Trapezoidal, analysis::Formulation::Penalty},
                        Case{"double-pendulum-wall", 1.0, analysis::Integrator::Trapezoidal, analysis::Formulation::Penalty},
                        Case{"slider-crank-end-stop", 0.35, analysis::Integrator::Trapezoidal, analysis::Formulation::Penalty},
                        // the direct method's projections by their partials and the parameters' lanes
                        // (more than eight parameters): an open chain, loops with masses, gravity and
                        // a bar's length
                        Case{"ten-bar-chain", 0.1, analysis::Integrator::Trapezoidal, analysis::Formulation::Penalty},
                        Case{"grid-1x15-parameters", 0.04, analysis::Integrator::Trapezoidal, analysis::Formulation::Penalty},
                        Case{"five-bar", 0.3, analysis::Integrator::Trapezoidal, analysis::Formulation::Penalty, false, true}})
    for (Method method : {Method::Direct, Method::Adjoint}) {
      SCOPED_TRACE(std::string(c.sample) + (c.everyForce ? " every force" : "") + (c.integrator == analysis::Integrator::RK45 ? " rk45 " : " ") +
                   (c.formulation == analysis::Formulation::Penalty ? "penalty " : "") + (c.moreParameters ? "nine parameters " : "") + toString(method));
      SensitivitySpec s = spec(method, c.tEnd, 1e-3);
      s.run.integrator = c.integrator;
      s.run.formulation = c.formulation;
      Mechanism mech = c.everyForce ? test::withEveryForce(test::sampleMechanism(c.sample)) : test::sampleMechanism(c.sample);
      if (c.moreParameters)
        for (Body& b : mech.bodies) {
          if (!b.mass.isLiteral()) continue;
          Parameter mass;
          mass.name = "m_" + b.name;
          mass.value = b.mass.value;
          mech.parameters.push_back(mass);
          b.mass = Number::expr(mass.name);
        }
      const SensitivityResult analytic = runSensitivity(mech, s);
      s.referenceKernels = true;
      const SensitivityResult reference = runSensitivity(mech, s);
      ASSERT_TRUE(analytic.status.ok() && reference.status.ok()) << analytic.status.message << reference.status.message;
      // the penalty's step matrix T = F_z + 2/h F_ż + 4/h² M holds α Φ_zᵀΦ_z (α ~ 1e8): its rounding,
      // a different order of the same sums in the kernels' T, reaches 1e-8 relative in the
      // gradients (the five-bar's z2 by L_A1: 5e-9 between the kernels, both 2.9e-7 from the
      // complex step; psi3 by m_A1: 3e-9 between them, both 2.1e-6 from it)
      const double rtol = c.formulation == analysis::Formulation::Penalty ? 1e-8 : 1e-9;
      expectGradientsNear(reference, analytic.methods.front(), reference.methods.front(), rtol, 1e-4);
      EXPECT_GT(reference.methods.front().gradient.cwiseAbs().maxCoeff(), 1e-3);
    }
}

TEST(Sensitivity, TenBarChainKeepsItsScalingInvariants) {
  // Σ mᵢ ∂ψ/∂mᵢ = 0 (scaling every mass changes nothing), and Σ lᵢ ∂ψ/∂lᵢ + g ∂ψ/∂g = 2ψ (scaling
  // every length and g scales the motion's size and not its timing); exact for the discrete run
  Mechanism m = test::sampleMechanism("ten-bar-chain");
  Parameter g;
  g.name = "g";
  g.value = 9.8;
  m.parameters.push_back(g);
  m.gravity = {Number(0.0), Number::expr("-g")};
  const SensitivityResult r = runSensitivity(m, spec(Method::Direct, 0.2, 1e-3));
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  const Gradient& d = r.methods.front();
  const double psi = d.values[0];
  double masses = 0, massScale = 0, lengths = 0;
  for (std::size_t k = 0; k < r.parameters.size(); ++k) {
    const std::string& name = r.parameters[k];
    const double value = m.parameters[k].value.value;
    const double term = value * d.gradient(0, static_cast<Eigen::Index>(k));
    if (name[0] == 'm') {
      masses += term;
      massScale += std::abs(term);
    } else {
      lengths += term;  // l_i and g
    }
  }
  EXPECT_GT(massScale, 1e-6);
  EXPECT_NEAR(masses, 0.0, 1e-6 * massScale + 1e-12 * psi);
  EXPECT_TRUE(test::near(lengths, 2 * psi, 0, 1e-9));
}

TEST(Sensitivity, APinnedBarAtRestHasTheClosedForm) {
  // a bar of length l hanging at rest: the tip stays at (0, −l), ψ = ∫|tip|² = l² T,
  // ∂ψ/∂l = 2 l T, ∂ψ/∂m = 0
  const char* text = R"({
    "format": "linkwright-mechanism", "version": 1, "name": "pinned bar", "dimension": 2,
    "gravity": [0, -9.81],
    "parameters": [{"name": "l", "value": 0.7}, {"name": "m", "value": 1.3}],
    "ground": {"points": {"O": [0, 0]}},
    "bodies": [{"name": "bar", "mass": "m", "com": [0, "-l/2"], "inertia": "m*l^2/12",
                "points": {"O": [0, 0], "tip": [0, "-l"]}}],
    "joints": [{"name": "pivot", "type": "pin", "points": ["ground.O", "bar.O"]}],
    "outputs": [{"name": "tip", "type": "point_position", "point": "bar.tip"}],
    "costs": [{"name": "psi", "type": "integral", "expression": "tip.x^2 + tip.y^2"}]
  })";
  const auto loaded = io::loadMechanismFromString(text);
  ASSERT_TRUE(loaded.ok());
  const double T = 0.5, l = 0.7;
  for (Method method : {Method::Direct, Method::Adjoint, Method::ComplexStep, Method::FiniteDifferences}) {
    const SensitivityResult r = runSensitivity(*loaded.mechanism, spec(method, T, 1e-2));
    ASSERT_TRUE(r.status.ok()) << r.status.message;
    const Gradient& g = r.methods.front();
    EXPECT_NEAR(g.values[0], l * l * T, 1e-12);
    EXPECT_NEAR(g.gradient(0, 0), 2 * l * T, method == Method::FiniteDifferences ? 1e-8 : 1e-12) << toString(method);
    EXPECT_NEAR(g.gradient(0, 1), 0.0, 1e-10) << toString(method);
  }
}

TEST(Sensitivity, ASwingingBarsMassChangesNothing) {
  // the bar released horizontal swings as θ'' = −(3g/2l) cos θ whatever its mass: ∂/∂m = 0, and
  // the tip keeps its distance, ψ = l² T. The complex step failed here ("did not converge at
  // t = 0.281"): its imaginary parts are zero, below its relative convergence test.
  const char* text = R"({
    "format": "linkwright-mechanism", "version": 1, "name": "swinging bar", "dimension": 2,
    "gravity": [0, -9.81],
    "parameters": [{"name": "l", "value": 1}, {"name": "m", "value": 2}],
    "ground": {"points": {"O": [0, 0]}},
    "bodies": [{"name": "bar", "mass": "m", "com": ["l/2", 0], "inertia": "m*l^2/12",
                "points": {"O": [0, 0], "tip": ["l", 0]}}],
    "joints": [{"name": "pivot", "type": "pin", "points": ["ground.O", "bar.O"]}],
    "outputs": [{"name": "tip", "type": "point_position", "point": "bar.tip"}],
    "costs": [{"name": "psi", "type": "integral", "expression": "tip.x^2 + tip.y^2"},
              {"name": "drop", "type": "terminal", "expression": "tip.y"}]
  })";
  const auto loaded = io::loadMechanismFromString(text);
  ASSERT_TRUE(loaded.ok());
  const double T = 0.4, l = 1;
  for (Method method : {Method::Direct, Method::Adjoint, Method::ComplexStep}) {
    const SensitivityResult r = runSensitivity(*loaded.mechanism, spec(method, T, 1e-3));
    ASSERT_TRUE(r.status.ok()) << toString(method) << ": " << r.status.message;
    const Gradient& g = r.methods.front();
    EXPECT_NEAR(g.values[0], l * l * T, 1e-12);
    EXPECT_NEAR(g.gradient(0, 0), 2 * l * T, 1e-11) << toString(method);
    for (int c = 0; c < 2; ++c) EXPECT_NEAR(g.gradient(c, 1), 0.0, 1e-13) << toString(method);
    EXPECT_LT(g.values[1], -0.5);  // it has swung well down
  }
}

TEST(Sensitivity, FiveBarAllCostsAndParametersAgreeAcrossMethods) {
  // parameters that move the initial configuration (L_A1), springs, a mass and its centre; costs of
  // positions against their initial values, velocities and accelerations
  const Mechanism m = test::sampleMechanism("five-bar");
  const SensitivityResult r = runSensitivity(m, spec(Method::Compare, 0.1, 1e-3));
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  ASSERT_EQ(r.costs.size(), 5u);
  expectGradientsNear(r, byMethod(r, Method::Direct), byMethod(r, Method::ComplexStep), 1e-7, 1e-3);
  expectGradientsNear(r, byMethod(r, Method::Adjoint), byMethod(r, Method::ComplexStep), 1e-7, 1e-3);
  expectGradientsNear(r, byMethod(r, Method::FiniteDifferences), byMethod(r, Method::ComplexStep), 1e-3, 1e-2);
}

// a bearing's force as a cost (the multipliers' sensitivities): the peak and the mean square of
// the five-bar's pin A force and of the ten-bar chain's root pin, by the direct method and the
// adjoint, against the complex step of the whole run
TEST(Sensitivity, AJointReactionIsACostLikeAnyOther) {
  for (const char* name : {"five-bar", "ten-bar-chain"}) {
    SCOPED_TRACE(name);
    Mechanism m = test::sampleMechanism(name);
    const bool five = std::string(name) == "five-bar";
    test::bearingCosts(m, five ? "A" : m.joints.front().name, five ? "bar_A1" : m.bodies.front().name);
    const SensitivityResult res = runSensitivity(m, spec(Method::Compare, five ? 0.1 : 0.05, 1e-3));
    ASSERT_TRUE(res.status.ok()) << res.status.message;
    expectGradientsNear(res, byMethod(res, Method::Direct), byMethod(res, Method::ComplexStep), 1e-7, 1e-3);
    expectGradientsNear(res, byMethod(res, Method::Adjoint), byMethod(res, Method::ComplexStep), 1e-7, 1e-3);
    EXPECT_GT(byMethod(res, Method::ComplexStep).gradient.cwiseAbs().maxCoeff(), 1e-2);
  }
}

TEST(Sensitivity, TheAdjointOverTheStoredRunEqualsTheDirectMethodAndCheckpointsChangeNothing) {
  // the same linearised steps, swept forward (direct) or their transposes backward (adjoint): equal
  // to round-off; checkpointing recomputes the steps between its states, to the Newton tolerance
  for (const char* name : {"five-bar", "ten-bar-chain"}) {
    SCOPED_TRACE(name);
    const Mechanism m = test::sampleMechanism(name);
    SensitivitySpec s = spec(Method::Direct, 0.05, 1e-3);
    const SensitivityResult direct = runSensitivity(m, s);
    ASSERT_TRUE(direct.status.ok()) << direct.status.message;
    s.method = Method::Adjoint;
    s.checkpointEvery = 1;
    const SensitivityResult stored = runSensitivity(m, s);
    ASSERT_TRUE(stored.status.ok()) << stored.status.message;
    EXPECT_EQ(stored.methods.front().recomputedSteps, 0);
    s.checkpointEvery = 7;
    const SensitivityResult checkpointed = runSensitivity(m, s);
    ASSERT_TRUE(checkpointed.status.ok()) << checkpointed.status.message;
    EXPECT_GT(checkpointed.methods.front().recomputedSteps, 40);
    EXPECT_LT(checkpointed.methods.front().recordBytes, stored.methods.front().recordBytes / 3);
    expectGradientsNear(stored, stored.methods.front(), direct.methods.front(), 1e-10, 1e-4);
    expectGradientsNear(stored, checkpointed.methods.front(), stored.methods.front(), 1e-8, 1e-3);
    for (std::size_t c = 0; c < direct.costs.size(); ++c)
      EXPECT_NEAR(stored.methods.front().values[c], direct.methods.front().values[c], 1e-12 * std::abs(direct.methods.front().values[c]));
  }
}

TEST(Sensitivity, TheAdjointsRecordHoldsTheWholeRunWhileItFitsAndThinsBeyond) {
  // by default every state of the five-bar's 2000 steps (two impacts) is kept: no step recomputed;
  // with room for a tenth of them the record drops every other state until it fits (the interval
  // a power of two), and the gradient is the same to the replays' Newton tolerance
  const Mechanism m = test::sampleMechanism("five-bar");
  SensitivitySpec s = spec(Method::Adjoint, 2.0, 1e-3);
  s.parameters = {"L_s1"};
  const SensitivityResult whole = runSensitivity(m, s);
  ASSERT_TRUE(whole.status.ok()) << whole.status.message;
  const Gradient& w = whole.methods.front();
  EXPECT_EQ(w.checkpointEvery, 1);
  EXPECT_EQ(w.recomputedSteps, 0);
  const double perState = static_cast<double>(w.recordBytes) / 2001;
  s.adjointRecordBytes = static_cast<std::size_t>(200 * perState);
  const SensitivityResult thinned = runSensitivity(m, s);
  ASSERT_TRUE(thinned.status.ok()) << thinned.status.message;
  const Gradient& g = thinned.methods.front();
  EXPECT_GE(g.checkpointEvery, 8);  // 2001 states halved at least three times
  EXPECT_EQ(g.checkpointEvery & (g.checkpointEvery - 1), 0);
  EXPECT_GT(g.recomputedSteps, 1500);
  // (within the vectors' growth: twice the states kept; 32 bytes a step were 64 kB)
  EXPECT_LT(static_cast<double>(g.recordBytes), 2 * 200 * perState + 1024);
  s.method = Method::Direct;
  const SensitivityResult d = runSensitivity(m, s);
  ASSERT_TRUE(d.status.ok());
  for (const Gradient* a : {&w, &g}) {
    EXPECT_NEAR(a->values[0], d.methods.front().values[0], 1e-10 * std::abs(d.methods.front().values[0]));
    EXPECT_NEAR(a->gradient(0, 0), d.methods.front().gradient(0, 0), 1e-6 * std::abs(d.methods.front().gradient(0, 0)));
  }
}

TEST(Sensitivity, TheSpatialFourBarSwingAgreesAcrossMethods) {
  // a spatial loop (revolute, universal, spherical, revolute: a quaternion coordinate and its unit
  // norm) with its masses and gravity as parameters
  Mechanism m = test::sampleMechanism("spatial-four-bar-swing");
  for (const char* name : {"m_crank", "m_rod", "m_follower", "g"}) {
    Parameter p;
    p.name = name;
    p.value = name[0] == 'g' ? 9.81 : 1.0;
    m.parameters.push_back(p);
  }
  const char* masses[] = {"m_crank", "m_rod", "m_follower"};
  for (std::size_t b = 0; b < 3; ++b) {
    m.parameters[b].value = m.bodies[b].mass.value;
    m.bodies[b].mass = Number::expr(masses[b]);
  }
  m.gravity[2] = Number::expr("-g");
  std::erase_if(m.outputs, [](const Output& o) { return o.type == Output::Type::Energy; });
  Cost c;
  c.name = "swing";
  c.expression = Expression::parseOrThrow("C.z^2 + 0.1*B.y^2");
  m.costs = {c};
  const SensitivityResult r = runSensitivity(m, spec(Method::Compare, 0.3, 1e-3));
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  expectGradientsNear(r, byMethod(r, Method::Direct), byMethod(r, Method::ComplexStep), 1e-8, 1e-3);
  expectGradientsNear(r, byMethod(r, Method::Adjoint), byMethod(r, Method::ComplexStep), 1e-8, 1e-3);
  expectGradientsNear(r, byMethod(r, Method::FiniteDifferences), byMethod(r, Method::ComplexStep), 1e-4, 1e-2);
}

TEST(Sensitivity, TheBuggysTyresAgreeAcrossMethods) {
  // stiff tyre forces amplify what the steps' Newton tolerance leaves: a differentiated run
  // converges its steps to round-off, so the complex step's re-solved steps are the recorded ones
  SensitivitySpec s = spec(Method::Compare, 0.02, 1e-3);
  s.parameters = {"k_f", "c_t", "m_c"};
  const SensitivityResult r = runSensitivity(test::sampleMechanism("buggy"), s);
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  expectGradientsNear(r, byMethod(r, Method::Direct), byMethod(r, Method::ComplexStep), 2e-7, 1e-3);
  expectGradientsNear(r, byMethod(r, Method::Adjoint), byMethod(r, Method::ComplexStep), 2e-7, 1e-3);
}

TEST(Sensitivity, TheGradientPassesATaylorTest) {
  // ψ(ρ + hδ) − ψ(ρ) − h ∇ψ·δ falls as h² over three decades (a wrong gradient leaves it at O(h))
  const Mechanism m = test::sampleMechanism("five-bar");
  const SensitivitySpec s = spec(Method::Direct, 0.1, 1e-3);
  const SensitivityResult base = runSensitivity(m, s);
  ASSERT_TRUE(base.status.ok()) << base.status.message;
  const double direction[] = {0.3, -0.5, 0.2, 0.4, -0.1};
  double along = 0;
  for (int k = 0; k < 5; ++k) along += base.methods.front().gradient(1, k) * direction[k];  // ψ2
  // the negative control: the same test with one term left out (the largest) falls only as h
  int largest = 0;
  for (int k = 1; k < 5; ++k)
    if (std::abs(base.methods.front().gradient(1, k) * direction[k]) > std::abs(base.methods.front().gradient(1, largest) * direction[largest]))
      largest = k;
  const double missing = along - base.methods.front().gradient(1, largest) * direction[largest];
  std::vector<double> remainders, wrong;
  for (double h : {1e-2, 1e-3, 1e-4}) {
    Mechanism moved = m;
    // each parameter moved by hδ_k, an expression one keeping its expression (xG_A1 = L_A1/2 + hδ
    // follows L_A1, as the gradient's chain does)
    for (int k = 0; k < 5; ++k) {
      Number& value = moved.parameters[static_cast<std::size_t>(k)].value;
      char shift[64];
      std::snprintf(shift, sizeof shift, "%.17g", h * direction[k]);
      value = value.isLiteral() ? Number(value.value + h * direction[k]) : Number::expr("(" + value.expression.text() + ") + " + shift);
    }
    const SensitivityResult r = runSensitivity(moved, s);
    ASSERT_TRUE(r.status.ok()) << r.status.message;
    remainders.push_back(std::abs(r.methods.front().values[1] - base.methods.front().values[1] - h * along));
    wrong.push_back(std::abs(r.methods.front().values[1] - base.methods.front().values[1] - h * missing));
  }
  EXPECT_NEAR(remainders[0] / remainders[1], 100, 15);
  EXPECT_NEAR(remainders[1] / remainders[2], 100, 15);
  EXPECT_NEAR(wrong[1] / wrong[2], 10, 1.5);
  EXPECT_GT(wrong[2], 100 * remainders[2]);
}

TEST(Sensitivity, AGridThroughItsFlatSingularPositionAgreesWithComplexStep) {
  // the grid's parallelograms go flat at t ≈ 1.5 s: the step ends are placed around the singular
  // point and its condition; every method differentiates those same steps
  Mechanism m = generate::grid(1, 3);
  for (const char* name : {"m_h", "m_v", "w"}) {
    Parameter p;
    p.name = name;
    p.value = 1;
    m.parameters.push_back(p);
  }
  for (auto& b : m.bodies) {
    const char* mass = b.name.rfind("h_", 0) == 0 ? "m_h" : b.name.rfind("v_1", 0) == 0 ? "m_v" : nullptr;
    if (!mass) continue;
    b.mass = Number::expr(mass);
    b.inertia.values = {Number::expr(std::string(mass) + "/12"), Number::expr(std::string(mass) + "/12"),
                        Number::expr(std::string(mass) + "*1e-7")};
  }
  m.gravity[2] = Number::expr("-9.81*w");
  std::erase_if(m.outputs, [](const Output& o) { return o.type == Output::Type::Energy; });
  Cost c;
  c.name = "psi";
  c.expression = Expression::parseOrThrow("BL.y^2 + MID.z^2");
  m.costs = {c};
  const SensitivityResult r = runSensitivity(m, spec(Method::Compare, 2.0, 0.01));
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  expectGradientsNear(r, byMethod(r, Method::Direct), byMethod(r, Method::ComplexStep), 1e-8, 1e-3);
  expectGradientsNear(r, byMethod(r, Method::Adjoint), byMethod(r, Method::ComplexStep), 1e-8, 1e-3);
  expectGradientsNear(r, byMethod(r, Method::FiniteDifferences), byMethod(r, Method::ComplexStep), 1e-3, 1e-2);
  EXPECT_GT(std::abs(byMethod(r, Method::ComplexStep).gradient(0, 0)), 1e-3);  // the mass ratio matters
}

TEST(Sensitivity, TheGrid1x15ThroughItsFlatPositionsAgreesWithComplexStep) {
  // the sample with 18 design parameters: its rows go flat at t ≈ 1.5 s, where no choice of
  // independent coordinates is well conditioned; Matrix R keeps its choice and places step ends
  // around the singular point (steps beyond t_end/dt), and every method differentiates those
  // steps. Two of the parameters (a mass of the middle row, the initial rate) keep the test short
  const Mechanism m = test::sampleMechanism("grid-1x15-parameters");
  ASSERT_EQ(m.parameters.size(), 18u);
  SensitivitySpec s = spec(Method::Compare, 1.7, 0.05);
  s.parameters = {"m_h_8", "w0"};
  const SensitivityResult r = runSensitivity(m, s);
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  EXPECT_GT(r.steps, 34);  // the singular passage's own step ends
  expectGradientsNear(r, byMethod(r, Method::Direct), byMethod(r, Method::ComplexStep), 1e-8, 1e-3);
  expectGradientsNear(r, byMethod(r, Method::Adjoint), byMethod(r, Method::ComplexStep), 1e-8, 1e-3);
  expectGradientsNear(r, byMethod(r, Method::FiniteDifferences), byMethod(r, Method::ComplexStep), 1e-4, 1e-2);
  // the mass of row 8 matters, less than the initial rate
  const Gradient& cs = byMethod(r, Method::ComplexStep);
  EXPECT_GT(std::abs(cs.gradient(0, 0)), 1e-3);
  EXPECT_GT(std::abs(cs.gradient(0, 1)), 100 * std::abs(cs.gradient(0, 0)));
}

// counts the run's changes of independent coordinates
class SwitchCounter : public analysis::StepObserver {
 public:
  int switches = 0;
  Status start(const dyn::MatrixRModel&, const std::vector<dyn::Dof>&, const integ::State&, const Eigen::VectorXd&) override { return {}; }
  Status step(const std::vector<dyn::Dof>&, const integ::State&, const integ::State&, const Eigen::VectorXd&) override { return {}; }
  Status switched(const std::vector<dyn::Dof>&, const std::vector<dyn::Dof>&, const integ::State&, const Eigen::VectorXd&) override {
    ++switches;
    return {};
  }
};

TEST(Sensitivity, AChangeOfIndependentCoordinatesMapsTheSensitivitiesExactly) {
  // the spatial RSSR changes its independent coordinates twice in its turn: the state, and so
  // its sensitivities, do not jump there; the direct method maps X, V, A through the new
  // coordinates and the adjoint the transposed map. A coupler point off the coupler's axis
  // follows its passive spin, so the cost sees the dynamic freedom across the changes
  Mechanism m = test::sampleMechanism("rssr");
  for (auto [name, value] : {std::pair{"w", 1.0}, {"g", 9.81}, {"c", 0.2}}) {
    Parameter p;
    p.name = name;
    p.value = value;
    m.parameters.push_back(p);
  }
  m.drivers.front().function = Number::expr("2*pi*w*t");
  m.gravity[2] = Number::expr("-g");
  // a thick coupler (its spin a proper freedom, not a slender bar's nearly massless one) whose
  // centre of mass lies off its axis by c: gravity drives the spin
  auto& coupler = m.bodies[1];
  ASSERT_EQ(coupler.name, "coupler");
  ASSERT_EQ(coupler.inertia.values.size(), 9u);
  for (int k : {0, 4, 8}) coupler.inertia.values[static_cast<std::size_t>(k)].value += 0.5;
  coupler.com[0] = Number::expr("0.75 + c");
  coupler.points.push_back({"P", NumberVector{Number(0.3), Number(0.5), Number(-0.2)}});
  Output o;
  o.name = "P";
  o.type = Output::Type::PointPosition;
  o.point = {"coupler", "P"};
  m.outputs.push_back(o);
  Cost c;
  c.name = "psi";
  c.expression = Expression::parseOrThrow("P.x^2 + P.z^2 + rocker_angle^2");
  m.costs = {c};
  SensitivitySpec s = spec(Method::Compare, 1.0, 0.01);
  {
    Diagnostics d;
    const auto res = resolve(m, d);
    ASSERT_TRUE(res) << (d.empty() ? "" : d.front().message);
    SwitchCounter counter;
    analysis::SimulationSpec run = s.run;
    run.observer = &counter;
    ASSERT_TRUE(analysis::runSimulation(*res, run).status.ok());
    EXPECT_GE(counter.switches, 2);
  }
  const SensitivityResult r = runSensitivity(m, s);
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  // the direct method and the adjoint differentiate the same trajectory: equal to round-off
  expectGradientsNear(r, byMethod(r, Method::Adjoint), byMethod(r, Method::Direct), 1e-8, 1e-3);
  // the complex step recomputes it, and each change of coordinates maps the state through the old
  // choice at its singular position (condition ~1e7 when it fails): the two routes' states differ
  // by the position tolerance times that, and their gradients by ~1e-6 relative
  expectGradientsNear(r, byMethod(r, Method::Direct), byMethod(r, Method::ComplexStep), 1e-5, 1e-3);
  expectGradientsNear(r, byMethod(r, Method::FiniteDifferences), byMethod(r, Method::ComplexStep), 2e-3, 1e-2);
  for (Eigen::Index k = 0; k < 3; ++k)
    EXPECT_GT(std::abs(byMethod(r, Method::ComplexStep).gradient(0, k)), 1e-4) << r.parameters[static_cast<std::size_t>(k)];
}

TEST(Sensitivity, ThePenaltyFormulationsStepDifferentiatedEqualsComplexStep) {
  // the five-bar of seed 000 §10.2 in the penalty formulation: Newton on (17) and the projections
  // with the mass matrix, all tree coordinates; the direct method (the AD tangent of the step) and
  // the adjoint (its transpose, checkpointed) against the complex step on the same steps, and
  // central differences
  const Mechanism m = test::sampleMechanism("five-bar");
  SensitivitySpec s = spec(Method::Compare, 0.2, 1e-3);
  s.run.formulation = analysis::Formulation::Penalty;
  const SensitivityResult r = runSensitivity(m, s);
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  ASSERT_EQ(r.methods.size(), 4u);
  ASSERT_EQ(r.costs.size(), 5u);
  // (the complex step's own run carries round-off amplified by the penalty's stiffness: two
  // equal kernels, M from force passes or from composite bodies, moved its d/dL_A1 by 1.2e-8)
  expectGradientsNear(r, byMethod(r, Method::Direct), byMethod(r, Method::ComplexStep), 2e-8, 1e-3);
  // the adjoint's replay (its states ~1e-12 off the run's) is amplified by the penalty's stiffness
  // (α = 1e8) in the column of L_A1, the parameter that moves the assembly: 1e-7
  expectGradientsNear(r, byMethod(r, Method::Adjoint), byMethod(r, Method::ComplexStep), 1e-7, 1e-3);
  expectGradientsNear(r, byMethod(r, Method::Adjoint), byMethod(r, Method::Direct), 1e-7, 1e-3);
  expectGradientsNear(r, byMethod(r, Method::FiniteDifferences), byMethod(r, Method::ComplexStep), 2e-4, 1e-2);
  // another formulation of the same motion: Matrix R's gradients agree to the penalty's own
  // accuracy (α = 1e8: constraint violations ~1e-7 of the motion)
  s.run.formulation = analysis::Formulation::MatrixR;
  s.method = Method::Direct;
  const SensitivityResult mr = runSensitivity(m, s);
  ASSERT_TRUE(mr.status.ok()) << mr.status.message;
  expectGradientsNear(mr, mr.methods.front(), byMethod(r, Method::Direct), 1e-4, 1e-2);
  // the initial sensitivities come from the assembly: a length moves the start
  EXPECT_GT(std::abs(byMethod(r, Method::ComplexStep).gradient(3, 0)), 0.05);
}

TEST(Sensitivity, ThePenaltyAdjointCheckpointedEqualsStoredWhole) {
  // the steps between checkpoints solved again give the stored run's gradients
  const Mechanism m = test::sampleMechanism("five-bar");
  SensitivitySpec s = spec(Method::Adjoint, 0.1, 1e-3);
  s.run.formulation = analysis::Formulation::Penalty;
  s.checkpointEvery = 1;
  const SensitivityResult whole = runSensitivity(m, s);
  s.checkpointEvery = 7;
  const SensitivityResult checkpointed = runSensitivity(m, s);
  ASSERT_TRUE(whole.status.ok() && checkpointed.status.ok()) << whole.status.message << checkpointed.status.message;
  EXPECT_EQ(whole.methods.front().recomputedSteps, 0);
  EXPECT_GT(checkpointed.methods.front().recomputedSteps, 80);
  EXPECT_LT(checkpointed.methods.front().recordBytes, whole.methods.front().recordBytes / 4);
  // equal to the replay's round-off, amplified by the penalty's stiffness (see above)
  expectGradientsNear(checkpointed, checkpointed.methods.front(), whole.methods.front(), 1e-7, 1e-2);
}

TEST(Sensitivity, APenaltyRunForSensitivitiesStaysThePlainRun) {
  // projecting with the mass matrix (a step that is a function of its inputs) instead of the
  // plain run's M + h/2 C + h²/4 K of an earlier iterate changes the motion by far less than the
  // step's truncation error (without the contacts: its first impact is at 0.28 s)
  const Mechanism m = test::withoutContacts(test::sampleMechanism("five-bar"));
  Diagnostics d;
  const auto res = resolve(m, d);
  ASSERT_TRUE(res);
  analysis::SimulationSpec plain;
  plain.formulation = analysis::Formulation::Penalty;
  plain.tEnd = 0.5;
  plain.dt = 1e-3;
  plain.mechanism = &m;
  const auto a = analysis::runSimulation(*res, plain);
  SensitivitySpec s = spec(Method::Direct, 0.5, 1e-3);
  s.run.formulation = analysis::Formulation::Penalty;
  const SensitivityResult b = runSensitivity(m, s);
  ASSERT_TRUE(a.status.ok() && b.status.ok());
  ASSERT_EQ(a.costValues.size(), b.methods.front().values.size());
  for (std::size_t k = 0; k < a.costValues.size(); ++k)
    EXPECT_NEAR(b.methods.front().values[k], a.costValues[k], 1e-6 * std::max(1.0, std::abs(a.costValues[k]))) << a.costNames[k];
}

TEST(Sensitivity, ACouplerPathCostOfADrivenFourBarHasKinematicSensitivities) {
  // a driven mechanism: no dynamics, the motion is the drivers' (q_ρ from Φ_q q_ρ = −Φ_ρ at every
  // time); lengths re-assemble the linkage
  const SensitivityResult r = runSensitivity(test::sampleMechanism("four-bar-path"), spec(Method::Compare, 1.0, 0.01));
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  ASSERT_EQ(r.parameters.size(), 5u);
  expectGradientsNear(r, byMethod(r, Method::Direct), byMethod(r, Method::ComplexStep), 1e-12, 1e-3);
  expectGradientsNear(r, byMethod(r, Method::Adjoint), byMethod(r, Method::ComplexStep), 1e-12, 1e-3);
  expectGradientsNear(r, byMethod(r, Method::FiniteDifferences), byMethod(r, Method::ComplexStep), 1e-7, 1e-2);
}

TEST(Sensitivity, KinematicSensitivitiesAgreeWithDifferencesOfTheKinematicSolvers) {
  // the coupler path's cost over the kinematic solution: its value is the one every kinematic
  // solver (global natural coordinates, modular structural groups) reports, and its gradient
  // (q_ρ from Φ_q q_ρ = −Φ_ρ through the tree's coordinates) agrees with central differences of
  // those solvers' own runs
  const Mechanism m = test::sampleMechanism("four-bar-path");
  SensitivitySpec s = spec(Method::Direct, 1.0, 0.01);
  s.analysis = Analysis::Kinematics;
  const SensitivityResult r = runSensitivity(m, s);
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  const Gradient& g = r.methods.front();
  auto kinematicCost = [](const Mechanism& mech, analysis::KinematicsMethod method) {
    Diagnostics d;
    const auto res = resolve(mech, d);
    analysis::KinematicsSpec k;
    k.method = method;
    k.tEnd = 1.0;
    k.dt = 0.01;
    k.mechanism = &mech;
    const auto out = analysis::runKinematics(*res, k);
    EXPECT_TRUE(out.status.ok()) << out.status.message;
    EXPECT_EQ(out.costValues.size(), 1u) << out.costProblem;
    return out.costValues.empty() ? 0.0 : out.costValues[0];
  };
  for (auto method : {analysis::KinematicsMethod::GlobalDense, analysis::KinematicsMethod::ModularTD}) {
    EXPECT_NEAR(kinematicCost(m, method), g.values[0], 1e-9 * std::abs(g.values[0]));
    for (std::size_t k = 0; k < m.parameters.size(); ++k) {
      const double value = m.parameters[k].value.value, h = 1e-5 * std::max(1.0, std::abs(value));
      Mechanism plus = m, minus = m;
      plus.parameters[k].value = Number(value + h);
      minus.parameters[k].value = Number(value - h);
      const double fd = (kinematicCost(plus, method) - kinematicCost(minus, method)) / (2 * h);
      EXPECT_NEAR(g.gradient(0, static_cast<Eigen::Index>(k)), fd, 1e-6 * std::max(1.0, std::abs(fd))) << m.parameters[k].name;
    }
  }
  // a mechanism with a freedom no driver fixes has no kinematic solution to differentiate
  const SensitivityResult free = runSensitivity(test::sampleMechanism("ten-bar-chain"), s);
  EXPECT_NE(free.status.message.find("driver"), std::string::npos) << free.status.message;
}

TEST(Sensitivity, SemiAnalyticalPartialsAgreeWithADOverARangeOfSteps) {
  // seed 003's GSAM and LSAM: the parameters' partials by one-sided differences at the frozen state
  // of the system-level terms (or of each element's share: a length of the ten-bar chain moves
  // every later bar), the state's by AD. First order in δ, round-off below: 1e-4 … 1e-7 all agree
  for (const char* name : {"five-bar", "ten-bar-chain"}) {
    SCOPED_TRACE(name);
    const Mechanism m = test::sampleMechanism(name);
    SensitivitySpec s = spec(Method::Direct, 0.05, 1e-3);
    const SensitivityResult ad = runSensitivity(m, s);
    ASSERT_TRUE(ad.status.ok()) << ad.status.message;
    for (Partials partials : {Partials::GlobalSemiAnalytical, Partials::LocalSemiAnalytical}) {
      s.partials = partials;
      for (double delta : {1e-4, 1e-6, 1e-7}) {
        s.delta = delta;
        const SensitivityResult sam = runSensitivity(m, s);
        ASSERT_TRUE(sam.status.ok()) << sam.status.message;
        const double tol = delta == 1e-4 ? 1e-3 : 1e-4;
        expectGradientsNear(ad, sam.methods.front(), ad.methods.front(), tol, 1e-2);
        EXPECT_EQ(sam.methods.front().steps.size(), ad.parameters.size());
      }
    }
  }
}

TEST(Sensitivity, TheAdjointTakesTheSemiAnalyticalPartialsTooAndEqualsTheDirectMethod) {
  // one formulation interface under both methods: the same partials (GSAM, LSAM at δ 1e-4, far
  // enough from AD to tell them apart) give the same gradient by the direct method and the
  // adjoint, in both formulations and through the five-bar's impacts
  struct Case {
    const char* sample;
    double tEnd;
    analysis::Formulation formulation;
  };
  for (const Case& c : {Case{"five-bar", 0.4, analysis::Formulation::MatrixR}, Case{"ten-bar-chain", 0.05, analysis::Formulation::MatrixR},
                        Case{"five-bar", 0.4, analysis::Formulation::Penalty}}) {
    SCOPED_TRACE(std::string(c.sample) + (c.formulation == analysis::Formulation::Penalty ? " penalty" : ""));
    const Mechanism m = test::sampleMechanism(c.sample);
    SensitivitySpec s = spec(Method::Direct, c.tEnd, 1e-3);
    s.run.formulation = c.formulation;
    const SensitivityResult ad = runSensitivity(m, s);
    ASSERT_TRUE(ad.status.ok()) << ad.status.message;
    for (Partials partials : {Partials::GlobalSemiAnalytical, Partials::LocalSemiAnalytical}) {
      s.partials = partials;
      s.delta = 1e-4;
      s.method = Method::Direct;
      const SensitivityResult ddm = runSensitivity(m, s);
      s.method = Method::Adjoint;
      const SensitivityResult avm = runSensitivity(m, s);
      ASSERT_TRUE(ddm.status.ok() && avm.status.ok()) << ddm.status.message << avm.status.message;
      // the penalty's α (1e8 per kg) scales the differences' round-off: its two methods agree to
      // 2e-9 with AD, to 5e-8 with GSAM; Matrix R's to rounding
      const bool penalty = c.formulation == analysis::Formulation::Penalty;
      expectGradientsNear(ddm, avm.methods.front(), ddm.methods.front(), penalty ? 2e-7 : 1e-8, 1e-5);
      EXPECT_EQ(avm.methods.front().steps, ddm.methods.front().steps);
      // the route is taken: δ 1e-4 is visibly first order against AD (and far above the methods' agreement)
      double off = 0;
      for (Eigen::Index i = 0; i < ad.methods.front().gradient.size(); ++i)
        off = std::max(off, std::abs(avm.methods.front().gradient(i) - ad.methods.front().gradient(i)) /
                                 std::max(1e-12, ad.methods.front().gradient.cwiseAbs().maxCoeff()));
      // 1e-5 on the five-bar; the ten-bar chain's partials come from the tree's residual, where
      // its masses enter linearly and its lengths nearly so: 1e-9, still far above rounding
      EXPECT_GT(off, std::string(c.sample) == "ten-bar-chain" ? 1e-11 : 1e-7);
      if (penalty) break;  // LSAM: the same route in both formulations
    }
  }
}

// GSAM and LSAM at δ 1e-6 against AD on the run `setup` chooses (the five-bar over tEnd, the
// ten-bar chain over 0.05 s on four of its parameters), and, where `firstOrder`, δ 1e-3 visibly
// off: the route is taken, not AD under another name
void expectSemiAnalyticalEqualsAD(const std::function<void(SensitivitySpec&)>& setup, double fiveBarEnd, bool chainFirstOrder) {
  for (const char* name : {"five-bar", "ten-bar-chain"}) {
    SCOPED_TRACE(name);
    const Mechanism m = test::sampleMechanism(name);
    const bool five = std::string(name) == "five-bar";
    SensitivitySpec s = spec(Method::Direct, five ? fiveBarEnd : 0.05, 1e-3);
    setup(s);
    if (!five) s.parameters = {"l_1", "l_6", "m_3", "m_10"};
    const SensitivityResult ad = runSensitivity(m, s);
    ASSERT_TRUE(ad.status.ok()) << ad.status.message;
    for (Partials partials : {Partials::GlobalSemiAnalytical, Partials::LocalSemiAnalytical}) {
      s.partials = partials;
      s.delta = 1e-6;
      const SensitivityResult sam = runSensitivity(m, s);
      ASSERT_TRUE(sam.status.ok()) << sam.status.message;
      expectGradientsNear(ad, sam.methods.front(), ad.methods.front(), 1e-4, 1e-2);
      if (!five && !chainFirstOrder) continue;
      s.delta = 1e-3;
      const SensitivityResult coarse = runSensitivity(m, s);
      ASSERT_TRUE(coarse.status.ok()) << coarse.status.message;
      // visibly first order: on the chain, whose residual is linear in its masses and nearly so in
      // its lengths, 1e-8 of the largest (rounding is 1e-13)
      EXPECT_GT((coarse.methods.front().gradient - ad.methods.front().gradient).cwiseAbs().maxCoeff(),
                (five ? 1e-6 : 1e-9) * ad.methods.front().gradient.cwiseAbs().maxCoeff());
    }
  }
}

TEST(Sensitivity, SemiAnalyticalPartialsServeRK45StageByStage) {
  // the same partials at every Dormand–Prince stage, through the five-bar's loop and the ten-bar
  // chain's open tree
  expectSemiAnalyticalEqualsAD(
      [](SensitivitySpec& s) {
        s.run.integrator = analysis::Integrator::RK45;
        s.run.tol = 1e-9;
      },
      0.05, true);
}

TEST(Sensitivity, SemiAnalyticalPartialsServeThePenaltyFormulation) {
  // the penalty equations' parameter partials by differences at the frozen state, their pieces
  // (M z̈ − Q, Φ_z, Φ or Φ_z z̈ − c) differenced apart: differenced whole they carry α δ ∂Φ_z/∂ρ
  // (α ~ 1e7), as large as the answer. The five-bar through its impact (a length, a mass, a centre
  // of mass, the springs); the chain's terms are nearly linear in its parameters (no δ check)
  expectSemiAnalyticalEqualsAD([](SensitivitySpec& s) { s.run.formulation = analysis::Formulation::Penalty; }, 0.4, false);
}

TEST(Sensitivity, AGradientThatIsNotFiniteGetsANoteNamingIt) {
  // |p.x| of the falling ball: p.x stays 0, where the root's derivative is unbounded (0/0)
  Mechanism m = test::sampleMechanism("bouncing-ball-t1");
  Cost c;
  c.name = "side";
  c.type = Cost::Type::Terminal;
  c.expression = Expression::parseOrThrow("sqrt(p.x^2)");
  m.costs = {c};
  const SensitivityResult r = runSensitivity(m, spec(Method::Direct, 0.1, 1e-3));
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  ASSERT_FALSE(std::isfinite(r.methods.front().gradient(0, 0)));
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes.back().find("ddm: the gradient of 'side' with respect to 'y0' is not a finite number"), std::string::npos) << r.notes.back();
}

TEST(Sensitivity, RK45StepsAreDifferentiatedStageByStage) {
  // the accepted steps held (their sizes are the error control's, not differentiated: CVODES'
  // errconS off): the direct method, the adjoint (the stages transposed, replayed from
  // checkpoints) and the complex step follow the same stages. Central differences rerun the error
  // control, whose other steps add noise of tol/δ
  SensitivitySpec s = spec(Method::Compare, 0.2, 1e-3);
  s.run.integrator = analysis::Integrator::RK45;
  s.run.tol = 1e-9;
  s.checkpointEvery = 5;  // the adjoint replays RK45 steps between checkpoints
  const SensitivityResult r = runSensitivity(test::sampleMechanism("five-bar"), s);
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  ASSERT_EQ(r.methods.size(), 4u);
  expectGradientsNear(r, byMethod(r, Method::Direct), byMethod(r, Method::ComplexStep), 1e-10, 1e-3);
  // the adjoint's replay chains its own steps from each checkpoint (the direct method restarts
  // every step from the run's state): equal to the steps' round-off
  expectGradientsNear(r, byMethod(r, Method::Adjoint), byMethod(r, Method::ComplexStep), 1e-8, 1e-3);
  expectGradientsNear(r, byMethod(r, Method::FiniteDifferences), byMethod(r, Method::ComplexStep), 2e-2, 1e-1);
  EXPECT_GT(byMethod(r, Method::Adjoint).recomputedSteps, 0);
}

TEST(Sensitivity, RK45IntegratesIntegralCostsAsQuadratures) {
  // seed 001's z1 = ∫ẏ₂ dt is y₂(T) − y₂(0), its gradient Q_y2(T) (the guide's T5: the positions
  // stay through the impacts): RK45's
  // quadrature of the integrand over its stages, its steps chosen by the tolerance alone, holds
  // that to the tolerance's order, values and gradients, direct method and adjoint (the
  // trapezoidal rule over steps at most dt long missed it by 4e-6 over 5 s)
  Mechanism m = test::sampleMechanism("five-bar");
  m.costs = {test::expressionCost("z1", Cost::Type::Integral, "v2.y"), test::expressionCost("dy", Cost::Type::Terminal, "p2.y - initial(p2.y)")};
  SensitivitySpec s = spec(Method::Direct, 1.0, 1e-3);
  s.run.integrator = analysis::Integrator::RK45;
  s.run.tol = 1e-10;
  for (Method method : {Method::Direct, Method::Adjoint}) {
    s.method = method;
    const SensitivityResult r = runSensitivity(m, s);
    ASSERT_TRUE(r.status.ok()) << r.status.message;
    ASSERT_EQ(r.impacts.size(), 2u);
    const Gradient& g = r.methods.front();
    EXPECT_NEAR(g.values[0], g.values[1], 1e-9) << toString(method);
    const double largest = g.gradient.row(1).cwiseAbs().maxCoeff();
    EXPECT_GT(largest, 1e-2);
    for (Eigen::Index k = 0; k < g.gradient.cols(); ++k)
      EXPECT_NEAR(g.gradient(0, k), g.gradient(1, k), 1e-7 * largest) << "d/d" << r.parameters[static_cast<std::size_t>(k)] << " " << toString(method);
  }
}

TEST(Sensitivity, HistoriesIntegrateToTheGradient) {
  // the rows' output sensitivities, put through the cost's integrand by the trapezoidal rule, give
  // the gradient the direct method reports (itself held to the complex step above)
  SensitivitySpec s = spec(Method::Direct, 1.0, 0.01);
  std::vector<std::string> columns;
  std::vector<double> rows;
  s.histories = [&](const std::vector<std::string>& c, std::span<const double> block) {
    columns = c;
    rows.insert(rows.end(), block.begin(), block.end());
  };
  const SensitivityResult r = runSensitivity(test::sampleMechanism("four-bar-path"), s);
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  const std::size_t width = columns.size(), n = rows.size() / width, p = r.parameters.size();
  ASSERT_EQ(n, 101u);
  ASSERT_EQ(width, 1 + 4 + 4 * p);
  EXPECT_EQ(columns[5], "d(P.x)/d(L1)");
  auto at = [&](std::size_t row, std::size_t col) { return rows[row * width + col]; };
  for (std::size_t k = 0; k < p; ++k) {
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double t = at(i, 0), ex = at(i, 1) - 2 - 0.8 * std::cos(2 * M_PI * t), ey = at(i, 2) - 2.4 - 0.8 * std::sin(2 * M_PI * t);
      const double dg = 2 * ex * at(i, 5 + k) + 2 * ey * at(i, 5 + p + k);
      const double w = (i > 0 ? at(i, 0) - at(i - 1, 0) : 0.0) / 2 + (i + 1 < n ? at(i + 1, 0) - at(i, 0) : 0.0) / 2;
      sum += w * dg;
    }
    EXPECT_NEAR(sum, r.methods.front().gradient(0, static_cast<Eigen::Index>(k)), 1e-10) << r.parameters[k];
  }
}

TEST(Sensitivity, EveryRunEvaluatesTheFilesCostsAsTheSensitivitiesDo) {
  // a plain simulation sums the same integrands over the same steps: the values agree to the
  // Newton tolerance of the steps (the run carries each step's last, unevaluated Newton update
  // into the dependent state to first order; before, the velocities were (2/h)·1e-10 off)
  for (const char* name : {"ten-bar-chain", "five-bar"}) {
    SCOPED_TRACE(name);
    const Mechanism m = test::sampleMechanism(name);
    Diagnostics d;
    const auto r = resolve(m, d);
    analysis::SimulationSpec run;
    run.tEnd = 0.1;
    run.dt = 1e-3;
    run.mechanism = &m;
    for (auto formulation : {analysis::Formulation::MatrixR, analysis::Formulation::Penalty}) {
      run.formulation = formulation;
      const auto sim = analysis::runSimulation(*r, run);
      ASSERT_TRUE(sim.status.ok()) << sim.status.message;
      ASSERT_TRUE(sim.costProblem.empty()) << sim.costProblem;
      const SensitivityResult sens = runSensitivity(m, spec(Method::Direct, 0.1, 1e-3));
      ASSERT_EQ(sim.costNames, sens.costs);
      // Matrix R: the same steps; penalty: another formulation, equal to its accuracy
      const double tol = formulation == analysis::Formulation::MatrixR ? 1e-7 : 1e-3;
      for (std::size_t k = 0; k < sim.costValues.size(); ++k)
        EXPECT_TRUE(test::near(sim.costValues[k], sens.methods.front().values[k], 1e-9, tol)) << sim.costNames[k];
    }
  }
}

// compare: a method that fails keeps the others' gradients (the grid's complex step failed at its
// flat position after two minutes and every finished gradient was thrown away). Here central
// differences of a 1 kg mass by ±2 kg: the mass -1 kg is refused, the three other methods stand.
TEST(Sensitivity, CompareKeepsTheGradientsOfTheMethodsThatSucceed) {
  const Mechanism m = test::sampleMechanism("ten-bar-chain");
  SensitivitySpec s = spec(Method::Compare, 0.01, 1e-3);
  s.parameters = {"m_1", "l_1"};
  s.relativeStep = 2;
  const SensitivityResult r = runSensitivity(m, s);
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  ASSERT_EQ(r.methods.size(), 3u);
  bool noted = false;
  for (const auto& n : r.notes) noted = noted || n.find("fd failed, the other methods' gradients are kept: parameter 'm_1'") == 0;
  EXPECT_TRUE(noted);
  const Gradient& cs = byMethod(r, Method::ComplexStep);
  for (Method method : {Method::Direct, Method::Adjoint})
    for (Eigen::Index k = 0; k < 2; ++k)
      EXPECT_NEAR(byMethod(r, method).gradient(0, k), cs.gradient(0, k), 1e-8 * std::abs(cs.gradient(0, k))) << toString(method);
  // alone, the failing method is the study's failure
  s.method = Method::FiniteDifferences;
  const SensitivityResult alone = runSensitivity(m, s);
  EXPECT_FALSE(alone.status.ok());
  EXPECT_NE(alone.status.message.find("parameter 'm_1' moved by"), std::string::npos) << alone.status.message;
}

TEST(Sensitivity, BadRequestsNameTheItemAndTheReason) {
  const Mechanism m = test::sampleMechanism("ten-bar-chain");
  SensitivitySpec s = spec(Method::Direct, 0.01, 1e-3);
  s.parameters = {"l_1", "length_of_nothing"};
  auto r = runSensitivity(m, s);
  EXPECT_FALSE(r.status.ok());
  EXPECT_NE(r.status.message.find("unknown parameter 'length_of_nothing'"), std::string::npos) << r.status.message;
  s.parameters = {};
  s.costs = {"phi"};
  r = runSensitivity(m, s);
  EXPECT_NE(r.status.message.find("unknown cost 'phi'"), std::string::npos) << r.status.message;
  s.costs = {};
  // a name given twice (its gradient came out 0 in one place and right in the other)
  s.parameters = {"l_1", "l_1"};
  r = runSensitivity(m, s);
  EXPECT_NE(r.status.message.find("parameter 'l_1' is named twice"), std::string::npos) << r.status.message;
  s.parameters = {};
  s.costs = {"psi", "psi"};
  r = runSensitivity(m, s);
  EXPECT_NE(r.status.message.find("cost 'psi' is named twice"), std::string::npos) << r.status.message;
  s.costs = {};
  // a parameter nothing depends on: exactly zero, with a note
  Mechanism unused = m;
  Parameter p;
  p.name = "unused";
  p.value = 3;
  unused.parameters.push_back(p);
  s = spec(Method::Direct, 0.01, 1e-3);
  s.parameters = {"unused", "l_1"};
  r = runSensitivity(unused, s);
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  EXPECT_EQ(r.methods.front().gradient(0, 0), 0.0);
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes.front().find("'unused'"), std::string::npos);
  // a cost of an output that has no derivative
  Mechanism energy = test::sampleMechanism("five-bar");
  Cost c;
  c.name = "energy_cost";
  c.expression = Expression::parseOrThrow("E");
  energy.costs.push_back(c);
  s = spec(Method::Direct, 0.01, 1e-3);
  s.costs = {"energy_cost"};
  r = runSensitivity(energy, s);
  EXPECT_NE(r.status.message.find("cannot be differentiated"), std::string::npos) << r.status.message;
}

TEST(Sensitivity, AKinematicAdjointReplaysTheDriversBetweenCheckpoints) {
  // a kinematic run integrates nothing, yet its positions move with the drivers: the adjoint's
  // replay between checkpoints must solve them at each step's end (it once kept the segment's
  // first positions, 4 % off on the Jansen leg)
  const Mechanism m = test::sampleMechanism("jansen-leg");
  SensitivitySpec s;
  s.analysis = Analysis::Kinematics;
  s.run.tEnd = 1;
  s.run.dt = 0.01;
  s.method = Method::Direct;
  const SensitivityResult direct = runSensitivity(m, s);
  s.method = Method::Adjoint;
  s.checkpointEvery = 10;
  const SensitivityResult adjoint = runSensitivity(m, s);
  ASSERT_TRUE(direct.status.ok() && adjoint.status.ok()) << direct.status.message << adjoint.status.message;
  EXPECT_EQ(adjoint.methods.front().recomputedSteps, 90);
  const Eigen::MatrixXd& a = adjoint.methods.front().gradient;
  const Eigen::MatrixXd& d = direct.methods.front().gradient;
  ASSERT_EQ(a.cols(), 13);
  for (Eigen::Index k = 0; k < d.cols(); ++k) EXPECT_NEAR(a(0, k), d(0, k), 1e-10 * d.cwiseAbs().maxCoeff()) << direct.parameters[static_cast<std::size_t>(k)];
}

}  // namespace
}  // namespace lw::sens
