// Sensitivities through impacts (issue 21, seed 001 §8): the bouncing ball's closed form T1
// (values and gradients at T = 2 s through three impacts, the integrals' quadrature extrapolated
// to h → 0), the negative control T2 (without dt_e/dρ the known wrong numbers), central
// differences of whole runs, the five-bar's properties T5 (Q_y2⁺ = −Q_y2⁻ and Q_x2 continuous at
// each impact, two rows at each in the histories), and the refusals: grazing (T9), simultaneous
// contacts.
#include <gtest/gtest.h>

#include <cmath>

#include "sensitivity/sensitivity.h"
#include "simulation/simulation_run.h"
#include "support/gradients.h"
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
int indexOf(const std::vector<std::string>& names, const std::string& name) {
  for (std::size_t k = 0; k < names.size(); ++k)
    if (names[k] == name) return static_cast<int>(k);
  throw std::runtime_error("no " + name);
}

// seed 001 §8 T1 at T = 2: values and gradients along [y0, v0, e, g]
struct Reference {
  const char* cost;
  double value;
  double gradient[4];
};
const Reference kT1[] = {
    {"y_T", 0.260741728327, {0.426610864164, 0.016908168791, 2.499324113317, -0.016908168791}},
    {"v_T", -0.165869135836, {9.727065432082, 1.0, 31.537662056659, -1.008454084395}},
    {"int_y", 0.811900973899, {0.957109732521, 0.075357621985, 1.989058937819, -0.014802116068}},
    {"int_v2", 7.921499548790, {11.85473675296, -0.002804543345886, 27.32129196120, 0.4065506977185}},
    {"int_a", -19.62, {0, 0, 0, -2}},
};

TEST(ImpactSensitivities, TheBouncingBallMatchesTheClosedForm) {
  const Mechanism m = test::sampleMechanism("bouncing-ball-t1");
  // the trapezoidal rule is exact for a free fall and the impacts are located to round-off: the
  // terminal values are exact; the integrals carry the rule's O(h²) quadrature error, removed by
  // Richardson's extrapolation of two step sizes (values and gradients alike)
  const SensitivityResult coarse = runSensitivity(m, spec(Method::Direct, 2.0, 1e-3));
  const SensitivityResult fine = runSensitivity(m, spec(Method::Direct, 2.0, 5e-4));
  ASSERT_TRUE(coarse.status.ok() && fine.status.ok()) << coarse.status.message << fine.status.message;
  ASSERT_EQ(fine.parameters, (std::vector<std::string>{"y0", "v0", "e", "g"}));
  const Gradient &a = coarse.methods.front(), &b = fine.methods.front();
  for (const Reference& ref : kT1) {
    const int k = indexOf(fine.costs, ref.cost);
    const bool integral = std::string(ref.cost).rfind("int_", 0) == 0;
    auto extrapolated = [&](double ca, double fb) { return integral ? (4 * fb - ca) / 3 : fb; };
    const double scale = std::max(1.0, std::abs(ref.value));
    EXPECT_NEAR(extrapolated(a.values[static_cast<std::size_t>(k)], b.values[static_cast<std::size_t>(k)]), ref.value, 1e-8 * scale) << ref.cost;
    for (int j = 0; j < 4; ++j) {
      const double g = extrapolated(a.gradient(k, j), b.gradient(k, j));
      EXPECT_NEAR(g, ref.gradient[j], 1e-8 * std::max(1.0, std::abs(ref.gradient[j]))) << ref.cost << " d/d" << fine.parameters[static_cast<std::size_t>(j)];
    }
  }
  // the impacts' time sensitivities (Theorem 1) and the velocity sensitivity's jump at the first
  // (Theorem 3: V⁻ = [0, 1, 0, −0.4515] → V⁺ = [3.9865, 1, 4.4294, −0.04515])
  const double dtExpected[3][4] = {{0.225761820493, 0.101936799185, 0, -0.023013437359},
                                   {0.586980733281, 0.101936799185, 0.903047281971, -0.059834937134},
                                   {0.875955863512, 0.101936799185, 2.347922933126, -0.089292136953}};
  ASSERT_EQ(fine.impacts.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    ASSERT_EQ(fine.impacts[k].eventTime.size(), 4u);
    EXPECT_EQ(fine.impacts[k].record.contacts, std::vector<std::string>{"floor"});
    for (std::size_t j = 0; j < 4; ++j) EXPECT_NEAR(fine.impacts[k].eventTime[j], dtExpected[k][j], 1e-9) << k << " " << j;
  }
  const int y = indexOf(fine.impacts[0].coordinates, "body ball[1]");
  const double jumpV[4] = {3.986502226263 - 0, 1 - 1, 4.42944691807 - 0, -0.045152364099 + 0.451523640986};
  const double jumpQ[4] = {-0.8 - 1, -0.361218912789 - 0.451523640986, 0, 0.081549439348 + 0.101936799185};
  for (int j = 0; j < 4; ++j) {
    EXPECT_NEAR(fine.impacts[0].velocityJump(y, j), jumpV[j], 1e-9) << j;
    EXPECT_NEAR(fine.impacts[0].positionJump(y, j), jumpQ[j], 1e-9) << j;
  }
  // RK45 on its own steps, the integrals quadratures of its order over its stages (exact for a
  // free fall's polynomials): every value and gradient as exactly, with steps the tolerance chose
  // (not at most dt); the adjoint transposes the stages' terms, the plain run the same quadrature
  SensitivitySpec rk = spec(Method::Direct, 2.0, 1e-3);
  rk.run.integrator = analysis::Integrator::RK45;
  rk.run.tol = 1e-12;
  for (Method method : {Method::Direct, Method::Adjoint}) {
    rk.method = method;
    const SensitivityResult r = runSensitivity(m, rk);
    ASSERT_TRUE(r.status.ok()) << r.status.message;
    for (const Reference& ref : kT1) {
      const int k = indexOf(r.costs, ref.cost);
      const double scale = std::max(1.0, std::abs(ref.value));
      EXPECT_NEAR(r.methods.front().values[static_cast<std::size_t>(k)], ref.value, 1e-9 * scale) << ref.cost << " " << toString(method);
      for (int j = 0; j < 4; ++j)
        EXPECT_NEAR(r.methods.front().gradient(k, j), ref.gradient[j], 1e-8 * std::max(1.0, std::abs(ref.gradient[j])))
            << ref.cost << " d/d" << r.parameters[static_cast<std::size_t>(j)] << " " << toString(method);
    }
  }
  Diagnostics d;
  const auto resolved = resolve(m, d);
  ASSERT_TRUE(resolved);
  analysis::SimulationSpec plain = rk.run;
  plain.mechanism = &m;
  const analysis::SimulationResult run = analysis::runSimulation(*resolved, plain);
  ASSERT_TRUE(run.status.ok()) << run.status.message;
  EXPECT_LT(run.steps, 100);  // a free fall between impacts is a polynomial: long steps (dt would be 2000)
  for (const Reference& ref : kT1) {
    const int k = indexOf(run.costNames, ref.cost);
    EXPECT_NEAR(run.costValues[static_cast<std::size_t>(k)], ref.value, 1e-9 * std::max(1.0, std::abs(ref.value))) << ref.cost << " (plain run)";
  }
}

TEST(ImpactSensitivities, WithoutTheEventTimesTermsTheGradientIsSeed001sWrongOne) {
  // seed 001 T2: Q⁺ = Q⁻ and V⁺ = h_v V⁻ + h_ρ give dy(T)/dρ = [1.0, 0.11644035, 3.90329206,
  // −0.07535762]; the jumps must not (the test above), and do when the terms are dropped
  SensitivitySpec s = spec(Method::Direct, 2.0, 1e-3);
  s.eventTimeTerms = false;
  s.costs = {"y_T"};
  const SensitivityResult r = runSensitivity(test::sampleMechanism("bouncing-ball-t1"), s);
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  const double wrong[4] = {1.0, 0.11644035, 3.90329206, -0.07535762};
  for (int j = 0; j < 4; ++j) EXPECT_NEAR(r.methods.front().gradient(0, j), wrong[j], 1e-7) << j;
}

TEST(ImpactSensitivities, CentralDifferencesOfWholeRunsAgree) {
  // differences of runs whose impacts move with the parameters: the terminal costs are smooth
  // there (no impact near T)
  SensitivitySpec s = spec(Method::FiniteDifferences, 2.0, 1e-3);
  s.costs = {"y_T", "v_T", "int_v2"};
  s.parameters = {"y0", "e", "g"};  // v0 = 0: its difference step would be a length scale's 1e-7
  const Mechanism m = test::sampleMechanism("bouncing-ball-t1");
  const SensitivityResult fd = runSensitivity(m, s);
  s.method = Method::Direct;
  const SensitivityResult ddm = runSensitivity(m, s);
  ASSERT_TRUE(fd.status.ok() && ddm.status.ok()) << fd.status.message << ddm.status.message;
  const Eigen::MatrixXd &a = fd.methods.front().gradient, &b = ddm.methods.front().gradient;
  for (Eigen::Index k = 0; k < a.rows(); ++k)
    for (Eigen::Index j = 0; j < a.cols(); ++j) EXPECT_NEAR(a(k, j), b(k, j), 1e-5 * std::max(1.0, std::abs(b(k, j)))) << k << " " << j;
}

TEST(ImpactSensitivities, TheFiveBarsSensitivitiesJumpAsTheSeedSays) {
  // seed 001 T5: y₂ = −2.35 at the impact, e = 1 and the kinematic law in (x₂, y₂): Q_y2⁺ = −Q_y2⁻,
  // Q_x2 continuous, and the histories hold both rows at each impact
  SensitivitySpec s = spec(Method::Direct, 1.0, 1e-3);
  std::vector<std::string> columns;
  std::vector<double> rows;
  s.histories = [&](const std::vector<std::string>& c, std::span<const double> r) {
    columns = c;
    rows.insert(rows.end(), r.begin(), r.end());
  };
  const SensitivityResult r = runSensitivity(test::sampleMechanism("five-bar"), s);
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  const std::size_t w = columns.size();
  const int t = 0, y = indexOf(columns, "p2.y");
  int pairs = 0;
  for (const std::string& p : r.parameters) {
    const int qx = indexOf(columns, "d(p2.x)/d(" + p + ")"), qy = indexOf(columns, "d(p2.y)/d(" + p + ")");
    for (std::size_t row = 1; row < rows.size() / w; ++row) {
      const double* before = &rows[(row - 1) * w];
      const double* after = &rows[row * w];
      if (after[t] != before[t]) continue;
      ++pairs;
      EXPECT_NEAR(after[y], -2.35, 1e-9);
      EXPECT_NEAR(after[qy], -before[qy], 1e-9 * std::max(1.0, std::abs(before[qy]))) << p << " at " << after[t];
      EXPECT_NEAR(after[qx], before[qx], 1e-9 * std::max(1.0, std::abs(before[qx]))) << p << " at " << after[t];
    }
  }
  EXPECT_EQ(pairs, 2 * static_cast<int>(r.parameters.size()));  // two impacts in 1 s
}

void expectNear(const SensitivityResult& r, const Gradient& a, const Gradient& b, double rtol) {
  for (Eigen::Index k = 0; k < a.gradient.rows(); ++k)
    for (Eigen::Index j = 0; j < a.gradient.cols(); ++j)
      EXPECT_NEAR(a.gradient(k, j), b.gradient(k, j), rtol * std::max(1.0, std::abs(b.gradient(k, j))))
          << r.costs[static_cast<std::size_t>(k)] << " d/d" << r.parameters[static_cast<std::size_t>(j)] << " " << toString(a.method);
}

TEST(ImpactSensitivities, DirectAdjointAndComplexStepAgreeThroughImpacts) {
  // the adjoint transposes the direct method's jump; the complex step makes the event time
  // complex (seed 001 §1.4, T3): three routes, one answer, for both integrators and both laws
  for (const char* name : {"bouncing-ball-t1", "five-bar"}) {
    for (auto integrator : {analysis::Integrator::Trapezoidal, analysis::Integrator::RK45}) {
      const double dt = 2e-3;  // (RK45 chooses its own)
      SensitivitySpec s = spec(Method::Compare, std::string(name) == "five-bar" ? 0.4 : 1.3, dt);
      s.run.integrator = integrator;
      s.run.tol = 1e-10;
      const SensitivityResult r = runSensitivity(test::sampleMechanism(name), s);
      ASSERT_TRUE(r.status.ok()) << name << ": " << r.status.message;
      const Gradient& cs = byMethod(r, Method::ComplexStep);
      expectNear(r, byMethod(r, Method::Direct), cs, 1e-8);
      expectNear(r, byMethod(r, Method::Adjoint), cs, 1e-8);
      // differences of whole runs see the discrete event location as well: the quadrature's
      // nodes beside the impact move with it, O(h ġ dt/dρ) apart from Theorem 5's exact jump
      // (∫a² of the five-bar, RK45 at 5 ms: 1.1e-3)
      expectNear(r, byMethod(r, Method::FiniteDifferences), cs, integrator == analysis::Integrator::RK45 ? 3e-3 : 1e-3);
    }
  }
}

TEST(ImpactSensitivities, NewtonsLawInAnOpenChainAndAClosedLoop) {
  // Newton's law through a configuration-dependent mass matrix (h_x ≠ 0): the double pendulum's
  // tip on its wall, the slider-crank's block on its stop; the parameters move the plane and e
  for (const auto& [name, tEnd] : {std::pair<const char*, double>{"double-pendulum-wall", 1.0}, {"slider-crank-end-stop", 0.5}}) {
    // (the slider-crank's stop is a limit on its guide joint: its coordinate's gap)
    SensitivitySpec s = spec(Method::Compare, tEnd, 1e-3);
    s.run.integrator = analysis::Integrator::RK45;
    s.run.tol = 1e-10;
    const SensitivityResult r = runSensitivity(test::sampleMechanism(name), s);
    ASSERT_TRUE(r.status.ok()) << name << ": " << r.status.message;
    ASSERT_EQ(r.impacts.size(), 1u) << name;
    const Gradient& cs = byMethod(r, Method::ComplexStep);
    expectNear(r, byMethod(r, Method::Direct), cs, 1e-8);
    expectNear(r, byMethod(r, Method::Adjoint), cs, 1e-8);
    expectNear(r, byMethod(r, Method::FiniteDifferences), cs, 1e-4);
  }
}

TEST(ImpactSensitivities, TheMirroredFiveBarBouncesAsItsMirrorImage) {
  // seed 001 T7: the springs attached the mirror way (A to point 3, B to point 2) give the same
  // y₂(t) and y-sensitivities to the springs' lengths, and x₂ → −x₂, through the impacts
  const Mechanism five = test::sampleMechanism("five-bar");
  Mechanism mirror = five;
  mirror.forces[0].points[0] = {"ground", "A"};
  mirror.forces[0].points[1] = {"bar_3B", "P3"};
  mirror.forces[1].points[0] = {"ground", "B"};
  auto histories = [](const Mechanism& m, std::vector<std::string>& columns, std::vector<double>& rows) {
    SensitivitySpec s = spec(Method::Direct, 1.0, 1e-3);
    s.parameters = {"L_s1", "L_s2"};
    s.histories = [&](const std::vector<std::string>& c, std::span<const double> r) {
      columns = c;
      rows.insert(rows.end(), r.begin(), r.end());
    };
    const SensitivityResult r = runSensitivity(m, s);
    EXPECT_TRUE(r.status.ok()) << r.status.message;
    return r;
  };
  std::vector<std::string> ca, cb;
  std::vector<double> ra, rb;
  const SensitivityResult a = histories(five, ca, ra), b = histories(mirror, cb, rb);
  ASSERT_EQ(a.impacts.size(), 2u);
  ASSERT_EQ(b.impacts.size(), 2u);
  for (std::size_t k = 0; k < 2; ++k) EXPECT_NEAR(a.impacts[k].record.t, b.impacts[k].record.t, 1e-10);
  ASSERT_EQ(ca, cb);
  ASSERT_EQ(ra.size(), rb.size());
  const std::size_t w = ca.size();
  for (const char* name : {"p2.y", "v2.y", "d(p2.y)/d(L_s1)", "d(p2.y)/d(L_s2)", "d(v2.y)/d(L_s1)", "d(v2.y)/d(L_s2)"}) {
    const auto c = static_cast<std::size_t>(indexOf(ca, name));
    for (std::size_t row = 0; row < ra.size() / w; ++row)
      ASSERT_NEAR(ra[row * w + c], rb[row * w + c], 1e-8 * std::max(1.0, std::abs(ra[row * w + c]))) << name << " at " << ra[row * w];
  }
  for (const char* name : {"p2.x", "v2.x", "d(p2.x)/d(L_s1)", "d(p2.x)/d(L_s2)"}) {
    const auto c = static_cast<std::size_t>(indexOf(ca, name));
    for (std::size_t row = 0; row < ra.size() / w; ++row)
      ASSERT_NEAR(ra[row * w + c], -rb[row * w + c], 1e-8 * std::max(1.0, std::abs(ra[row * w + c]))) << name << " at " << ra[row * w];
  }
}

TEST(ImpactSensitivities, ThePenaltyFormulationCrossesImpactsToo) {
  // all the tree's coordinates, the jump mapped from the independent coordinates chosen at the
  // impact: the direct method, the adjoint (the jump transposed, checkpointed) and the complex
  // step (its event time complex) agree; differences of whole runs to O(h)
  for (const auto& [name, tEnd] : {std::pair<const char*, double>{"five-bar", 0.4}, {"bouncing-ball-t1", 1.3}}) {
    SensitivitySpec s = spec(Method::Direct, tEnd, 1e-3);
    s.run.formulation = analysis::Formulation::Penalty;
    const Mechanism m = test::sampleMechanism(name);
    const SensitivityResult ddm = runSensitivity(m, s);
    s.method = Method::ComplexStep;
    const SensitivityResult cs = runSensitivity(m, s);
    s.method = Method::FiniteDifferences;
    const SensitivityResult fd = runSensitivity(m, s);
    ASSERT_TRUE(ddm.status.ok() && cs.status.ok() && fd.status.ok()) << name << ": " << ddm.status.message << cs.status.message << fd.status.message;
    ASSERT_FALSE(ddm.impacts.empty()) << name;
    ASSERT_EQ(ddm.impacts[0].eventTime.size(), ddm.parameters.size());
    if (std::string(name) == "bouncing-ball-t1") {  // T1's dt_1/dρ: a free body has no penalty
      const double dt1[4] = {0.225761820493, 0.101936799185, 0, -0.023013437359};
      for (std::size_t j = 0; j < 4; ++j) EXPECT_NEAR(ddm.impacts[0].eventTime[j], dt1[j], 1e-9) << j;
    }
    expectNear(ddm, ddm.methods.front(), cs.methods.front(), 1e-7);
    expectNear(ddm, fd.methods.front(), cs.methods.front(), 2e-3);
    s.method = Method::Adjoint;
    const SensitivityResult avm = runSensitivity(m, s);
    ASSERT_TRUE(avm.status.ok()) << name << ": " << avm.status.message;
    expectNear(ddm, avm.methods.front(), cs.methods.front(), 1e-7);
  }
}

TEST(ImpactSensitivities, AnEquationOfMotionSwitchMatchesSeed001sT4) {
  // seed 001 T4: ÿ = a1 until y falls through 0, then ÿ = a2, the velocity continuous: t1, and at
  // T = 0.5 s y, v and ∫v² with their gradients along [y0, v0, a1, a2]; V jumps by
  // −(a2 − a1) dt1/dρ, Q is continuous (Theorem 4)
  const Mechanism m = test::sampleMechanism("switch-t4");
  const SensitivityResult coarse = runSensitivity(m, spec(Method::Direct, 0.5, 1e-3));
  const SensitivityResult fine = runSensitivity(m, spec(Method::Direct, 0.5, 5e-4));
  ASSERT_TRUE(coarse.status.ok() && fine.status.ok()) << coarse.status.message << fine.status.message;
  ASSERT_EQ(fine.impacts.size(), 1u);
  EXPECT_EQ(fine.impacts[0].record.kind, "switch");
  EXPECT_NEAR(fine.impacts[0].record.t, 0.360950562273, 1e-10);
  const double dt1[4] = {0.22021944791, 0.079488333546, 0.014345679344, 0};
  for (std::size_t j = 0; j < 4; ++j) EXPECT_NEAR(fine.impacts[0].eventTime[j], dt1[j], 1e-9) << j;
  const int y = indexOf(fine.impacts[0].coordinates, "body point[1]");
  for (int j = 0; j < 4; ++j) {
    EXPECT_NEAR(fine.impacts[0].positionJump(y, j), 0, 1e-12);
    EXPECT_NEAR(fine.impacts[0].velocityJump(y, j), -(20 + 9.81) * dt1[j], 1e-8);
  }
  const Reference t4[] = {
      {"y_T", -0.438065608899, {0.087176351925, 0.170515790971, 0.055868871679, 0.009667373066}},
      {"v_T", -1.759936261355, {-6.564741742187, -1.369547223019, -0.066694138967, 0.139049437727}},
      {"int_v2", 4.617311699969, {5.751575177114, -0.800096923664, -0.379406163035, -0.051951158011}},
  };
  for (const Reference& ref : t4) {
    const int k = indexOf(fine.costs, ref.cost);
    const bool integral = std::string(ref.cost) == "int_v2";
    auto extrapolated = [&](double a, double b) { return integral ? (4 * b - a) / 3 : b; };
    EXPECT_NEAR(extrapolated(coarse.methods.front().values[static_cast<std::size_t>(k)], fine.methods.front().values[static_cast<std::size_t>(k)]),
                ref.value, 1e-8 * std::max(1.0, std::abs(ref.value)))
        << ref.cost;
    for (int j = 0; j < 4; ++j)
      EXPECT_NEAR(extrapolated(coarse.methods.front().gradient(k, j), fine.methods.front().gradient(k, j)), ref.gradient[j],
                  1e-8 * std::max(1.0, std::abs(ref.gradient[j])))
          << ref.cost << " " << j;
  }
  // the complex step (its event time complex) and the adjoint (the switch's jump transposed, the
  // replay with the forces as they were on each side) agree
  SensitivitySpec s = spec(Method::ComplexStep, 0.5, 1e-3);
  const SensitivityResult cs = runSensitivity(m, s);
  ASSERT_TRUE(cs.status.ok()) << cs.status.message;
  expectNear(cs, coarse.methods.front(), cs.methods.front(), 1e-10);
  s.method = Method::Adjoint;
  const SensitivityResult avm = runSensitivity(m, s);
  ASSERT_TRUE(avm.status.ok()) << avm.status.message;
  expectNear(avm, coarse.methods.front(), avm.methods.front(), 1e-10);
  // and through RK45 (the switch located on its dense output)
  SensitivitySpec rk = spec(Method::Direct, 0.5, 1e-3);
  rk.run.integrator = analysis::Integrator::RK45;
  rk.run.tol = 1e-10;
  const SensitivityResult rkDdm = runSensitivity(m, rk);
  rk.method = Method::Adjoint;
  const SensitivityResult rkAvm = runSensitivity(m, rk);
  ASSERT_TRUE(rkDdm.status.ok() && rkAvm.status.ok()) << rkDdm.status.message << rkAvm.status.message;
  expectNear(rkAvm, rkDdm.methods.front(), rkAvm.methods.front(), 1e-8);
}

TEST(ImpactSensitivities, ThePenaltyFormulationFollowsASwitchToo) {
  // T4 again in the penalty formulation (a free point: no constraint to penalise, the same
  // trapezoidal steps): the switch's time sensitivity, V's jump −(a2 − a1) dt1/dρ with Q
  // continuous, the seed's values and gradients at T = 0.5 s (integrals extrapolated), and the
  // complex step and the adjoint (the replay with the forces of each side) equal to the direct method
  const Mechanism m = test::sampleMechanism("switch-t4");
  SensitivitySpec s = spec(Method::Direct, 0.5, 1e-3);
  s.run.formulation = analysis::Formulation::Penalty;
  const SensitivityResult coarse = runSensitivity(m, s);
  s.run.dt = 5e-4;
  const SensitivityResult fine = runSensitivity(m, s);
  ASSERT_TRUE(coarse.status.ok() && fine.status.ok()) << coarse.status.message << fine.status.message;
  ASSERT_EQ(fine.impacts.size(), 1u);
  EXPECT_NEAR(fine.impacts[0].record.t, 0.360950562273, 1e-9);
  const double dt1[4] = {0.22021944791, 0.079488333546, 0.014345679344, 0};
  for (std::size_t j = 0; j < 4; ++j) EXPECT_NEAR(fine.impacts[0].eventTime[j], dt1[j], 1e-8) << j;
  const int y = indexOf(fine.impacts[0].coordinates, "point[1]");
  for (int j = 0; j < 4; ++j) {
    EXPECT_NEAR(fine.impacts[0].positionJump(y, j), 0, 1e-12);
    EXPECT_NEAR(fine.impacts[0].velocityJump(y, j), -(20 + 9.81) * dt1[j], 1e-7);
  }
  const Reference t4[] = {
      {"y_T", -0.438065608899, {0.087176351925, 0.170515790971, 0.055868871679, 0.009667373066}},
      {"v_T", -1.759936261355, {-6.564741742187, -1.369547223019, -0.066694138967, 0.139049437727}},
      {"int_v2", 4.617311699969, {5.751575177114, -0.800096923664, -0.379406163035, -0.051951158011}},
  };
  for (const Reference& ref : t4) {
    const auto k = static_cast<std::size_t>(indexOf(fine.costs, ref.cost));
    const bool integral = std::string(ref.cost) == "int_v2";
    auto extrapolated = [&](double a, double b) { return integral ? (4 * b - a) / 3 : b; };
    EXPECT_NEAR(extrapolated(coarse.methods.front().values[k], fine.methods.front().values[k]), ref.value, 1e-7 * std::max(1.0, std::abs(ref.value)))
        << ref.cost;
    for (int j = 0; j < 4; ++j)
      EXPECT_NEAR(extrapolated(coarse.methods.front().gradient(static_cast<Eigen::Index>(k), j), fine.methods.front().gradient(static_cast<Eigen::Index>(k), j)),
                  ref.gradient[j], 1e-7 * std::max(1.0, std::abs(ref.gradient[j])))
          << ref.cost << " " << j;
  }
  s.run.dt = 1e-3;
  for (Method method : {Method::ComplexStep, Method::Adjoint}) {
    s.method = method;
    s.checkpointEvery = 37;
    const SensitivityResult r = runSensitivity(m, s);
    ASSERT_TRUE(r.status.ok()) << toString(method) << ": " << r.status.message;
    expectNear(r, coarse.methods.front(), r.methods.front(), 1e-10);
  }
}

TEST(ImpactSensitivities, NoImpactIsTheSmoothMethod) {
  // seed 001 T8: the floor far below, no event: the same gradients as without the contact
  Mechanism far = test::sampleMechanism("five-bar");
  for (auto& p : far.ground.points)
    if (p.name == "F") p.value = {Number(0), Number(-20)};
  Mechanism none = test::withoutContacts(test::sampleMechanism("five-bar"));
  const SensitivitySpec s = spec(Method::Direct, 0.5, 1e-3);
  const SensitivityResult a = runSensitivity(far, s), b = runSensitivity(none, s);
  ASSERT_TRUE(a.status.ok() && b.status.ok()) << a.status.message << b.status.message;
  // the same steps; the event monitor's own Newton solves leave the positions different in the
  // last bits, which 500 steps amplify to ~1e-12 (relative, the whole gradient)
  EXPECT_TRUE(a.methods.front().gradient.isApprox(b.methods.front().gradient, 1e-10));
}

TEST(ImpactSensitivities, AGrazingImpactIsReportedNotDifferentiated) {
  // seed 001 T9: a ball drifting onto the floor at 1e-9 m/s (no gravity): its impact time's
  // sensitivity −Q/ṙ⁻ is unbounded as ṙ⁻ → 0; the run reports it instead of differentiating it
  Mechanism m = test::sampleMechanism("bouncing-ball-t1");
  for (auto& p : m.parameters) {
    if (p.name == "y0") p.value = 1e-11;
    if (p.name == "v0") p.value = -1e-9;
    if (p.name == "g") p.value = 0;
  }
  const SensitivityResult r = runSensitivity(m, spec(Method::Direct, 0.05, 1e-3));
  ASSERT_FALSE(r.status.ok());
  EXPECT_NE(r.status.message.find("contact 'floor' grazes its plane or stop at t = 0.01"), std::string::npos) << r.status.message;
}

}  // namespace
}  // namespace lw::sens
