// atan2 on jets (numeric/scalar.h): the angle of a point moving along a curve, its rate and its
// acceleration, against central differences of std::atan2 along the curve; on jets of dual
// numbers the derivative parts are those of the double jets' along a second direction.
#include <gtest/gtest.h>

#include <cmath>

#include "numeric/scalar.h"

namespace lw::num {
namespace {

// the point (x(s), y(s)) = (x0 + a s + b s², y0 + c s + e s²): jets at s = 0
struct Curve {
  double x0, a, b, y0, c, e;
  double x(double s) const { return x0 + a * s + b * s * s; }
  double y(double s) const { return y0 + c * s + e * s * s; }
};

TEST(JetAtan2, RateAndAccelerationAreThoseOfTheAngle) {
  const Curve curves[] = {{1.0, 0.3, -0.2, 0.5, -0.7, 0.4}, {-0.8, 1.1, 0.6, 0.2, 0.9, -1.3}, {0.1, -0.4, 0.0, -2.0, 0.3, 0.8}};
  for (const Curve& k : curves) {
    const kin::Jet x(k.x0, k.a, 2 * k.b), y(k.y0, k.c, 2 * k.e);
    const kin::Jet q = atan2(y, x);
    const double h = 1e-4;
    auto angle = [&](double s) { return std::atan2(k.y(s), k.x(s)); };
    EXPECT_NEAR(q.v, angle(0), 1e-15);
    EXPECT_NEAR(q.d, (angle(h) - angle(-h)) / (2 * h), 1e-7);
    EXPECT_NEAR(q.dd, (angle(h) - 2 * angle(0) + angle(-h)) / (h * h), 1e-5);
  }
}

TEST(JetAtan2, DualPartsDifferentiateTheJet) {
  // y and x move with a parameter ρ too: the dual parts of every jet part are d/dρ of it
  const double h = 1e-6;
  auto jetAt = [](double rho) {
    const kin::Jet x(1.0 + rho, 0.3 * rho, -0.2), y(0.5 - 2 * rho, -0.7, 0.4 * rho);
    return atan2(y, x);
  };
  Dual8 rho(0.0);
  rho.g[0] = 1;
  const kin::BasicJet<Dual8> x(Dual8(1.0) + rho, rho * 0.3, Dual8(-0.2)), y(Dual8(0.5) - rho * 2.0, Dual8(-0.7), rho * 0.4);
  const kin::BasicJet<Dual8> q = atan2(y, x);
  const kin::Jet p = jetAt(h), m = jetAt(-h);
  EXPECT_NEAR(q.v.g[0], (p.v - m.v) / (2 * h), 1e-8);
  EXPECT_NEAR(q.d.g[0], (p.d - m.d) / (2 * h), 1e-8);
  EXPECT_NEAR(q.dd.g[0], (p.dd - m.dd) / (2 * h), 1e-8);
}

}  // namespace
}  // namespace lw::num
