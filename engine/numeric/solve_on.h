// Dense linear solves on the differentiation scalars. On dual numbers, A(ρ) X = B(ρ) is solved by
// one factorisation of A's values and the derivative parts from X' = A⁻¹ (B' − A' X): exact, and
// far cheaper than elimination in dual arithmetic. On a complex step, Eigen's complex LU (the
// analytic continuation: no conjugation in it), an independent route for the tests.
#pragma once

#include <Eigen/Core>
#include <complex>

#include "numeric/dual_eigen.h"

namespace lw::num {

template <class S>
using MatrixOn = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;

template <int N> struct Dual;

/// X = A⁻¹ B (A square). Returns false when A's values are singular (then X is unchanged).
bool solveOn(const MatrixOn<double>& A, const MatrixOn<double>& B, MatrixOn<double>& X);
bool solveOn(const MatrixOn<std::complex<double>>& A, const MatrixOn<std::complex<double>>& B, MatrixOn<std::complex<double>>& X);
bool solveOn(const MatrixOn<Dual<8>>& A, const MatrixOn<Dual<8>>& B, MatrixOn<Dual<8>>& X);

}  // namespace lw::num
