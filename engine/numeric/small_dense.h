// Dense algebra at the sizes of a tree's coordinates (tens), where Eigen's blocked kernels (packed
// GEMM, TRSM) cost several times the arithmetic: row operations on contiguous rows instead.
#pragma once

#include <Eigen/Core>
#include <Eigen/LU>

namespace lw::num {

/// B ← K⁻¹ B from K's factorisation (P K = L U), for a small K and any number of columns.
void solveSmallInPlace(const Eigen::PartialPivLU<Eigen::MatrixXd>& lu, Eigen::MatrixXd& B);
/// B ← K⁻ᵀ B likewise.
void solveSmallTransposedInPlace(const Eigen::PartialPivLU<Eigen::MatrixXd>& lu, Eigen::MatrixXd& B);

}  // namespace lw::num
