// Four-bar limits for tuning: the Grashof and transmission-angle constraints written as parameter
// expressions equal what the linkage does (the transmission angle's extremes checked against the
// angle at the assembled positions over a whole turn, solved here by circle intersection), and a
// synthesis tuned with them ends at a design that meets them.
#include "optimize/four_bar_limits.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "mechanism/parameters.h"
#include "optimize/optimize.h"
#include "support/samples.h"
#include "topology/four_bar.h"

namespace lw::opt {
namespace {

double value(const Mechanism& m, const Expression& e) {
  Diagnostics d;
  const auto table = ParameterTable::build(m, d);
  EXPECT_TRUE(table.has_value());
  const std::vector<std::string> slots(table->names().begin(), table->names().end());
  return e.bind(slots)(std::span<const double>(table->values()));
}

// the transmission angle's extremes (degrees) over a turn of the input, from the linkage's
// positions: ground pivots A = 0, D = (d, 0); B on the crank; C where the circles about B (b) and
// D (c) meet, on the branch of the stored configuration; μ between CB and CD
std::pair<double, double> sweptTransmission(double a, double b, double c, double d) {
  double lo = 180, hi = 0;
  for (int i = 0; i < 20000; ++i) {
    const double th = 2 * std::numbers::pi * i / 20000;
    const double bx = a * std::cos(th), by = a * std::sin(th);
    const double ex = d - bx, ey = -by, e = std::hypot(ex, ey);
    const double along = (b * b - c * c + e * e) / (2 * e), off = std::sqrt(std::max(0.0, b * b - along * along));
    const double cx = bx + (along * ex - off * ey) / e, cy = by + (along * ey + off * ex) / e;
    const double ux = bx - cx, uy = by - cy, vx = d - cx, vy = -cy;
    const double mu = std::acos((ux * vx + uy * vy) / (std::hypot(ux, uy) * std::hypot(vx, vy))) * 180 / std::numbers::pi;
    lo = std::min(lo, mu), hi = std::max(hi, mu);
  }
  return {lo, hi};
}

TEST(FourBarLimits, TheExpressionsAreTheLinkageSGrashofConditionsAndTransmissionExtremes) {
  const Mechanism m = test::sampleMechanism("four-bar-synthesis");
  std::string error;
  const auto limits = fourBarLimits(m, 40, error);
  ASSERT_EQ(limits.size(), 1u) << error;
  EXPECT_EQ(limits[0].loop, "crank–coupler–rocker");
  ASSERT_EQ(limits[0].turns.size(), 2u);
  ASSERT_EQ(limits[0].transmission.size(), 2u);
  const std::vector<TuningConstraint> k{limits[0].turns[0], limits[0].turns[1], limits[0].transmission[0], limits[0].transmission[1]};
  EXPECT_EQ(k[0].name, "turns_sum");  // one loop: no link name in front
  EXPECT_EQ(k[3].name, "mu_stretched");
  EXPECT_EQ(k[0].expression.text(), "L2 + L3 - L1 - 4");  // the ground's length is a number here
  // the sample's design: a = 0.8, b = 3.1, c = 3.4, d = 4 (a crank-rocker)
  const double a = 0.8, b = 3.1, c = 3.4, d = 4;
  EXPECT_NEAR(value(m, k[0].expression), b + c - a - d, 1e-12);
  EXPECT_NEAR(value(m, k[1].expression), std::abs(a - d) - std::abs(b - c), 1e-12);
  const auto [lo, hi] = sweptTransmission(a, b, c, d);
  EXPECT_NEAR(std::acos(value(m, k[2].expression)) * 180 / std::numbers::pi, lo, 1e-3);
  EXPECT_NEAR(std::acos(value(m, k[3].expression)) * 180 / std::numbers::pi, hi, 1e-3);
  EXPECT_EQ(k[2].max, 0.766);  // cos 40° to four decimals
  EXPECT_EQ(k[3].min, -0.766);
  // without a transmission limit: the Grashof pair only
  EXPECT_TRUE(fourBarLimits(m, 0, error)[0].transmission.empty());
}

TEST(FourBarLimits, AShortGroundIsADragLinkAndFailsTheTurnConditionWhenTheInputCannotTurn) {
  Mechanism m = test::sampleMechanism("four-bar-synthesis");
  std::string error;
  const auto limits = fourBarLimits(m, 40, error);
  ASSERT_EQ(limits.size(), 1u);
  // L1 = 3.9 (input nearly as long as the ground: a double rocker's input): the difference
  // condition |a − d| ≥ |b − c| fails, as the topology's Grashof type says
  for (auto& p : m.parameters)
    if (p.name == "L1") p.value = Number(3.9), p.max = 4;
  EXPECT_LT(value(m, limits[0].turns[1].expression), 0);
}

TEST(FourBarLimits, ASynthesisTunedWithThemMeetsThemAtTheEnd) {
  const Mechanism m = test::sampleMechanism("four-bar-synthesis");
  std::string error;
  // the targets' design (1, 3.5, 3, d = 4) has a 54° minimum transmission angle: ask for 60°
  const auto limits = fourBarLimits(m, 60, error);
  ASSERT_EQ(limits.size(), 1u);
  OptimizeSpec spec = specFromStudy(m, error);
  spec.constraints = limits[0].turns;
  spec.constraints.insert(spec.constraints.end(), limits[0].transmission.begin(), limits[0].transmission.end());
  const OptimizeResult r = optimize(m, spec);
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  EXPECT_LT(r.bestCost, r.initialCost / 10);
  EXPECT_GT(r.bestCost, 1e-6);  // the targets cannot all be met at 60°
  Mechanism tuned = m;
  ASSERT_TRUE(setParameters(tuned, r.parameters, r.best).ok());
  Diagnostics d;
  const auto resolved = resolve(tuned, d);
  ASSERT_TRUE(resolved.has_value());
  const auto loops = topology::fourBarLoops(*resolved);
  ASSERT_EQ(loops.size(), 1u);
  EXPECT_EQ(loops[0].type, "crank-rocker");
  const auto [lo, hi] = sweptTransmission(loops[0].crank, loops[0].link, loops[0].rocker, loops[0].ground);
  EXPECT_GE(lo, 60 - 1e-2);  // cos 60° = 0.5 exactly: the limit is the angle's
  EXPECT_LE(hi, 120 + 1e-2);
  EXPECT_LT(lo, 60 + 0.5) << "the limit is active at the answer: the targets pull the design toward 54°";
}

}  // namespace
}  // namespace lw::opt
