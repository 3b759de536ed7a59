#include "numeric/solve_on.h"

#include <Eigen/LU>
#include <complex>

#include "numeric/dual_eigen.h"
#include "numeric/small_dense.h"

namespace lw::num {

namespace {
// 1/‖A‖₁‖A⁻¹‖₁ as Eigen estimates it, against a singular matrix
template <class LU> bool usable(const LU& lu) { return lu.rcond() > 1e-15; }
}  // namespace

bool solveOn(const MatrixOn<double>& A, const MatrixOn<double>& B, MatrixOn<double>& X) {
  if (A.rows() == 0) {
    X.resize(0, B.cols());
    return true;
  }
  Eigen::PartialPivLU<Eigen::MatrixXd> lu(A);
  if (!usable(lu)) return false;
  X = lu.solve(B);
  return true;
}

bool solveOn(const MatrixOn<std::complex<double>>& A, const MatrixOn<std::complex<double>>& B,
                                   MatrixOn<std::complex<double>>& X) {
  if (A.rows() == 0) {
    X.resize(0, B.cols());
    return true;
  }
  Eigen::PartialPivLU<Eigen::MatrixXcd> lu(A);
  if (!(Eigen::PartialPivLU<Eigen::MatrixXd>(A.real()).rcond() > 1e-15)) return false;
  X = lu.solve(B);
  return true;
}

bool solveOn(const MatrixOn<Dual8>& A, const MatrixOn<Dual8>& B, MatrixOn<Dual8>& X) {
  if (A.rows() == 0) {
    X.resize(0, B.cols());
    return true;
  }
  const Eigen::Index n = A.rows(), m = B.cols();
  Eigen::MatrixXd Av(n, n), Bv(n, m);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j) Av(i, j) = A(i, j).v;
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < m; ++j) Bv(i, j) = B(i, j).v;
  Eigen::PartialPivLU<Eigen::MatrixXd> lu(Av);
  if (!usable(lu)) return false;
  const Eigen::MatrixXd Xv = lu.solve(Bv);
  X.resize(n, m);
  // every lane's B' − A' X side by side: one solve for all of them
  Eigen::MatrixXd R(n, kChunk * m);
  for (int k = 0; k < kChunk; ++k)
    for (Eigen::Index j = 0; j < m; ++j)
      for (Eigen::Index i = 0; i < n; ++i) {
        double r = B(i, j).g[k];
        for (Eigen::Index l = 0; l < n; ++l) r -= A(i, l).g[k] * Xv(l, j);
        R(i, k * m + j) = r;
      }
  solveSmallInPlace(lu, R);
  const Eigen::MatrixXd& Xg = R;
  for (int k = 0; k < kChunk; ++k)
    for (Eigen::Index i = 0; i < n; ++i)
      for (Eigen::Index j = 0; j < m; ++j) X(i, j).g[k] = Xg(i, k * m + j);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < m; ++j) X(i, j).v = Xv(i, j);
  return true;
}

}  // namespace lw::num
