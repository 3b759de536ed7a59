// A scalar that carries, beside its value, the set of independent variables it depends on. One
// evaluation of a kernel on Pattern gives the sparsity pattern of its Jacobian (structural: exact
// cancellations still count as dependencies), as ADOL-C's and SparsLinC's pattern passes do.
// It allocates and is slow: for the one pattern pass before a colouring, not for the step loop.
#pragma once

#include <algorithm>
#include <cmath>
#include <iterator>
#include <vector>

namespace lw::num {

struct Pattern {
  double v = 0;
  std::vector<int> deps;  // sorted, unique

  Pattern() = default;
  Pattern(double value) : v(value) {}  // NOLINT: constants depend on nothing
  Pattern(double value, int variable) : v(value), deps{variable} {}

  static Pattern with(double value, const Pattern& a, const Pattern& b) {
    Pattern r(value);
    r.deps.reserve(a.deps.size() + b.deps.size());
    std::set_union(a.deps.begin(), a.deps.end(), b.deps.begin(), b.deps.end(), std::back_inserter(r.deps));
    return r;
  }
  static Pattern with(double value, const Pattern& a) {
    Pattern r(value);
    r.deps = a.deps;
    return r;
  }
  friend Pattern operator+(const Pattern& a, const Pattern& b) { return with(a.v + b.v, a, b); }
  friend Pattern operator-(const Pattern& a, const Pattern& b) { return with(a.v - b.v, a, b); }
  friend Pattern operator-(const Pattern& a) { return with(-a.v, a); }
  friend Pattern operator*(const Pattern& a, const Pattern& b) { return with(a.v * b.v, a, b); }
  friend Pattern operator/(const Pattern& a, const Pattern& b) { return with(a.v / b.v, a, b); }
  Pattern& operator+=(const Pattern& o) { return *this = *this + o; }
  Pattern& operator-=(const Pattern& o) { return *this = *this - o; }
  Pattern& operator*=(const Pattern& o) { return *this = *this * o; }
};

inline Pattern sin(const Pattern& a) { return Pattern::with(std::sin(a.v), a); }
inline Pattern cos(const Pattern& a) { return Pattern::with(std::cos(a.v), a); }
inline Pattern sqrt(const Pattern& a) { return Pattern::with(std::sqrt(a.v), a); }
inline Pattern atan2(const Pattern& y, const Pattern& x) { return Pattern::with(std::atan2(y.v, x.v), y, x); }
inline double value(const Pattern& a) { return a.v; }

}  // namespace lw::num
