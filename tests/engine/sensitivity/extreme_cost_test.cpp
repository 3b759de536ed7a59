// Minimum and maximum costs (the least or greatest value of an expression at the run's steps):
// value and gradient against a closed form (the crank pin B = L1 (cos θ, sin θ) of the synthesis
// sample, whose extremes fall at known steps), the worst transmission angle differentiated by the
// direct method against the complex step and central differences and bounded by the angle swept
// exactly, the adjoint equal to the direct method, the file round trip, and a tuning constrained by
// such a cost (a constraint naming a cost, its gradient from the same run).
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <optional>

#include "io/mechanism_io.h"
#include "optimize/optimize.h"
#include "sensitivity/sensitivity.h"
#include "support/costs.h"
#include "support/samples.h"

namespace lw::sens {
namespace {

Cost extreme(const std::string& name, Cost::Type type, const std::string& expression) { return test::expressionCost(name, type, expression); }

// the transmission angle at C between CB and CD, folded into [0, 90°]: asin |u × v| / (|u| |v|)
constexpr const char* kTransmission = "asin(abs((B.x - C.x)*(D.y - C.y) - (B.y - C.y)*(D.x - C.x)) / (L2*L3)) * 180/pi";

// the synthesis sample with outputs on the crank pin B, the rocker's pins C and D, and costs: the
// highest B, the leftmost B and the worst transmission angle over the turn
Mechanism withExtremes() {
  Mechanism m = test::sampleMechanism("four-bar-synthesis");
  for (const auto& [name, body] : {std::pair{"B", "crank"}, {"C", "rocker"}, {"D", "rocker"}}) {
    Output o;
    o.name = name;
    o.type = Output::Type::PointPosition;
    o.point = Ref{body, name};
    m.outputs.push_back(o);
  }
  m.costs.push_back(extreme("highest_pin", Cost::Type::Maximum, "B.y"));
  m.costs.push_back(extreme("leftmost_pin", Cost::Type::Minimum, "B.x"));
  m.costs.push_back(extreme("worst_transmission", Cost::Type::Minimum, kTransmission));
  return m;
}

SensitivitySpec kinematic(Method method, std::vector<std::string> costs) {
  SensitivitySpec s;
  s.method = method;
  s.analysis = Analysis::Kinematics;
  s.costs = std::move(costs);
  s.run.tEnd = 1;
  s.run.dt = 0.01;
  return s;
}

TEST(ExtremeCost, ValueAndGradientAreTheExtremeStepSClosedForm) {
  const SensitivityResult r = runSensitivity(withExtremes(), kinematic(Method::Direct, {"highest_pin", "leftmost_pin"}));
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  ASSERT_EQ(r.parameters[0], "L1");
  // θ = π/3 + 2π t: the steps nearest θ = π/2 (highest) and θ = π (leftmost) are t = 0.08 and 0.33
  const double L1 = 0.8, up = std::numbers::pi / 3 + 2 * std::numbers::pi * 0.08, left = std::numbers::pi / 3 + 2 * std::numbers::pi * 0.33;
  EXPECT_NEAR(r.methods[0].values[0], L1 * std::sin(up), 1e-12);
  EXPECT_NEAR(r.methods[0].gradient(0, 0), std::sin(up), 1e-10);
  EXPECT_NEAR(r.methods[0].values[1], L1 * std::cos(left), 1e-12);
  EXPECT_NEAR(r.methods[0].gradient(1, 0), std::cos(left), 1e-10);
  for (Eigen::Index k = 1; k < r.methods[0].gradient.cols(); ++k) {
    EXPECT_NEAR(r.methods[0].gradient(0, k), 0.0, 1e-10) << r.parameters[static_cast<std::size_t>(k)] << " does not move the crank pin";
    EXPECT_NEAR(r.methods[0].gradient(1, k), 0.0, 1e-10);
  }
}

TEST(ExtremeCost, WorstTransmissionByDdmEqualsComplexStepAndDifferences) {
  const Mechanism m = withExtremes();
  const auto ddm = runSensitivity(m, kinematic(Method::Direct, {"worst_transmission"}));
  const auto cs = runSensitivity(m, kinematic(Method::ComplexStep, {"worst_transmission"}));
  const auto fd = runSensitivity(m, kinematic(Method::FiniteDifferences, {"worst_transmission"}));
  ASSERT_TRUE(ddm.status.ok() && cs.status.ok() && fd.status.ok()) << ddm.status.message << cs.status.message << fd.status.message;
  const double worst = ddm.methods[0].values[0];
  // the crank-rocker a = 0.8, b = 3.1, c = 3.4, d = 4: the exact worst angle, with the input
  // folded over the ground (diagonal d − a), is the least the sampled run can see
  const double exact = std::acos((3.1 * 3.1 + 3.4 * 3.4 - 3.2 * 3.2) / (2 * 3.1 * 3.4)) * 180 / std::numbers::pi;
  EXPECT_GE(worst, exact - 1e-9);
  EXPECT_LT(worst, exact + 0.3);
  double largest = 0;
  for (Eigen::Index k = 0; k < ddm.methods[0].gradient.cols(); ++k) largest = std::max(largest, std::abs(ddm.methods[0].gradient(0, k)));
  ASSERT_GT(largest, 1.0);  // degrees per metre: the lengths move the worst angle
  for (Eigen::Index k = 0; k < ddm.methods[0].gradient.cols(); ++k) {
    const double g = ddm.methods[0].gradient(0, k);
    EXPECT_NEAR(g, cs.methods[0].gradient(0, k), 1e-8 * largest) << ddm.parameters[static_cast<std::size_t>(k)];
    EXPECT_NEAR(g, fd.methods[0].gradient(0, k), 1e-5 * largest) << ddm.parameters[static_cast<std::size_t>(k)];
  }
}

TEST(ExtremeCost, TheAdjointEqualsTheDirectMethodAndTheFileKeepsIt) {
  const Mechanism m = withExtremes();
  const std::vector<std::string> costs{"highest_pin", "leftmost_pin", "worst_transmission"};
  const auto ddm = runSensitivity(m, kinematic(Method::Direct, costs));
  for (long every : {1L, 4L, 0L}) {
    SensitivitySpec s = kinematic(Method::Adjoint, costs);
    s.checkpointEvery = every;
    const auto avm = runSensitivity(m, s);
    ASSERT_TRUE(ddm.status.ok() && avm.status.ok()) << ddm.status.message << avm.status.message;
    for (Eigen::Index k = 0; k < 3; ++k) {
      EXPECT_NEAR(avm.methods[0].values[static_cast<std::size_t>(k)], ddm.methods[0].values[static_cast<std::size_t>(k)], 1e-12);
      const double scale = std::max(1.0, ddm.methods[0].gradient.row(k).cwiseAbs().maxCoeff());
      for (Eigen::Index j = 0; j < ddm.methods[0].gradient.cols(); ++j)
        EXPECT_NEAR(avm.methods[0].gradient(k, j), ddm.methods[0].gradient(k, j), 1e-10 * scale) << costs[static_cast<std::size_t>(k)] << " " << j;
    }
  }
  const auto back = io::loadMechanismFromString(io::mechanismToString(m));
  ASSERT_TRUE(back.mechanism.has_value());
  ASSERT_EQ(back.mechanism->costs.size(), m.costs.size());
  EXPECT_EQ(back.mechanism->costs[1].type, Cost::Type::Maximum);
  EXPECT_EQ(back.mechanism->costs[3].type, Cost::Type::Minimum);
  EXPECT_EQ(back.mechanism->costs[3].expression.text(), kTransmission);
}

// the sample's synthesis tuned with one constraint: `expression` at least `min` or at most `max`,
// and the tuned mechanism
opt::OptimizeResult tunedWith(const Mechanism& m, const std::string& expression, std::optional<double> min, std::optional<double> max,
                              Mechanism& tuned) {
  std::string error;
  opt::OptimizeSpec spec = opt::specFromStudy(m, error);
  TuningConstraint k;
  k.name = "limit";
  k.expression = Expression::parseOrThrow(expression);
  if (min) k.hasMin = true, k.min = *min;
  if (max) k.hasMax = true, k.max = *max;
  spec.constraints = {k};
  opt::OptimizeResult r = opt::optimize(m, spec);
  tuned = m;
  if (r.status.ok() && !opt::setParameters(tuned, r.parameters, r.best).ok()) r.status = failure(Status::Code::NotConverged, 0, "the tuned design");
  return r;
}

TEST(ExtremeCost, ATuningConstraintOnACostHoldsAtTheAnswer) {
  // the highest crank pin at most 0.9 m: L1 sin θ(0.08) ≤ 0.9, while the targets want L1 = 1
  const Mechanism m = withExtremes();
  Mechanism tuned;
  const opt::OptimizeResult r = tunedWith(m, "highest_pin", std::nullopt, 0.9, tuned);
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  EXPECT_TRUE(r.notes.empty()) << r.notes.front();
  EXPECT_LT(r.bestCost, r.initialCost / 10);
  EXPECT_GT(r.bestCost, 1e-6);  // the targets cannot all be met
  const double up = std::sin(std::numbers::pi / 3 + 2 * std::numbers::pi * 0.08);
  EXPECT_NEAR(r.best[0], 0.9 / up, 1e-7) << "active: L1 at the height's limit";
  // KKT with a fresh gradient: ∇ψ = −λ ∇(highest pin); only L1 moves the pin, so the other
  // parameters are stationary and ∂ψ/∂L1 < 0
  SensitivitySpec s = kinematic(Method::Direct, {"target_error", "highest_pin"});
  s.parameters = r.parameters;
  const auto at = runSensitivity(tuned, s);
  ASSERT_TRUE(at.status.ok());
  EXPECT_NEAR(at.methods[0].values[1], 0.9, 1e-8);
  const auto& G = at.methods[0].gradient;
  EXPECT_LT(G(0, 0), 0);
  for (Eigen::Index j = 1; j < 5; ++j) EXPECT_LT(std::abs(G(0, j)), 1e-4 * std::abs(G(0, 0))) << r.parameters[static_cast<std::size_t>(j)];
}

TEST(ExtremeCost, AConstraintOnAWorstAngleEndsAtTheDesignNearestToIt) {
  // the worst transmission angle at least 60° (the start has 58.8°): a minimum over steps changes
  // its step as the design moves, so SLSQP meets it to within that change; the nearest design is kept
  const Mechanism m = withExtremes();
  Mechanism tuned;
  const opt::OptimizeResult r = tunedWith(m, "worst_transmission", 60, std::nullopt, tuned);
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  EXPECT_LT(r.bestCost, r.initialCost / 100);
  const auto at = runSensitivity(tuned, kinematic(Method::Direct, {"worst_transmission"}));
  ASSERT_TRUE(at.status.ok());
  EXPECT_GT(at.methods[0].values[0], 60 - 0.1);
}

}  // namespace
}  // namespace lw::sens
