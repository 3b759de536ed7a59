// Forward-mode AD with a fixed-size chunk of N directional derivatives (DESIGN.md §3): one
// evaluation of a kernel on Dual<N> gives N columns of its Jacobian (N seed directions at once).
// Plain arrays keep it allocation-free and let the compiler vectorise the derivative loops.
#pragma once

#include <cmath>

#ifndef LW_INLINE
#define LW_INLINE [[gnu::always_inline]] inline
#endif

namespace lw::num {

template <int N>
struct Dual {
  double v = 0;   // value
  double g[N]{};  // derivatives along the N seed directions

  constexpr Dual() = default;
  constexpr Dual(double value) : v(value) {}  // NOLINT: constants mix with duals

  LW_INLINE friend Dual operator+(const Dual& a, const Dual& b) {
    Dual r(a.v + b.v);
    for (int i = 0; i < N; ++i) r.g[i] = a.g[i] + b.g[i];
    return r;
  }
  LW_INLINE friend Dual operator-(const Dual& a, const Dual& b) {
    Dual r(a.v - b.v);
    for (int i = 0; i < N; ++i) r.g[i] = a.g[i] - b.g[i];
    return r;
  }
  LW_INLINE friend Dual operator-(const Dual& a) {
    Dual r(-a.v);
    for (int i = 0; i < N; ++i) r.g[i] = -a.g[i];
    return r;
  }
  LW_INLINE friend Dual operator*(const Dual& a, const Dual& b) {
    Dual r(a.v * b.v);
    for (int i = 0; i < N; ++i) r.g[i] = a.v * b.g[i] + a.g[i] * b.v;
    return r;
  }
  LW_INLINE friend Dual operator*(const Dual& a, double s) {
    Dual r(a.v * s);
    for (int i = 0; i < N; ++i) r.g[i] = a.g[i] * s;
    return r;
  }
  LW_INLINE friend Dual operator*(double s, const Dual& a) { return a * s; }
  LW_INLINE friend Dual operator/(const Dual& a, const Dual& b) {
    const double inv = 1 / b.v, q = a.v * inv;
    Dual r(q);
    for (int i = 0; i < N; ++i) r.g[i] = (a.g[i] - q * b.g[i]) * inv;
    return r;
  }
  Dual& operator+=(const Dual& o) { return *this = *this + o; }
  Dual& operator-=(const Dual& o) { return *this = *this - o; }
  Dual& operator*=(const Dual& o) { return *this = *this * o; }

  friend bool operator<(const Dual& a, const Dual& b) { return a.v < b.v; }
  friend bool operator>(const Dual& a, const Dual& b) { return a.v > b.v; }
};

// chain rule through a scalar function with value f and derivative df at a.v
template <int N>
Dual<N> chain(const Dual<N>& a, double f, double df) {
  Dual<N> r(f);
  for (int i = 0; i < N; ++i) r.g[i] = df * a.g[i];
  return r;
}

template <int N> Dual<N> sin(const Dual<N>& a) { return chain(a, std::sin(a.v), std::cos(a.v)); }
template <int N> Dual<N> cos(const Dual<N>& a) { return chain(a, std::cos(a.v), -std::sin(a.v)); }
template <int N> Dual<N> sqrt(const Dual<N>& a) {
  const double r = std::sqrt(a.v);
  return chain(a, r, 0.5 / r);
}
template <int N> Dual<N> atan2(const Dual<N>& y, const Dual<N>& x) {
  const double n = x.v * x.v + y.v * y.v;
  Dual<N> r(std::atan2(y.v, x.v));
  for (int i = 0; i < N; ++i) r.g[i] = (x.v * y.g[i] - y.v * x.g[i]) / n;
  return r;
}
template <int N> double value(const Dual<N>& a) { return a.v; }

}  // namespace lw::num
