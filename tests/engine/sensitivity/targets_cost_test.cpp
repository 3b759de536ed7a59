// The targets cost (a point output through target points at given times): its value and gradient
// against a closed form (the crank pin B = L1 (cos θ, sin θ) of a driven crank), its reading between
// steps (linear interpolation of the outputs, differentiated the same way), the direct method and
// the adjoint against the complex step and differences, and the refusals (a target after the run's
// end, a target that is not a point of the mechanism's dimension).
#include <gtest/gtest.h>

#include <cmath>

#include "simulation/kinematics_run.h"
#include "io/mechanism_io.h"
#include "mechanism/resolved.h"
#include "sensitivity/sensitivity.h"
#include "support/samples.h"

namespace lw::sens {
namespace {

// the synthesis sample with an output on the crank pin B and a targets cost on it
Mechanism crankPinTargets(std::vector<Cost::Target> targets) {
  Mechanism m = test::sampleMechanism("four-bar-synthesis");
  Output b;
  b.name = "B";
  b.type = Output::Type::PointPosition;
  b.point = Ref{"crank", "B"};
  m.outputs.push_back(b);
  Cost c;
  c.name = "pin";
  c.type = Cost::Type::Targets;
  c.output = "B";
  c.targets = std::move(targets);
  m.costs.push_back(c);
  return m;
}

SensitivitySpec kinematic(Method method, double dt) {
  SensitivitySpec s;
  s.method = method;
  s.analysis = Analysis::Kinematics;
  s.costs = {"pin"};
  s.parameters = {"L1", "L2"};
  s.run.tEnd = 1;
  s.run.dt = dt;
  return s;
}

constexpr double kTheta0 = M_PI / 3;  // the crank's stored angle; the driver turns it 2π t from there

TEST(TargetsCost, ValueAndGradientEqualTheClosedFormAtStepTimes) {
  const std::vector<Cost::Target> targets{{0.0, {0.3, 0.9}}, {0.25, {-0.7, 0.1}}, {0.5, {-0.2, -0.6}}, {0.75, {0.5, -0.1}}};
  const SensitivityResult r = runSensitivity(crankPinTargets(targets), kinematic(Method::Direct, 0.01));
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  const double L1 = 0.8;
  double value = 0, dL1 = 0;
  for (const auto& t : targets) {
    const double th = kTheta0 + 2 * M_PI * t.t, ex = std::cos(th), ey = std::sin(th);
    const double dx = L1 * ex - t.at[0], dy = L1 * ey - t.at[1];
    value += dx * dx + dy * dy;
    dL1 += 2 * (dx * ex + dy * ey);
  }
  EXPECT_NEAR(r.methods[0].values[0], value, 1e-10);
  EXPECT_NEAR(r.methods[0].gradient(0, 0), dL1, 1e-9);
  EXPECT_NEAR(r.methods[0].gradient(0, 1), 0.0, 1e-9);  // the coupler does not move the crank pin
}

TEST(TargetsCost, BetweenStepsTheOutputsAreInterpolatedLinearly) {
  // targets 3/10 of the way into a step: the value is the interpolated pin's, not the exact one
  const double dt = 0.05, f = 0.3;
  const std::vector<Cost::Target> targets{{(4 + f) * dt, {0.1, 0.2}}, {(11 + f) * dt, {-0.4, 0.3}}};
  const SensitivityResult r = runSensitivity(crankPinTargets(targets), kinematic(Method::Direct, dt));
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  const double L1 = 0.8;
  double value = 0, dL1 = 0, exact = 0;
  for (const auto& t : targets) {
    const double k = std::floor(t.t / dt + 1e-9);
    const double a = kTheta0 + 2 * M_PI * k * dt, b = kTheta0 + 2 * M_PI * (k + 1) * dt;
    const double ex = (1 - f) * std::cos(a) + f * std::cos(b), ey = (1 - f) * std::sin(a) + f * std::sin(b);
    const double dx = L1 * ex - t.at[0], dy = L1 * ey - t.at[1];
    value += dx * dx + dy * dy;
    dL1 += 2 * (dx * ex + dy * ey);
    const double th = kTheta0 + 2 * M_PI * t.t;
    exact += std::pow(L1 * std::cos(th) - t.at[0], 2) + std::pow(L1 * std::sin(th) - t.at[1], 2);
  }
  EXPECT_NEAR(r.methods[0].values[0], value, 1e-10);
  EXPECT_NEAR(r.methods[0].gradient(0, 0), dL1, 1e-9);
  // the adjoint places each term on the step's two ends (1 − f, f), the ends in different
  // checkpoint segments or the same
  for (long every : {1L, 3L, 5L, 100L}) {
    SensitivitySpec s = kinematic(Method::Adjoint, dt);
    s.checkpointEvery = every;
    const SensitivityResult a = runSensitivity(crankPinTargets(targets), s);
    ASSERT_TRUE(a.status.ok()) << a.status.message;
    EXPECT_NEAR(a.methods[0].values[0], value, 1e-10) << every;
    EXPECT_NEAR(a.methods[0].gradient(0, 0), dL1, 1e-9) << every;
    EXPECT_NEAR(a.methods[0].gradient(0, 1), 0.0, 1e-9) << every;
  }
  // and the interpolation is a real approximation: off the exact value by O(dt²), not more
  EXPECT_GT(std::abs(value - exact), 1e-6);
  EXPECT_LT(std::abs(value - exact), 0.05 * exact);
}

TEST(TargetsCost, SynthesisSampleDirectEqualsComplexStepAndDifferences) {
  SensitivitySpec s;
  s.method = Method::Compare;
  s.analysis = Analysis::Kinematics;
  s.run.tEnd = 1;
  s.run.dt = 0.01;
  const SensitivityResult r = runSensitivity(test::sampleMechanism("four-bar-synthesis"), s);
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  ASSERT_EQ(r.methods.size(), 4u);
  const auto& ddm = r.methods[0].gradient;
  const auto& avm = r.methods[1].gradient;
  const auto& cs = r.methods[2].gradient;
  const auto& fd = r.methods[3].gradient;
  ASSERT_EQ(ddm.cols(), 5);
  EXPECT_NEAR(r.methods[1].values[0], r.methods[2].values[0], 1e-12 * r.methods[2].values[0]);
  for (Eigen::Index k = 0; k < ddm.cols(); ++k) {
    EXPECT_NEAR(ddm(0, k), cs(0, k), 1e-10 * (1 + std::abs(cs(0, k)))) << r.parameters[static_cast<std::size_t>(k)];
    EXPECT_NEAR(avm(0, k), cs(0, k), 1e-10 * (1 + std::abs(cs(0, k)))) << r.parameters[static_cast<std::size_t>(k)];
    EXPECT_NEAR(fd(0, k), cs(0, k), 1e-6 * (1 + std::abs(cs(0, k)))) << r.parameters[static_cast<std::size_t>(k)];
    EXPECT_GT(std::abs(cs(0, k)), 0.1) << "every dimension moves the coupler point: " << r.parameters[static_cast<std::size_t>(k)];
  }
}

TEST(TargetsCost, KinematicRunReportsTheSameValue) {
  const Mechanism m = test::sampleMechanism("four-bar-synthesis");
  Diagnostics d;
  const auto resolved = resolve(m, d);
  ASSERT_TRUE(resolved);
  analysis::KinematicsSpec k;
  k.mechanism = &m;
  k.tEnd = 1;
  k.dt = 0.01;
  const auto run = analysis::runKinematics(*resolved, k);
  ASSERT_TRUE(run.status.ok()) << run.status.message;
  ASSERT_TRUE(run.costProblem.empty()) << run.costProblem;
  ASSERT_EQ(run.costValues.size(), 1u);
  SensitivitySpec s;
  s.analysis = Analysis::Kinematics;
  s.run.tEnd = 1;
  s.run.dt = 0.01;
  const SensitivityResult r = runSensitivity(m, s);
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  EXPECT_NEAR(run.costValues[0], r.methods[0].values[0], 1e-9 * r.methods[0].values[0]);
}

TEST(TargetsCost, RefusalsNameTheCostAndTheReason) {
  // a target after the run's end
  SensitivitySpec s = kinematic(Method::Direct, 0.01);
  s.run.tEnd = 0.5;
  SensitivityResult r = runSensitivity(crankPinTargets({{0.2, {0, 0}}, {0.8, {0, 0}}}), s);
  ASSERT_FALSE(r.status.ok());
  EXPECT_NE(r.status.message.find("cost 'pin': target 2 at t = 0.8 s is after the run's end"), std::string::npos) << r.status.message;
  // a target with three coordinates in a planar mechanism, and an output that is not a point
  Mechanism m = crankPinTargets({{0.2, {0, 0, 0}}});
  Diagnostics d = validate(m);
  ASSERT_FALSE(d.empty());
  EXPECT_EQ(d.front().path, "costs[1].targets[0].at");
  m = crankPinTargets({{0.2, {0, 0}}});
  m.costs.back().output = "rocker_angle";
  d = validate(m);
  ASSERT_FALSE(d.empty());
  EXPECT_EQ(d.front().path, "costs[1].output");
  EXPECT_NE(d.front().message.find("not a point output"), std::string::npos) << d.front().message;
}

TEST(TargetsCost, FileRoundTripKeepsTargetsAndStudy) {
  const Mechanism m = test::sampleMechanism("four-bar-synthesis");
  ASSERT_EQ(m.costs.size(), 1u);
  ASSERT_EQ(m.costs[0].type, Cost::Type::Targets);
  ASSERT_EQ(m.costs[0].targets.size(), 5u);
  ASSERT_TRUE(m.study.present);
  EXPECT_EQ(m.study.analysis, "kinematics");
  const auto again = io::loadMechanismFromString(io::mechanismToString(m));
  ASSERT_TRUE(again.ok());
  const Cost& c = again.mechanism->costs[0];
  EXPECT_EQ(c.output, "P");
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(c.targets[i].t, m.costs[0].targets[i].t);
    EXPECT_EQ(c.targets[i].at, m.costs[0].targets[i].at);
  }
  EXPECT_EQ(again.mechanism->study.tuneCost, "target_error");
  EXPECT_EQ(again.mechanism->study.maxEvaluations, m.study.maxEvaluations);
  // out of order targets are refused with their path
  const auto bad = io::loadMechanismFromString(
      R"({"format": "linkwright-mechanism", "version": 1, "name": "x", "dimension": 2, "bodies": [],
          "outputs": [], "costs": [{"name": "c", "type": "targets", "output": "P", "targets": [{"t": 0.5, "at": [0, 0]}, {"t": 0.2, "at": [0, 0]}]}]})");
  ASSERT_FALSE(bad.ok());
  bool found = false;
  for (const auto& x : bad.diagnostics) found = found || x.path == "costs[0].targets[1].t";
  EXPECT_TRUE(found);
}

// a file's study that cannot be read: each problem named by its path
TEST(TargetsCost, StudyProblemsAreReportedWithTheirPath) {
  const std::string head = R"({"format": "linkwright-mechanism", "version": 1, "name": "x", "dimension": 2, "bodies": [], "study": )";
  const struct {
    const char* study;
    const char* path;
    const char* message;
  } cases[] = {
      {R"({"analysis": "statics"})", "study.analysis", "dynamics or kinematics, not 'statics'"},
      {R"({"method": "newton"})", "study.method", "ddm, avm, cs, fd or compare"},
      {R"({"costs": "psi"})", "study.costs", "expected an array of names"},
      {R"({"tuning": {"max_evaluations": 0}})", "study.tuning.max_evaluations", "a whole number from 1"},
      {R"({"tuning": {"constraints": [{"name": "c", "expression": "L1"}]}})", "study.tuning.constraints[0]", "needs a \"min\" or a \"max\""},
      {R"({"tuning": {"constraints": [{"name": "c", "expression": "L1", "min": 2, "max": 1}]}})", "study.tuning.constraints[0].max",
       "below the min"},
      {R"({"colour": 1})", "study", "colour"},
  };
  for (const auto& c : cases) {
    const auto r = io::loadMechanismFromString(head + c.study + "}");
    ASSERT_FALSE(r.ok()) << c.study;
    bool found = false;
    for (const auto& d : r.diagnostics) found = found || (d.path.rfind(c.path, 0) == 0 && d.message.find(c.message) != std::string::npos);
    EXPECT_TRUE(found) << c.study << ": " << (r.diagnostics.empty() ? std::string("no diagnostic") : r.diagnostics.front().path + ": " + r.diagnostics.front().message);
  }
}

}  // namespace
}  // namespace lw::sens
