// First-order forward mode along N directions at once on any scalar S: the value and the N first
// derivatives of s -> f(x + Σ s_k v_k) at s = 0. Where only first derivatives along a few fixed
// directions are read (a constraint's rows along a body's six unit twists, the multipliers' turn
// of matrix_r_derivatives.cpp), one evaluation on FirstJets<S, 6> replaces six on BasicJet<S>,
// which also carry the second derivative: the value is computed once and no second-order products.
#pragma once

#include <cmath>
#include <type_traits>

#include "numeric/jet.h"
#include "numeric/scalar.h"

#ifndef LW_INLINE
#define LW_INLINE [[gnu::always_inline]] inline
#endif

namespace lw::kin {

template <class S, int N>
struct FirstJets {
  S v{};     // value
  S d[N]{};  // first derivatives along the N directions

  constexpr FirstJets() = default;
  // constants mix with jets: anything convertible to the scalar (double, int) is a constant jet
  template <class U, class = std::enable_if_t<std::is_convertible_v<U, S>>>
  constexpr FirstJets(const U& value) : v(value) {  // NOLINT
    for (int k = 0; k < N; ++k) d[k] = S(0.0);
  }

  LW_INLINE friend FirstJets operator+(const FirstJets& a, const FirstJets& b) {
    FirstJets r;
    r.v = a.v + b.v;
    for (int k = 0; k < N; ++k) r.d[k] = a.d[k] + b.d[k];
    return r;
  }
  LW_INLINE friend FirstJets operator-(const FirstJets& a, const FirstJets& b) {
    FirstJets r;
    r.v = a.v - b.v;
    for (int k = 0; k < N; ++k) r.d[k] = a.d[k] - b.d[k];
    return r;
  }
  LW_INLINE friend FirstJets operator-(const FirstJets& a) {
    FirstJets r;
    r.v = -a.v;
    for (int k = 0; k < N; ++k) r.d[k] = -a.d[k];
    return r;
  }
  LW_INLINE friend FirstJets operator*(const FirstJets& a, const FirstJets& b) {
    FirstJets r;
    r.v = a.v * b.v;
    for (int k = 0; k < N; ++k) r.d[k] = a.v * b.d[k] + a.d[k] * b.v;
    return r;
  }
  LW_INLINE friend FirstJets operator*(const FirstJets& a, double s) { return scaled(a, s); }
  LW_INLINE friend FirstJets operator*(double s, const FirstJets& a) { return scaled(a, s); }
  LW_INLINE friend FirstJets operator/(const FirstJets& a, const FirstJets& b) {
    const S inv = 1.0 / b.v;
    FirstJets r;
    r.v = a.v * inv;
    for (int k = 0; k < N; ++k) r.d[k] = (a.d[k] - r.v * b.d[k]) * inv;
    return r;
  }
  FirstJets& operator+=(const FirstJets& o) { return *this = *this + o; }
  FirstJets& operator-=(const FirstJets& o) { return *this = *this - o; }
  FirstJets& operator*=(const FirstJets& o) { return *this = *this * o; }

  /// a times a constant of the jet's own scalar or a double: no products of derivatives
  template <class C>
  LW_INLINE static FirstJets scaled(const FirstJets& a, const C& s) {
    FirstJets r;
    r.v = a.v * s;
    for (int k = 0; k < N; ++k) r.d[k] = a.d[k] * s;
    return r;
  }
};

// products with a constant of the jet's own scalar (a model number on a dual number)
template <class S, int N>
  requires(!std::is_same_v<S, double>)
LW_INLINE FirstJets<S, N> operator*(const FirstJets<S, N>& a, const S& s) {
  return FirstJets<S, N>::scaled(a, s);
}
template <class S, int N>
  requires(!std::is_same_v<S, double>)
LW_INLINE FirstJets<S, N> operator*(const S& s, const FirstJets<S, N>& a) {
  return FirstJets<S, N>::scaled(a, s);
}

template <class S, int N>
FirstJets<S, N> sin(const FirstJets<S, N>& a) {
  using std::sin, std::cos;
  FirstJets<S, N> r;
  r.v = sin(a.v);
  const S c = cos(a.v);
  for (int k = 0; k < N; ++k) r.d[k] = c * a.d[k];
  return r;
}
template <class S, int N>
FirstJets<S, N> cos(const FirstJets<S, N>& a) {
  using std::sin, std::cos;
  FirstJets<S, N> r;
  r.v = cos(a.v);
  const S s = sin(a.v);
  for (int k = 0; k < N; ++k) r.d[k] = -(s * a.d[k]);
  return r;
}
template <class S, int N>
FirstJets<S, N> sqrt(const FirstJets<S, N>& a) {
  using std::sqrt;
  FirstJets<S, N> r;
  r.v = sqrt(a.v);
  const S half = 0.5 / r.v;
  for (int k = 0; k < N; ++k) r.d[k] = a.d[k] * half;
  return r;
}

// θ = atan2(y, x): r² θ' = x y' − y x' (found by argument-dependent lookup, as sin, cos, sqrt)
template <class S, int N>
FirstJets<S, N> atan2(const FirstJets<S, N>& y, const FirstJets<S, N>& x) {
  using std::atan2;
  FirstJets<S, N> r;
  r.v = atan2(y.v, x.v);
  const S inv = 1.0 / (x.v * x.v + y.v * y.v);
  for (int k = 0; k < N; ++k) r.d[k] = (x.v * y.d[k] - y.v * x.d[k]) * inv;
  return r;
}

}  // namespace lw::kin

namespace lw::num {
template <class S, int N>
double value(const kin::FirstJets<S, N>& x) {
  return value(x.v);
}
}  // namespace lw::num
