// Second-order forward-mode scalar along one direction: value, first and second derivative of
// s -> f(x + s·v) at s = 0. One evaluation of a constraint on Jets gives a Jacobian column (v = a
// unit vector), Φ_t (v = time), or the acceleration term Φ̇_q q̇ + Φ̇_t (v = (q̇, 1)).
//
// The jet is generic in its scalar so the time derivatives of the recursive kinematics (velocities,
// accelerations with z̈ = 0) can themselves be differentiated: BasicJet<Dual<N>> gives ∂Q/∂[z; ż].
#pragma once

#include <cmath>
#include <type_traits>

#ifndef LW_INLINE
#define LW_INLINE [[gnu::always_inline]] inline
#endif

namespace lw::kin {

template <class S>
struct BasicJet {
  S v{};   // value
  S d{};   // first derivative
  S dd{};  // second derivative

  constexpr BasicJet() = default;
  // constants mix with jets: anything convertible to the scalar (double, int) is a constant jet
  template <class U, class = std::enable_if_t<std::is_convertible_v<U, S>>>
  constexpr BasicJet(const U& value) : v(value), d(0.0), dd(0.0) {}  // NOLINT
  constexpr BasicJet(const S& value, const S& d1, const S& d2) : v(value), d(d1), dd(d2) {}

  LW_INLINE friend constexpr BasicJet operator+(const BasicJet& a, const BasicJet& b) { return {a.v + b.v, a.d + b.d, a.dd + b.dd}; }
  LW_INLINE friend constexpr BasicJet operator-(const BasicJet& a, const BasicJet& b) { return {a.v - b.v, a.d - b.d, a.dd - b.dd}; }
  LW_INLINE friend constexpr BasicJet operator-(const BasicJet& a) { return {-a.v, -a.d, -a.dd}; }
  LW_INLINE friend constexpr BasicJet operator*(const BasicJet& a, const BasicJet& b) {
    return {a.v * b.v, a.v * b.d + a.d * b.v, a.v * b.dd + (a.d * b.d) * 2.0 + a.dd * b.v};
  }
  // a constant factor: no products of derivatives
  LW_INLINE friend constexpr BasicJet operator*(const BasicJet& a, double s) { return {a.v * s, a.d * s, a.dd * s}; }
  LW_INLINE friend constexpr BasicJet operator*(double s, const BasicJet& a) { return {a.v * s, a.d * s, a.dd * s}; }
  LW_INLINE friend constexpr BasicJet operator/(const BasicJet& a, const BasicJet& b) {
    const S inv = 1.0 / b.v;
    const S q = a.v * inv;
    const S q1 = (a.d - q * b.d) * inv;
    return {q, q1, (a.dd - (q1 * b.d) * 2.0 - q * b.dd) * inv};
  }
  BasicJet& operator+=(const BasicJet& o) { return *this = *this + o; }
  BasicJet& operator-=(const BasicJet& o) { return *this = *this - o; }
  BasicJet& operator*=(const BasicJet& o) { return *this = *this * o; }
};

// products with a constant of the jet's own scalar (a model number on a dual number or a complex
// step): no products of derivatives
template <class S>
  requires(!std::is_same_v<S, double>)
LW_INLINE BasicJet<S> operator*(const BasicJet<S>& a, const S& s) {
  return {a.v * s, a.d * s, a.dd * s};
}
template <class S>
  requires(!std::is_same_v<S, double>)
LW_INLINE BasicJet<S> operator*(const S& s, const BasicJet<S>& a) {
  return {a.v * s, a.d * s, a.dd * s};
}

template <class S>
BasicJet<S> sin(const BasicJet<S>& a) {
  using std::sin, std::cos;
  const S s = sin(a.v), c = cos(a.v);
  return {s, c * a.d, c * a.dd - s * a.d * a.d};
}
template <class S>
BasicJet<S> cos(const BasicJet<S>& a) {
  using std::sin, std::cos;
  const S s = sin(a.v), c = cos(a.v);
  return {c, -s * a.d, -s * a.dd - c * a.d * a.d};
}
template <class S>
BasicJet<S> sqrt(const BasicJet<S>& a) {
  using std::sqrt;
  const S r = sqrt(a.v);
  const S r1 = a.d / (r * 2.0);
  return {r, r1, (a.dd - r1 * r1 * 2.0) / (r * 2.0)};
}

using Jet = BasicJet<double>;

inline double value(double x) { return x; }
template <class S>
auto value(const BasicJet<S>& x) {
  return value(x.v);
}

}  // namespace lw::kin
