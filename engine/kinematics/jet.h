// Second-order forward-mode scalar along one direction: value, first and second derivative of
// s -> f(x + s·v) at s = 0. One evaluation of a constraint on Jets gives a Jacobian column (v = a
// unit vector), Φ_t (v = time), or the acceleration term Φ̇_q q̇ + Φ̇_t (v = (q̇, 1)).
#pragma once

#include <cmath>

namespace lw::kin {

struct Jet {
  double v = 0;   // value
  double d = 0;   // first derivative
  double dd = 0;  // second derivative

  constexpr Jet() = default;
  constexpr Jet(double value) : v(value) {}  // NOLINT: constants mix with jets
  constexpr Jet(double value, double d1, double d2) : v(value), d(d1), dd(d2) {}

  friend constexpr Jet operator+(const Jet& a, const Jet& b) { return {a.v + b.v, a.d + b.d, a.dd + b.dd}; }
  friend constexpr Jet operator-(const Jet& a, const Jet& b) { return {a.v - b.v, a.d - b.d, a.dd - b.dd}; }
  friend constexpr Jet operator-(const Jet& a) { return {-a.v, -a.d, -a.dd}; }
  friend constexpr Jet operator*(const Jet& a, const Jet& b) {
    return {a.v * b.v, a.v * b.d + a.d * b.v, a.v * b.dd + 2 * a.d * b.d + a.dd * b.v};
  }
  friend constexpr Jet operator/(const Jet& a, const Jet& b) {
    const double inv = 1 / b.v;
    const double q = a.v * inv;
    const double q1 = (a.d - q * b.d) * inv;
    return {q, q1, (a.dd - 2 * q1 * b.d - q * b.dd) * inv};
  }
  Jet& operator+=(const Jet& o) { return *this = *this + o; }
  Jet& operator-=(const Jet& o) { return *this = *this - o; }
  Jet& operator*=(const Jet& o) { return *this = *this * o; }
};

inline Jet sin(const Jet& a) {
  const double s = std::sin(a.v), c = std::cos(a.v);
  return {s, c * a.d, c * a.dd - s * a.d * a.d};
}
inline Jet cos(const Jet& a) {
  const double s = std::sin(a.v), c = std::cos(a.v);
  return {c, -s * a.d, -s * a.dd - c * a.d * a.d};
}
inline Jet sqrt(const Jet& a) {
  const double r = std::sqrt(a.v);
  const double r1 = a.d / (2 * r);
  return {r, r1, (a.dd - 2 * r1 * r1) / (2 * r)};
}

inline double value(double x) { return x; }
inline double value(const Jet& x) { return x.v; }

}  // namespace lw::kin
