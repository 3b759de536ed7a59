// The adjoint of costs taken at some points of the run only: a minimum or maximum (the step where
// the extreme is reached) and targets (terms at given times, the outputs interpolated between
// steps). The forward run tells the adjoint where; the backward sweep adds each term at its node
// (a target between steps on both neighbours, also across a checkpoint). Checked against the complex
// step and the direct method, for both formulations and both integrators, through impacts.
#include <gtest/gtest.h>

#include <cmath>

#include "sensitivity/sensitivity.h"
#include "support/costs.h"
#include "support/samples.h"

namespace lw::sens {
namespace {

Cost extreme(const std::string& name, Cost::Type type, const std::string& expression) { return test::expressionCost(name, type, expression); }

Cost targets(const std::string& name, const std::string& output, std::vector<Cost::Target> at) {
  Cost c;
  c.name = name;
  c.type = Cost::Type::Targets;
  c.output = output;
  c.targets = std::move(at);
  return c;
}

void expectNear(const SensitivityResult& r, const Gradient& a, const Gradient& b, double rtol, const std::string& what) {
  ASSERT_EQ(a.gradient.rows(), b.gradient.rows());
  ASSERT_EQ(a.gradient.cols(), b.gradient.cols());
  for (Eigen::Index k = 0; k < a.gradient.rows(); ++k) {
    const auto kk = static_cast<std::size_t>(k);
    EXPECT_NEAR(a.values[kk], b.values[kk], 1e-12 * std::max(1.0, std::abs(b.values[kk]))) << what << " " << r.costs[kk];
    const double scale = std::max(1.0, b.gradient.row(k).cwiseAbs().maxCoeff());
    for (Eigen::Index j = 0; j < a.gradient.cols(); ++j)
      EXPECT_NEAR(a.gradient(k, j), b.gradient(k, j), rtol * scale)
          << what << " " << r.costs[kk] << " d/d" << r.parameters[static_cast<std::size_t>(j)] << " " << toString(a.method);
  }
}

struct Case {
  const char* sample;
  analysis::Formulation formulation;
  analysis::Integrator integrator;
  double tEnd, dt;
  std::vector<Cost> costs;
};

TEST(SampledCostAdjoint, EqualsTheComplexStepAndTheDirectMethod) {
  using F = analysis::Formulation;
  using I = analysis::Integrator;
  // targets between steps (3/10 and 7/10 into one) and at a step; extremes reached at impacts
  // (just before and just after: the same time, two nodes) and between them
  const std::vector<Case> cases{
      {"five-bar", F::MatrixR, I::Trapezoidal, 0.4, 2e-3,
       {extreme("lowest_speed", Cost::Type::Minimum, "v2.y"), extreme("highest_speed", Cost::Type::Maximum, "v2.y"),
        extreme("rightmost", Cost::Type::Maximum, "p2.x"), targets("through", "p2", {{0.1006, {0.1, -2}}, {0.2, {0, -2.3}}, {0.3514, {0.2, -2.2}}})}},
      {"five-bar", F::Penalty, I::Trapezoidal, 0.4, 1e-3,
       {extreme("lowest_speed", Cost::Type::Minimum, "v2.y"), extreme("highest_speed", Cost::Type::Maximum, "v2.y"),
        targets("through", "p2", {{0.1003, {0.1, -2}}, {0.3517, {0.2, -2.2}}})}},
      {"bouncing-ball-t1", F::MatrixR, I::RK45, 1.3, 5e-3,
       {extreme("highest_after", Cost::Type::Maximum, "v.y"), extreme("lowest", Cost::Type::Minimum, "p.y + 0.1*v.y"),
        targets("through", "p", {{0.4013, {0, 0.3}}, {1.2, {0, 0.1}}})}},
      {"ten-bar-chain", F::MatrixR, I::Trapezoidal, 0.25, 2e-3,
       {extreme("farthest", Cost::Type::Maximum, "end.x"), targets("through", "end", {{0.1234, {1, -2}}, {0.2017, {0.5, -2.5}}})}},
  };
  for (const Case& c : cases) {
    Mechanism m = test::sampleMechanism(c.sample);
    m.costs = c.costs;
    SensitivitySpec s;
    s.run.formulation = c.formulation;
    s.run.integrator = c.integrator;
    s.run.tEnd = c.tEnd;
    s.run.dt = c.dt;
    s.run.tol = 1e-10;
    s.checkpointEvery = 7;  // targets' neighbours fall in different segments
    if (std::string(c.sample) == "ten-bar-chain") s.parameters = {"m_1", "m_5", "l_3", "l_10"};
    const std::string what = std::string(c.sample) + (c.formulation == F::Penalty ? " penalty" : "") + (c.integrator == I::RK45 ? " rk45" : "");
    SensitivityResult r[3];
    const Method methods[3] = {Method::ComplexStep, Method::Direct, Method::Adjoint};
    for (int i = 0; i < 3; ++i) {
      s.method = methods[i];
      r[i] = runSensitivity(m, s);
      ASSERT_TRUE(r[i].status.ok()) << what << " " << toString(methods[i]) << ": " << r[i].status.message;
    }
    const Gradient& cs = r[0].methods[0];
    ASSERT_GT(cs.gradient.cwiseAbs().maxCoeff(), 1e-3) << what;
    expectNear(r[0], r[1].methods[0], cs, c.formulation == F::Penalty ? 1e-7 : 1e-8, what);
    expectNear(r[0], r[2].methods[0], cs, c.formulation == F::Penalty ? 1e-7 : 1e-8, what);
  }
}

TEST(SampledCostAdjoint, AnExtremeAtTheStartTakesTheInitialSensitivities) {
  // the ball starts at its highest: max p.y is y0 itself, dψ/dy0 = 1 and nothing else
  Mechanism m = test::sampleMechanism("bouncing-ball-t1");
  m.costs = {extreme("top", Cost::Type::Maximum, "p.y")};
  SensitivitySpec s;
  s.method = Method::Adjoint;
  s.run.tEnd = 1.3;
  s.run.dt = 2e-3;
  const SensitivityResult r = runSensitivity(m, s);
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  ASSERT_EQ(r.parameters.size(), 4u);
  EXPECT_EQ(r.parameters[0], "y0");
  EXPECT_NEAR(r.methods[0].gradient(0, 0), 1.0, 1e-12);
  for (Eigen::Index j = 1; j < 4; ++j) EXPECT_NEAR(r.methods[0].gradient(0, j), 0.0, 1e-12) << r.parameters[static_cast<std::size_t>(j)];
}

}  // namespace
}  // namespace lw::sens
