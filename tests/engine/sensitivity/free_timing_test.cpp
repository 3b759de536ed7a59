// Targets with free timing (path generation, issue 36): each target counts where the point passes
// nearest to it over the run, along the path between steps. Value and gradient against a closed
// form: the synthesis sample's crank pin B = L1 (cos θ, sin θ) runs, between steps Δ = 2π/100
// apart, along the chords of its circle. A target outside on the ray of a step is nearest to that
// step's point: (R − L1)², derivative −2 (R − L1); one inside is nearest to the chords beside it,
// at (L1 − R) cos(Δ/2) from them: its term ((L1 − R) cos(Δ/2))², derivative 2 (L1 − R) cos²(Δ/2).
// Every method alike; under dynamics the direct method, the adjoint and central differences agree;
// the file keeps the timing.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "io/mechanism_io.h"
#include "sensitivity/sensitivity.h"
#include "support/samples.h"

namespace lw::sens {
namespace {

// targets at radius 1.0 on the ray of step t = 0.08 and at radius 0.5 on that of t = 0.33, given
// in that order with times that are wrong on purpose (free timing ignores them)
Mechanism withFreeTargets() {
  Mechanism m = test::sampleMechanism("four-bar-synthesis");
  Output o;
  o.name = "B";
  o.type = Output::Type::PointPosition;
  o.point = Ref{"crank", "B"};
  m.outputs.push_back(o);
  Cost c;
  c.name = "through";
  c.type = Cost::Type::Targets;
  c.timing = Cost::Timing::Free;
  c.output = "B";
  for (const auto& [t, radius] : {std::pair{0.08, 1.0}, std::pair{0.33, 0.5}}) {
    const double theta = std::numbers::pi / 3 + 2 * std::numbers::pi * t;
    c.targets.push_back({0.9, {radius * std::cos(theta), radius * std::sin(theta)}});
  }
  m.costs = {c};
  return m;
}

TEST(FreeTimingTargets, ValueAndGradientAreTheNearestStepsClosedForm) {
  const Mechanism m = withFreeTargets();
  for (Method method : {Method::Direct, Method::Adjoint, Method::ComplexStep, Method::FiniteDifferences}) {
    SensitivitySpec s;
    s.method = method;
    s.analysis = Analysis::Kinematics;
    s.run.tEnd = 1;
    s.run.dt = 0.01;
    const SensitivityResult r = runSensitivity(m, s);
    ASSERT_TRUE(r.status.ok()) << r.status.message;
    ASSERT_EQ(r.parameters[0], "L1");
    const double L1 = 0.8, c = std::cos(std::numbers::pi / 100);
    EXPECT_NEAR(r.methods[0].values[0], (1.0 - L1) * (1.0 - L1) + (L1 - 0.5) * (L1 - 0.5) * c * c, 1e-12) << toString(method);
    const double tolerance = method == Method::FiniteDifferences ? 1e-7 : 1e-11;
    EXPECT_NEAR(r.methods[0].gradient(0, 0), -2 * (1.0 - L1) + 2 * (L1 - 0.5) * c * c, tolerance) << toString(method);
    for (Eigen::Index k = 1; k < r.methods[0].gradient.cols(); ++k)
      EXPECT_NEAR(r.methods[0].gradient(0, k), 0, tolerance) << r.parameters[static_cast<std::size_t>(k)];
  }
}

TEST(FreeTimingTargets, UnderDynamicsTheDirectMethodTheAdjointAndDifferencesAgree) {
  Mechanism m = test::withoutContacts(test::sampleMechanism("five-bar"));
  Cost c;
  c.name = "through";
  c.type = Cost::Type::Targets;
  c.timing = Cost::Timing::Free;
  c.output = "p2";
  c.targets = {{0, {0.6, 1.2}}, {0, {1.5, 0.2}}};
  m.costs = {c};
  SensitivitySpec s;
  s.run.tEnd = 0.25;
  s.run.dt = 1e-3;
  s.method = Method::Compare;
  const SensitivityResult r = runSensitivity(m, s);
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  const Gradient* direct = nullptr;
  const Gradient* adjoint = nullptr;
  const Gradient* differences = nullptr;
  for (const auto& g : r.methods) {
    if (g.method == Method::Direct) direct = &g;
    if (g.method == Method::Adjoint) adjoint = &g;
    if (g.method == Method::FiniteDifferences) differences = &g;
  }
  ASSERT_TRUE(direct && adjoint && differences);
  ASSERT_GT(direct->gradient.cwiseAbs().maxCoeff(), 1e-3);
  for (Eigen::Index k = 0; k < direct->gradient.cols(); ++k) {
    const double scale = direct->gradient.cwiseAbs().maxCoeff();
    EXPECT_NEAR(adjoint->gradient(0, k), direct->gradient(0, k), 1e-9 * scale) << r.parameters[static_cast<std::size_t>(k)];
    EXPECT_NEAR(differences->gradient(0, k), direct->gradient(0, k), 1e-5 * scale) << r.parameters[static_cast<std::size_t>(k)];
  }
}

TEST(FreeTimingTargets, TheFileKeepsTheTimingAndNeedsNoTimes) {
  const auto loaded = io::loadMechanismFromString(io::mechanismToString(withFreeTargets()));
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded.mechanism->costs[0].timing, Cost::Timing::Free);
  EXPECT_NE(io::mechanismToString(withFreeTargets()).find("\"timing\": \"free\""), std::string::npos);
  // free targets need no "t", and may come in any order
  std::string text = io::mechanismToString(withFreeTargets());
  const auto at = text.find("\"t\": 0.9,");
  ASSERT_NE(at, std::string::npos);
  text.erase(at, std::string("\"t\": 0.9,").size());
  const auto back = io::loadMechanismFromString(text);
  ASSERT_TRUE(back.ok()) << (back.diagnostics.empty() ? "" : back.diagnostics[0].format());
  // prescribed targets still need their times
  std::string prescribed = text;
  prescribed.erase(prescribed.find("\"timing\": \"free\","), std::string("\"timing\": \"free\",").size());
  EXPECT_FALSE(io::loadMechanismFromString(prescribed).ok());
}

}  // namespace
}  // namespace lw::sens
