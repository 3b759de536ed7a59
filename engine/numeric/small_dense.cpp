// small_dense.h: forward and back substitution as row operations on a row-major copy of the
// right-hand sides (each row contiguous: one vectorised axpy per entry of the factors).
#include "numeric/small_dense.h"

namespace lw::num {
namespace {
using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// y_i −= c y_j over p contiguous entries
inline void axpyRow(double* __restrict yi, const double* __restrict yj, double c, Eigen::Index p) {
  for (Eigen::Index k = 0; k < p; ++k) yi[k] -= c * yj[k];
}
inline void scaleRow(double* yi, double c, Eigen::Index p) {
  for (Eigen::Index k = 0; k < p; ++k) yi[k] *= c;
}
}  // namespace

void solveSmallInPlace(const Eigen::PartialPivLU<Eigen::MatrixXd>& lu, Eigen::MatrixXd& B) {
  const Eigen::MatrixXd& LU = lu.matrixLU();
  const Eigen::Index n = LU.rows(), p = B.cols();
  thread_local RowMajor Y;
  Y = lu.permutationP() * B;
  double* y = Y.data();
  for (Eigen::Index i = 1; i < n; ++i)  // L unit lower
    for (Eigen::Index j = 0; j < i; ++j)
      if (const double l = LU(i, j); l != 0) axpyRow(y + i * p, y + j * p, l, p);
  for (Eigen::Index i = n; i-- > 0;) {  // U upper
    for (Eigen::Index j = i + 1; j < n; ++j)
      if (const double u = LU(i, j); u != 0) axpyRow(y + i * p, y + j * p, u, p);
    scaleRow(y + i * p, 1 / LU(i, i), p);
  }
  B = Y;
}

void solveSmallTransposedInPlace(const Eigen::PartialPivLU<Eigen::MatrixXd>& lu, Eigen::MatrixXd& B) {
  // Kᵀ = Uᵀ Lᵀ P: Uᵀ y = B (lower), Lᵀ w = y (unit upper), x = Pᵀ w
  const Eigen::MatrixXd& LU = lu.matrixLU();
  const Eigen::Index n = LU.rows(), p = B.cols();
  thread_local RowMajor Y;
  Y = B;
  double* y = Y.data();
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < i; ++j)
      if (const double u = LU(j, i); u != 0) axpyRow(y + i * p, y + j * p, u, p);
    scaleRow(y + i * p, 1 / LU(i, i), p);
  }
  for (Eigen::Index i = n; i-- > 0;)
    for (Eigen::Index j = i + 1; j < n; ++j)
      if (const double l = LU(j, i); l != 0) axpyRow(y + i * p, y + j * p, l, p);
  B = lu.permutationP().transpose() * Y;
}

}  // namespace lw::num
