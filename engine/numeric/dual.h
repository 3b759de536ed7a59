// Forward-mode AD with a fixed-size chunk of N directional derivatives (DESIGN.md §3): one
// evaluation of a kernel on Dual<N> gives N columns of its Jacobian (N seed directions at once).
// Plain arrays keep it allocation-free. The derivative loops run two directions at a time on
// SSE2 vectors (GCC/Clang vector extensions): inside the large jet kernels the auto-vectoriser
// left them scalar, and the dense tangent paid about 2× for it.
#pragma once

#include <cmath>
#include <cstring>

#ifndef LW_INLINE
#define LW_INLINE [[gnu::always_inline]] inline
#endif

namespace lw::num {

namespace detail {
using Lanes = double __attribute__((vector_size(16), aligned(8)));  // two doubles, unaligned access
LW_INLINE Lanes load(const double* p) {
  Lanes x;
  std::memcpy(&x, p, sizeof x);
  return x;
}
LW_INLINE void store(double* p, Lanes x) { std::memcpy(p, &x, sizeof x); }
// out[i] = f(i-th pair of lanes...) for i over the N directions, two at a time (N even)
template <int N, class F>
LW_INLINE void lanes(double* out, F f) {
  static_assert(N % 2 == 0, "Dual<N>: N must be even");
  for (int i = 0; i < N; i += 2) store(out + i, f(i));
}
}  // namespace detail

template <int N>
struct Dual {
  double v = 0;   // value
  double g[N]{};  // derivatives along the N seed directions

  constexpr Dual() = default;
  constexpr Dual(double value) : v(value) {}  // NOLINT: constants mix with duals

  LW_INLINE friend Dual operator+(const Dual& a, const Dual& b) {
    Dual r(a.v + b.v);
    detail::lanes<N>(r.g, [&](int i) { return detail::load(a.g + i) + detail::load(b.g + i); });
    return r;
  }
  LW_INLINE friend Dual operator-(const Dual& a, const Dual& b) {
    Dual r(a.v - b.v);
    detail::lanes<N>(r.g, [&](int i) { return detail::load(a.g + i) - detail::load(b.g + i); });
    return r;
  }
  LW_INLINE friend Dual operator-(const Dual& a) {
    Dual r(-a.v);
    detail::lanes<N>(r.g, [&](int i) { return -detail::load(a.g + i); });
    return r;
  }
  LW_INLINE friend Dual operator*(const Dual& a, const Dual& b) {
    Dual r(a.v * b.v);
    detail::lanes<N>(r.g, [&](int i) { return a.v * detail::load(b.g + i) + detail::load(a.g + i) * b.v; });
    return r;
  }
  LW_INLINE friend Dual operator*(const Dual& a, double s) {
    Dual r(a.v * s);
    detail::lanes<N>(r.g, [&](int i) { return detail::load(a.g + i) * s; });
    return r;
  }
  LW_INLINE friend Dual operator*(double s, const Dual& a) { return a * s; }
  LW_INLINE friend Dual operator/(const Dual& a, const Dual& b) {
    const double inv = 1 / b.v, q = a.v * inv;
    Dual r(q);
    detail::lanes<N>(r.g, [&](int i) { return (detail::load(a.g + i) - q * detail::load(b.g + i)) * inv; });
    return r;
  }
  Dual& operator+=(const Dual& o) { return *this = *this + o; }
  Dual& operator-=(const Dual& o) { return *this = *this - o; }
  Dual& operator*=(const Dual& o) { return *this = *this * o; }

  Dual& operator/=(const Dual& o) { return *this = *this / o; }
  // comparisons see the value only (branches of a differentiated code follow its value)
  friend bool operator<(const Dual& a, const Dual& b) { return a.v < b.v; }
  friend bool operator>(const Dual& a, const Dual& b) { return a.v > b.v; }
  friend bool operator<=(const Dual& a, const Dual& b) { return a.v <= b.v; }
  friend bool operator>=(const Dual& a, const Dual& b) { return a.v >= b.v; }
  // equality is exact, derivatives included (Eigen asks whether a factor is zero)
  friend bool operator==(const Dual& a, const Dual& b) {
    if (a.v != b.v) return false;
    for (int i = 0; i < N; ++i)
      if (a.g[i] != b.g[i]) return false;
    return true;
  }
  friend bool operator!=(const Dual& a, const Dual& b) { return !(a == b); }
};

// a·b − c·d and a·b + c·d + e·f in one pass over the lanes: the same operations in the same
// order as the products and sums apart (the same numbers), without their temporaries' stores and
// loads (the cross products and 3 × 3 products of the tree's kernels spend most of their time
// there)
template <int N>
LW_INLINE Dual<N> mulSub(const Dual<N>& a, const Dual<N>& b, const Dual<N>& c, const Dual<N>& d) {
  Dual<N> r(a.v * b.v - c.v * d.v);
  detail::lanes<N>(r.g, [&](int i) {
    return (a.v * detail::load(b.g + i) + detail::load(a.g + i) * b.v) - (c.v * detail::load(d.g + i) + detail::load(c.g + i) * d.v);
  });
  return r;
}
template <int N>
LW_INLINE Dual<N> dot3(const Dual<N>& a, const Dual<N>& b, const Dual<N>& c, const Dual<N>& d, const Dual<N>& e, const Dual<N>& f) {
  Dual<N> r(a.v * b.v + c.v * d.v + e.v * f.v);
  detail::lanes<N>(r.g, [&](int i) {
    return (a.v * detail::load(b.g + i) + detail::load(a.g + i) * b.v) + (c.v * detail::load(d.g + i) + detail::load(c.g + i) * d.v) +
           (e.v * detail::load(f.g + i) + detail::load(e.g + i) * f.v);
  });
  return r;
}

// chain rule through a scalar function with value f and derivative df at a.v
template <int N>
Dual<N> chain(const Dual<N>& a, double f, double df) {
  Dual<N> r(f);
  detail::lanes<N>(r.g, [&](int i) { return df * detail::load(a.g + i); });
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
  detail::lanes<N>(r.g, [&](int i) { return (x.v * detail::load(y.g + i) - y.v * detail::load(x.g + i)) / n; });
  return r;
}
template <int N> Dual<N> tan(const Dual<N>& a) {
  const double t = std::tan(a.v);
  return chain(a, t, 1 + t * t);
}
template <int N> Dual<N> asin(const Dual<N>& a) { return chain(a, std::asin(a.v), 1 / std::sqrt(1 - a.v * a.v)); }
template <int N> Dual<N> acos(const Dual<N>& a) { return chain(a, std::acos(a.v), -1 / std::sqrt(1 - a.v * a.v)); }
template <int N> Dual<N> atan(const Dual<N>& a) { return chain(a, std::atan(a.v), 1 / (1 + a.v * a.v)); }
template <int N> Dual<N> sinh(const Dual<N>& a) { return chain(a, std::sinh(a.v), std::cosh(a.v)); }
template <int N> Dual<N> cosh(const Dual<N>& a) { return chain(a, std::cosh(a.v), std::sinh(a.v)); }
template <int N> Dual<N> tanh(const Dual<N>& a) {
  const double t = std::tanh(a.v);
  return chain(a, t, 1 - t * t);
}
template <int N> Dual<N> exp(const Dual<N>& a) {
  const double e = std::exp(a.v);
  return chain(a, e, e);
}
template <int N> Dual<N> log(const Dual<N>& a) { return chain(a, std::log(a.v), 1 / a.v); }
// x^y = exp(y log x); a constant exponent (no derivatives) also serves x ≤ 0
template <int N> Dual<N> pow(const Dual<N>& x, const Dual<N>& y) {
  const double f = std::pow(x.v, y.v);
  const double dfdx = x.v == 0 ? (y.v == 1 ? 1.0 : 0.0) : y.v * f / x.v;
  Dual<N> r = chain(x, f, dfdx);
  bool constantExponent = true;
  for (int i = 0; i < N; ++i) constantExponent = constantExponent && y.g[i] == 0;
  if (!constantExponent) {
    const double dfdy = f * std::log(x.v);
    for (int i = 0; i < N; ++i) r.g[i] += dfdy * y.g[i];
  }
  return r;
}
template <int N> double value(const Dual<N>& a) { return a.v; }
/// A number whose value and derivatives are all zero: a term that may be skipped exactly.
template <int N> bool isExactZero(const Dual<N>& a) {
  if (a.v != 0) return false;
  for (int i = 0; i < N; ++i)
    if (a.g[i] != 0) return false;
  return true;
}
inline bool isExactZero(double a) { return a == 0; }

/// The chunk of directions the sensitivities and the penalty tangent differentiate with.
inline constexpr int kChunk = 8;
using Dual8 = Dual<kChunk>;

}  // namespace lw::num
