// Eigen's traits for the dual numbers (numeric/dual.h), so that small fixed-size Eigen vectors and
// matrices of a model's numbers can hold them (mechanism/numbers.h). Dense factorisations on duals
// are not meant: a linear solve differentiates through one factorisation of the values
// (sensitivity/), far cheaper than elimination in dual arithmetic.
#pragma once

#include <Eigen/Core>

#include "numeric/dual.h"

namespace lw::num {
template <int N> Dual<N> abs(const Dual<N>& a) { return a.v < 0 ? -a : a; }
}  // namespace lw::num

namespace Eigen {

template <int N>
struct NumTraits<lw::num::Dual<N>> : NumTraits<double> {
  using Real = lw::num::Dual<N>;
  using NonInteger = lw::num::Dual<N>;
  using Nested = lw::num::Dual<N>;
  using Literal = double;
  enum {
    IsComplex = 0,
    IsInteger = 0,
    IsSigned = 1,
    RequireInitialization = 1,
    ReadCost = N + 1,
    AddCost = N + 1,
    MulCost = 2 * N + 1,
  };
};

template <int N, typename Op>
struct ScalarBinaryOpTraits<lw::num::Dual<N>, double, Op> {
  using ReturnType = lw::num::Dual<N>;
};
template <int N, typename Op>
struct ScalarBinaryOpTraits<double, lw::num::Dual<N>, Op> {
  using ReturnType = lw::num::Dual<N>;
};

}  // namespace Eigen
