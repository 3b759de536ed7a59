// Tuning: the coupler-curve synthesis recovers the dimensions its targets were made with (they
// are the coupler point of L1 = 1, L2 = 3.5, L3 = 3, Px = 1.5, Py = 1 at fifths of a turn), ranges
// and constraints hold at the answer (an active bound, an active constraint: the KKT condition
// checked against the exact gradient), a stop keeps the best design, derivative-free methods
// reach the same answer, and bad requests are refused naming the item.
#include "optimize/optimize.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "simulation/simulation_run.h"
#include "io/mechanism_io.h"
#include "mechanism/resolved.h"
#include "support/samples.h"

namespace lw::opt {
namespace {

OptimizeSpec synthesis(const Mechanism& m) {
  std::string error;
  OptimizeSpec s = specFromStudy(m, error);
  EXPECT_TRUE(error.empty()) << error;
  return s;
}

const std::vector<double> kMadeWith{1.0, 3.5, 3.0, 1.5, 1.0};

TEST(Optimize, CouplerCurveSynthesisRecoversTheDesignItsTargetsCameFrom) {
  const Mechanism m = test::sampleMechanism("four-bar-synthesis");
  const OptimizeSpec spec = synthesis(m);
  EXPECT_EQ(spec.sensitivity.analysis, sens::Analysis::Kinematics);
  int told = 0;
  const OptimizeResult r = optimize(m, spec, [&](const Evaluation&) { ++told; });
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  ASSERT_EQ(r.parameters, (std::vector<std::string>{"L1", "L2", "L3", "Px", "Py"}));
  EXPECT_EQ(told, static_cast<int>(r.history.size()));
  EXPECT_GT(r.initialCost, 1.0);
  // the targets are rounded to 1e-6 m: the cost at the design they came from is ~1e-12
  EXPECT_LT(r.bestCost, 1e-9);
  EXPECT_LT(r.bestCost, r.initialCost / 1e6);
  for (std::size_t i = 0; i < 5; ++i) EXPECT_NEAR(r.best[i], kMadeWith[i], 1e-4) << r.parameters[i];
  EXPECT_LE(r.history.size(), 100u);
  // the best is the least of the history, and flagged there
  double least = INFINITY;
  for (const auto& e : r.history)
    if (!e.failed) least = std::min(least, e.cost);
  EXPECT_EQ(least, r.bestCost);
}

TEST(Optimize, AnActiveBoundAndAnActiveConstraintHoldAtTheAnswer) {
  const Mechanism m = test::sampleMechanism("four-bar-synthesis");
  // the crank may not reach its best length (1): it stops at its max, the others adapt
  Mechanism bounded = m;
  for (auto& p : bounded.parameters)
    if (p.name == "L1") p.max = 0.9;
  OptimizeResult r = optimize(bounded, synthesis(bounded));
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  EXPECT_NEAR(r.best[0], 0.9, 1e-9);
  EXPECT_GT(r.bestCost, 1e-6);  // the targets cannot all be met any more
  // at a bound the cost falls toward it: dψ/dL1 < 0 (KKT), checked with a fresh gradient
  sens::SensitivitySpec s = synthesis(m).sensitivity;
  Mechanism at = bounded;
  for (std::size_t i = 0; i < 5; ++i)
    for (auto& p : at.parameters)
      if (p.name == r.parameters[i]) p.value = Number(r.best[i]);
  const auto g = sens::runSensitivity(at, s);
  ASSERT_TRUE(g.status.ok());
  EXPECT_LT(g.methods[0].gradient(0, 0), 0);
  for (Eigen::Index k = 1; k < 5; ++k) EXPECT_LT(std::abs(g.methods[0].gradient(0, k)), 1e-4) << "free parameter " << k << " is stationary";

  // a constraint L1 + L3 ≤ 3.8 (the design made with has 4): met, and active
  OptimizeSpec c = synthesis(m);
  TuningConstraint sum;
  sum.name = "length_sum";
  sum.expression = Expression::parseOrThrow("L1 + L3");
  sum.hasMax = true;
  sum.max = 3.8;
  c.constraints = {sum};
  r = optimize(m, c);
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  EXPECT_LE(r.best[0] + r.best[2], 3.8 + 1e-8);
  EXPECT_GT(r.best[0] + r.best[2], 3.8 - 1e-6);
  EXPECT_GT(r.bestCost, 1e-6);
  EXPECT_LT(r.bestCost, r.initialCost / 10);
  // KKT at the answer, with a fresh gradient: ∇ψ = −λ ∇(L1 + L3), λ > 0, i.e. ∂ψ/∂L1 = ∂ψ/∂L3 < 0
  // and the other parameters stationary (a wrong constraint gradient stops elsewhere)
  Mechanism atC = m;
  for (std::size_t i = 0; i < 5; ++i)
    for (auto& p : atC.parameters)
      if (p.name == r.parameters[i]) p.value = Number(r.best[i]);
  const auto gc = sens::runSensitivity(atC, synthesis(m).sensitivity);
  ASSERT_TRUE(gc.status.ok());
  const auto& G = gc.methods[0].gradient;
  std::printf("constrained optimum: dpsi/d(L1, L2, L3, Px, Py) = %g %g %g %g %g\n", G(0, 0), G(0, 1), G(0, 2), G(0, 3), G(0, 4));
  EXPECT_LT(G(0, 0), 0);
  EXPECT_NEAR(G(0, 0), G(0, 2), 1e-4 * std::abs(G(0, 0)));
  for (Eigen::Index k : {1, 3, 4}) EXPECT_LT(std::abs(G(0, k)), 1e-4 * std::abs(G(0, 0))) << "free parameter " << k;
}

TEST(Optimize, DerivativeFreeMethodsReduceTheCostToo) {
  const Mechanism m = test::sampleMechanism("four-bar-synthesis");
  OptimizeSpec s = synthesis(m);
  s.algorithm = Algorithm::Cobyla;
  s.maxEvaluations = 120;
  const OptimizeResult r = optimize(m, s);
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  EXPECT_LT(r.bestCost, r.initialCost / 10);
  // and need more runs than SLSQP with exact gradients for less
  const OptimizeResult slsqp = optimize(m, synthesis(m));
  EXPECT_LT(slsqp.bestCost, r.bestCost);
}

TEST(Optimize, DrivingToATargetValue) {
  const Mechanism m = test::sampleMechanism("four-bar-synthesis");
  OptimizeSpec s = synthesis(m);
  s.hasTarget = true;
  s.target = 0.5;
  s.parameters = {"Px"};
  const OptimizeResult r = optimize(m, s);
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  EXPECT_NEAR(r.bestCost, 0.5, 1e-6);
  EXPECT_NEAR(r.bestObjective, 0.0, 1e-12);
}

TEST(Optimize, StopKeepsTheBestDesignSoFar) {
  const Mechanism m = test::sampleMechanism("four-bar-synthesis");
  std::atomic<bool> cancel{false};
  const OptimizeResult r = optimize(
      m, synthesis(m), [&](const Evaluation& e) { if (e.index == 6) cancel = true; }, &cancel);
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  EXPECT_EQ(r.history.size(), 6u);
  EXPECT_NE(r.stopReason.find("stopped"), std::string::npos) << r.stopReason;
  EXPECT_LT(r.bestCost, r.initialCost);
  double least = INFINITY;
  for (const auto& e : r.history) least = std::min(least, e.cost);
  EXPECT_EQ(least, r.bestCost);
}

TEST(Optimize, SetParametersKeepsTheDrivenCrankAndClosesTheLoop) {
  Mechanism m = test::sampleMechanism("four-bar-synthesis");
  const double crank = m.bodies[0].angle.value;
  ASSERT_TRUE(setParameters(m, {"L1", "L2", "L3", "Px", "Py"}, kMadeWith).ok());
  EXPECT_NEAR(m.bodies[0].angle.value, crank, 1e-12);  // the driven crank keeps its angle: the timing stays
  Diagnostics d;
  const auto r = resolve(m, d);
  ASSERT_TRUE(r);
  for (const auto& j : r->joints) EXPECT_LT(r->storedJointGap(j), 1e-9) << j.name;
  // a crank too long for the loop at any angle is refused, the mechanism untouched
  const Mechanism before = m;
  const Status s = setParameters(m, {"L1"}, {20.0});  // B 16 m from D at least: L2 + L3 = 6.5
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message.find("does not close"), std::string::npos) << s.message;
  EXPECT_EQ(m.parameters[0].value.value, before.parameters[0].value.value);
}

// A tuned (or `set`) file must run as the study that tuned it evaluated: the dynamics at the new
// values starts from its own assembly of the old stored configuration (a minimum-norm correction
// of the tree's coordinates), so that is what setParameters stores. The five-bar's independent
// point moved when the edit guard's assembly closed the loop instead (psi3 30.0 for 28.0).
TEST(Optimize, ASetFileRunsAsTheStudyAtTheNewValuesDid) {
  const Mechanism original = test::withoutContacts(test::sampleMechanism("five-bar"));
  auto costsOf = [](const Mechanism& m) {
    Diagnostics d;
    const auto r = resolve(m, d);
    EXPECT_TRUE(r);
    analysis::SimulationSpec spec;
    spec.tEnd = 0.3;
    spec.dt = 1e-3;
    spec.mechanism = &m;
    const analysis::SimulationResult run = analysis::runSimulation(*r, spec);
    EXPECT_TRUE(run.status.ok()) << run.status.message;
    return run.costValues;
  };
  // the study's view: the parameter changed, the stored configuration as it was
  Mechanism inPlace = original;
  for (auto& p : inPlace.parameters)
    if (p.name == "L_A1") p.value = Number(p.value.value * 1.05);
  const double value = std::find_if(inPlace.parameters.begin(), inPlace.parameters.end(), [](const Parameter& p) { return p.name == "L_A1"; })->value.value;
  Mechanism set = original;
  ASSERT_TRUE(setParameters(set, {"L_A1"}, {value}).ok());
  // through the file, as `set` and `optimize -o` write it
  const auto reloaded = io::loadMechanismFromString(io::mechanismToString(set));
  ASSERT_TRUE(reloaded.ok());
  const std::vector<double> study = costsOf(inPlace), file = costsOf(*reloaded.mechanism), before = costsOf(original);
  ASSERT_EQ(study.size(), file.size());
  ASSERT_FALSE(study.empty());
  for (std::size_t c = 0; c < study.size(); ++c) {
    EXPECT_NEAR(file[c], study[c], 1e-9 * std::max(1.0, std::abs(study[c]))) << original.costs[c].name;
    EXPECT_GT(std::abs(study[c] - before[c]), 1e-6 * std::max(1.0, std::abs(study[c]))) << "the edit changes " << original.costs[c].name;
  }
}

TEST(Optimize, AStudyWithAnUnknownAlgorithmIsReported) {
  Mechanism m = test::sampleMechanism("four-bar-synthesis");
  m.study.algorithm = "newton";
  std::string error;
  specFromStudy(m, error);
  EXPECT_EQ(error.rfind("study.tuning.algorithm: unknown algorithm 'newton' (slsqp", 0), 0u) << error;
}

// `check` (the resolver) warns of what `optimize` will refuse: the algorithm, the study's names and
// its constraints' parameters, each with its path (they passed `check` silently and failed
// `optimize`). Warnings: a cost deleted in the window must not invalidate the mechanism.
TEST(Optimize, CheckRefusesAStudyOptimizeWouldRefuse) {
  const Mechanism file = test::sampleMechanism("four-bar-synthesis");
  for (const char* a : {"slsqp", "mma", "ccsaq", "lbfgs", "cobyla", "bobyqa", "neldermead", "sbplx"}) {
    Algorithm x;
    EXPECT_TRUE(parseAlgorithm(a, x)) << a;
    Mechanism m = file;
    m.study.algorithm = a;
    EXPECT_FALSE(hasErrors(validate(m))) << a;
  }
  Mechanism m = file;
  m.study.algorithm = "slsqpp";
  m.study.tuneCost = "target_eror";
  m.study.costs = {"target_error", "nope"};
  m.study.parameters = {"L1", "Lx"};
  TuningConstraint k;
  k.name = "reach";
  k.expression = Expression::parseOrThrow("L1 + Lz");
  k.hasMax = true;
  k.max = 5;
  m.study.constraints = {k};
  const Diagnostics d = validate(m);
  auto has = [&](const std::string& path, const std::string& text) {
    return std::any_of(d.begin(), d.end(), [&](const Diagnostic& x) {
      return x.path == path && x.message.find(text) != std::string::npos && x.severity == Diagnostic::Severity::Warning;
    });
  };
  EXPECT_TRUE(has("study.tuning.algorithm", "unknown algorithm 'slsqpp'"));
  EXPECT_TRUE(has("study.tuning.cost", "unknown cost 'target_eror'"));
  EXPECT_TRUE(has("study.costs[1]", "unknown cost 'nope'"));
  EXPECT_TRUE(has("study.parameters[1]", "unknown parameter 'Lx'"));
  EXPECT_TRUE(has("study.tuning.constraints[0].expression", "unknown name 'Lz'"));
  EXPECT_EQ(d.size(), 5u);
  EXPECT_FALSE(hasErrors(d));
  // a constraint may use a cost (tuning keeps it within bounds); lbfgs takes no constraints
  m = file;
  k.expression = Expression::parseOrThrow("target_error + L1");
  m.study.constraints = {k};
  EXPECT_TRUE(validate(m).empty());
  m.study.algorithm = "lbfgs";
  const Diagnostics l = validate(m);
  ASSERT_EQ(l.size(), 1u);
  EXPECT_NE(l[0].message.find("lbfgs takes no constraints"), std::string::npos) << l[0].message;
}

TEST(Optimize, BadRequestsAreRefusedNamingTheItem) {
  const Mechanism m = test::sampleMechanism("four-bar-synthesis");
  OptimizeSpec s = synthesis(m);
  s.cost = "nope";
  EXPECT_NE(optimize(m, s).status.message.find("unknown cost 'nope' (the file's costs: target_error)"), std::string::npos);
  s = synthesis(m);
  s.parameters = {"L1", "Lx"};
  EXPECT_NE(optimize(m, s).status.message.find("unknown parameter 'Lx'"), std::string::npos);
  s.parameters = {"L1", "L1"};
  EXPECT_NE(optimize(m, s).status.message.find("parameter 'L1' is named twice"), std::string::npos);
  s = synthesis(m);
  s.algorithm = Algorithm::Bobyqa;
  TuningConstraint c;
  c.name = "c";
  c.expression = Expression::parseOrThrow("L1");
  c.hasMax = true;
  c.max = 1;
  s.constraints = {c};
  EXPECT_NE(optimize(m, s).status.message.find("bobyqa takes no constraints"), std::string::npos);
  s = synthesis(m);
  c.expression = Expression::parseOrThrow("L1 + Q");
  s.constraints = {c};
  EXPECT_NE(optimize(m, s).status.message.find("constraint 'c' uses 'Q'"), std::string::npos);
  Mechanism outside = m;
  outside.parameters[0].value = Number(2.0);
  EXPECT_NE(optimize(outside, synthesis(outside)).status.message.find("outside its range"), std::string::npos);
}

}  // namespace
}  // namespace lw::opt
