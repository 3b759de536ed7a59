// The sparse rank (SuiteSparseQR) against Eigen's dense column-pivoting QR: the same rank, and the
// columns it calls dependent are indeed dependent (the rest independent: full rank), also when a
// dependent column comes first in the given order; and the least-squares solve of a rank-deficient
// system is a least-squares solution.
#include <gtest/gtest.h>

#include <Eigen/QR>
#include <algorithm>
#include <random>

#include "numeric/sparse_rank.h"

namespace lw::num {
namespace {

Eigen::MatrixXd dense(int rows, int cols, const std::vector<Entry>& e) {
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(rows, cols);
  for (const auto& x : e) A(x.row, x.col) += x.value;
  return A;
}

int denseRank(const Eigen::MatrixXd& A) {
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(A);
  qr.setThreshold(1e-9);
  return static_cast<int>(qr.rank());
}

// a random sparse matrix whose columns k ≥ `independent` are sums of two earlier or later ones
std::vector<Entry> withDependentColumns(int rows, int cols, int independent, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::uniform_int_distribution<int> pickRow(0, rows - 1), pickBase(0, independent - 1);
  std::vector<Eigen::VectorXd> columns;
  for (int c = 0; c < independent; ++c) {
    Eigen::VectorXd v = Eigen::VectorXd::Zero(rows);
    for (int k = 0; k < 3; ++k) v[pickRow(rng)] = u(rng);
    v[c % rows] += 2;  // keeps them independent
    columns.push_back(v);
  }
  for (int c = independent; c < cols; ++c) columns.push_back(columns[static_cast<std::size_t>(pickBase(rng))] - 0.5 * columns[static_cast<std::size_t>(pickBase(rng))]);
  // the dependent ones first in the given order
  std::rotate(columns.begin(), columns.begin() + independent, columns.end());
  std::vector<Entry> out;
  for (int c = 0; c < cols; ++c)
    for (int r = 0; r < rows; ++r)
      if (columns[static_cast<std::size_t>(c)][r] != 0) out.push_back({r, c, columns[static_cast<std::size_t>(c)][r]});
  return out;
}

TEST(SparseRank, MatchesTheDenseRankAndNamesDependentColumns) {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    const int rows = 40, cols = 50, independent = 30;
    const auto e = withDependentColumns(rows, cols, independent, seed);
    const Eigen::MatrixXd A = dense(rows, cols, e);
    const SparseRank r = sparseColumnRank(rows, cols, e, 1e-9);
    EXPECT_EQ(r.rank, denseRank(A)) << seed;
    ASSERT_EQ(static_cast<int>(r.dependent.size()), cols - r.rank) << seed;
    // the others are independent: a full-rank matrix
    Eigen::MatrixXd kept(rows, r.rank);
    int k = 0;
    for (int c = 0; c < cols; ++c)
      if (!std::binary_search(r.dependent.begin(), r.dependent.end(), c)) kept.col(k++) = A.col(c);
    ASSERT_EQ(k, r.rank);
    EXPECT_EQ(denseRank(kept), r.rank) << seed;
  }
}

TEST(SparseRank, DuplicateEntriesAddUpAndEmptyMatricesHaveRankZero) {
  const SparseRank r = sparseColumnRank(2, 2, {{0, 0, 1}, {0, 0, 1}, {1, 1, 1}, {1, 0, 2}}, 1e-9);
  EXPECT_EQ(r.rank, 2);
  EXPECT_TRUE(r.dependent.empty());
  const SparseRank zero = sparseColumnRank(3, 2, {}, 1e-9);
  EXPECT_EQ(zero.rank, 0);
  EXPECT_EQ(zero.dependent, (std::vector<int>{0, 1}));
}

TEST(SparseRank, LeastSquaresOfARankDeficientSystem) {
  const int rows = 40, cols = 50;
  const auto e = withDependentColumns(rows, cols, 30, 7);
  const Eigen::MatrixXd A = dense(rows, cols, e);
  Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(rows, -1, 2);
  Eigen::VectorXd x;
  ASSERT_TRUE(sparseLeastSquares(rows, cols, e, b, 1e-9, x));
  // a least-squares solution: the residual is orthogonal to A's columns
  const Eigen::VectorXd residual = A * x - b;
  EXPECT_LT((A.transpose() * residual).norm(), 1e-9 * b.norm());
  const Eigen::VectorXd best = A.completeOrthogonalDecomposition().solve(b);
  EXPECT_NEAR(residual.norm(), (A * best - b).norm(), 1e-9);
}

}  // namespace
}  // namespace lw::num
