// The numerical rank of a sparse matrix and a least-squares solve, by SuiteSparseQR (a sparse,
// rank-revealing multifrontal QR). Mobility, redundancy and assembly of a mechanism of 10⁵ bodies
// in about linear time and memory, where a dense QR took cubic time and n² memory (a chain of
// 10 000 dyads ended in bad_alloc). SuiteSparseQR.hpp stays in the .cpp.
#pragma once

#include <Eigen/Core>
#include <vector>

namespace lw::num {

/// One entry of a sparse matrix (entries at the same place add up).
struct Entry {
  int row = 0, col = 0;
  double value = 0;
};

struct SparseRank {
  int rank = 0;
  std::vector<int> dependent;  // columns found dependent on the others (ascending)
};

/// The rank of the rows × cols matrix `entries` and the columns that depend on the others: a
/// column counts as dependent when what is left of it after the columns before it (in the
/// fill-reducing order) is below `relativeTolerance` times the largest column norm.
SparseRank sparseColumnRank(int rows, int cols, const std::vector<Entry>& entries, double relativeTolerance);

/// x minimising ‖A x − b‖ (a basic solution where A is rank deficient, dependent columns at 0).
/// False when the factorisation fails (out of memory).
bool sparseLeastSquares(int rows, int cols, const std::vector<Entry>& entries, const Eigen::VectorXd& b, double relativeTolerance,
                        Eigen::VectorXd& x);

}  // namespace lw::num
