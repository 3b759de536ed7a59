// The KLU wrapper against Eigen's dense LU: first factorisation, in-place refactorisations with
// the old pivot order, the fresh pivoting when that order no longer suits, several right-hand sides;
// with and without KLU's row scaling, on rows of two scales.
#include "numeric/sparse_lu.h"

#include <gtest/gtest.h>

#include <Eigen/LU>
#include <algorithm>
#include <numeric>
#include <random>

namespace lw::num {
namespace {

struct Pattern {
  std::vector<int> colPtr, rowIdx;
  std::vector<int> diagonalRow;  // per column, the row of a structurally nonsingular diagonal
};

// compressed columns from each column's rows (sorted here, duplicates dropped)
Pattern compressed(std::vector<std::vector<int>> rowsOfColumn, std::vector<int> diagonalRow) {
  Pattern p;
  p.colPtr.push_back(0);
  for (auto& rows : rowsOfColumn) {
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    p.rowIdx.insert(p.rowIdx.end(), rows.begin(), rows.end());
    p.colPtr.push_back(static_cast<int>(p.rowIdx.size()));
  }
  p.diagonalRow = std::move(diagonalRow);
  return p;
}

// a random sparse pattern with a full diagonal (about `perColumn` entries per column)
Pattern randomPattern(int n, int perColumn, std::mt19937& rng) {
  std::uniform_int_distribution<int> row(0, n - 1);
  std::vector<std::vector<int>> rows(static_cast<std::size_t>(n));
  std::vector<int> diagonal(static_cast<std::size_t>(n));
  for (int c = 0; c < n; ++c) {
    auto& r = rows[static_cast<std::size_t>(c)];
    r.push_back(c);
    for (int k = 0; k < perColumn; ++k) r.push_back(row(rng));
    diagonal[static_cast<std::size_t>(c)] = c;
  }
  return compressed(std::move(rows), std::move(diagonal));
}

Eigen::MatrixXd dense(const SparseLu& lu) {
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(lu.size(), lu.size());
  for (int c = 0; c < lu.size(); ++c)
    for (int k = lu.colPtr()[static_cast<std::size_t>(c)]; k < lu.colPtr()[static_cast<std::size_t>(c) + 1]; ++k)
      A(lu.rowIdx()[static_cast<std::size_t>(k)], c) = lu.values[static_cast<std::size_t>(k)];
  return A;
}

TEST(SparseLu, SolvesLikeADenseLuThroughRefactorisations) {
  for (const bool rowScaling : {true, false}) {
    SCOPED_TRACE(rowScaling ? "rows scaled" : "rows not scaled");
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-1, 1);
    const int n = 60;
    const Pattern p = randomPattern(n, 4, rng);
    SparseLu lu(n, p.colPtr, p.rowIdx, rowScaling);
    for (int round = 0; round < 6; ++round) {
      // values that drift a little from round to round (refactorisation), and once a permutation
      // of the diagonal's weight (the old pivot order turns bad: fresh pivoting)
      for (std::size_t k = 0; k < lu.values.size(); ++k) lu.values[k] = u(rng);
      for (int c = 0; c < n; ++c)
        for (int k = p.colPtr[static_cast<std::size_t>(c)]; k < p.colPtr[static_cast<std::size_t>(c) + 1]; ++k)
          if (p.rowIdx[static_cast<std::size_t>(k)] == c) lu.values[static_cast<std::size_t>(k)] += round == 3 ? 1e-9 : 4.0;
      // rows of two scales, as lengths in millimetres beside unit rows
      for (std::size_t k = 0; k < lu.values.size(); ++k)
        if (p.rowIdx[k] % 3 == 0) lu.values[k] *= 1e3;
      ASSERT_TRUE(lu.factor()) << "round " << round;
      const Eigen::MatrixXd A = dense(lu);
      Eigen::MatrixXd B = Eigen::MatrixXd::Random(n, 3);
      const Eigen::MatrixXd X = A.partialPivLu().solve(B);
      ASSERT_TRUE(lu.solve(B.data(), 3));
      EXPECT_LT((B - X).norm() / X.norm(), 1e-10) << "round " << round;
      const double rc = lu.rcond(1.0);  // always the 1-norm estimate here
      const double exact = 1 / (A.cwiseAbs().colwise().sum().maxCoeff() * A.inverse().cwiseAbs().colwise().sum().maxCoeff());
      EXPECT_GT(rc, exact / 10) << "round " << round;
      EXPECT_LT(rc, exact * 10) << "round " << round;
    }
    EXPECT_EQ(lu.factorisations + lu.refactorisations, 6);
    EXPECT_GE(lu.factorisations, 2);    // the first one, and when the diagonal became tiny
    EXPECT_GE(lu.refactorisations, 3);  // in place otherwise
  }
}

// a block triangular pattern behind random row and column permutations: diagonal blocks of
// sizes 1 to 6 (singletons among them), random entries above the blocks, a full diagonal
Pattern blockTriangularPattern(int n, std::mt19937& rng) {
  std::vector<int> start{0};
  std::uniform_int_distribution<int> size(1, 6);
  while (start.back() < n) start.push_back(std::min(n, start.back() + size(rng)));
  std::vector<int> rowPerm(static_cast<std::size_t>(n)), colPerm(static_cast<std::size_t>(n));
  std::iota(rowPerm.begin(), rowPerm.end(), 0);
  std::iota(colPerm.begin(), colPerm.end(), 0);
  std::shuffle(rowPerm.begin(), rowPerm.end(), rng);
  std::shuffle(colPerm.begin(), colPerm.end(), rng);
  std::vector<std::vector<int>> rows(static_cast<std::size_t>(n));
  std::uniform_real_distribution<double> u(0, 1);
  for (std::size_t b = 0; b + 1 < start.size(); ++b)
    for (int j = start[b]; j < start[b + 1]; ++j) {
      for (int i = 0; i < start[b + 1]; ++i)  // the block (dense) and above it (sparse)
        if (i >= start[b] || u(rng) < 0.1) rows[static_cast<std::size_t>(colPerm[static_cast<std::size_t>(j)])].push_back(rowPerm[static_cast<std::size_t>(i)]);
    }
  std::vector<int> diagonal(static_cast<std::size_t>(n));
  for (std::size_t j = 0; j < rows.size(); ++j) diagonal[static_cast<std::size_t>(colPerm[j])] = rowPerm[j];
  return compressed(std::move(rows), std::move(diagonal));
}

TEST(SparseLu, SolvesRowStoredRightHandSidesLikeKlu) {
  for (const bool rowScaling : {true, false}) {
    SCOPED_TRACE(rowScaling ? "rows scaled" : "rows not scaled");
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> u(-1, 1);
    const int n = 80;
    for (const bool blocky : {true, false}) {
      SCOPED_TRACE(blocky ? "block triangular" : "random pattern");
      const Pattern p = blocky ? blockTriangularPattern(n, rng) : randomPattern(n, 4, rng);
      SparseLu lu(n, p.colPtr, p.rowIdx, rowScaling);
      if (blocky) {
        EXPECT_GT(lu.diagonalBlocks(), 10) << "KLU found the block triangular form";
      }
      Eigen::MatrixXd none = Eigen::MatrixXd::Zero(2, n);
      EXPECT_FALSE(lu.solveRows(none.data(), 2)) << "before a factorisation";
      for (int c = 0; c < n; ++c)  // a strong diagonal (hidden by the permutations of the block pattern)
        for (int k = p.colPtr[static_cast<std::size_t>(c)]; k < p.colPtr[static_cast<std::size_t>(c) + 1]; ++k) {
          const int r = p.rowIdx[static_cast<std::size_t>(k)];
          lu.values[static_cast<std::size_t>(k)] = r == p.diagonalRow[static_cast<std::size_t>(c)] ? 4.0 + u(rng) : 0.2 * u(rng);
        }
      for (int round = 0; round < 4; ++round) {  // a factorisation, then refactorisations of drifting values
        for (double& v : lu.values) v *= 1 + 0.01 * u(rng);
        ASSERT_TRUE(lu.factor()) << "round " << round;
        const Eigen::MatrixXd A = dense(lu);
        for (const int nrhs : {1, 4, 15, 21}) {  // 21: two panels of right-hand sides
          const Eigen::MatrixXd B = Eigen::MatrixXd::Random(n, nrhs);
          const Eigen::MatrixXd X = A.partialPivLu().solve(B);
          Eigen::MatrixXd Bt = B.transpose();
          ASSERT_TRUE(lu.solveRows(Bt.data(), nrhs));
          EXPECT_LT((Bt.transpose() - X).norm() / X.norm(), 1e-10) << "round " << round << ", " << nrhs << " right-hand sides";
          Eigen::MatrixXd Bk = B;  // KLU's own solve agrees
          ASSERT_TRUE(lu.solve(Bk.data(), nrhs));
          EXPECT_LT((Bt.transpose() - Bk).norm() / X.norm(), 1e-12);
        }
      }
      // KLU prefers its own diagonal as pivots down to a thousandth of the column's largest entry:
      // on the hidden block structure that often costs too much growth to refactor in place
      if (!blocky) {
        EXPECT_EQ(lu.refactorisations, 3);
      }
    }
  }
}

TEST(SparseLu, PivotsAfreshWhenTheKeptPivotOrderGrows) {
  // [a 1; 1 3] with the diagonal pivot a: U₂₂ = 3 − 1/a, growth about 3a while the pivot ratio
  // (about a²) stays above 1e-6 down to a = 1e-3
  for (const bool rowScaling : {true, false}) {
    SCOPED_TRACE(rowScaling ? "rows scaled" : "rows not scaled");
    SparseLu lu(2, {0, 2, 4}, {0, 1, 0, 1}, rowScaling);
    auto factorAt = [&](double a) {
      lu.values = {a, 1.0, 1.0, 3.0};
      return lu.factor();
    };
    ASSERT_TRUE(factorAt(1.0));
    ASSERT_TRUE(factorAt(0.5));  // growth about 0.5: kept
    EXPECT_EQ(lu.factorisations, 1);
    EXPECT_EQ(lu.refactorisations, 1);
    ASSERT_TRUE(factorAt(2e-3));  // growth below 1e-2: KLU pivots afresh (and keeps a: above its
    EXPECT_EQ(lu.factorisations, 2);  // threshold of a thousandth of the column)
    ASSERT_TRUE(factorAt(2.1e-3));    // no worse than that fresh order: kept
    EXPECT_EQ(lu.factorisations, 2);
    EXPECT_EQ(lu.refactorisations, 2);
    ASSERT_TRUE(factorAt(1e-4));  // ten times worse: afresh, now on row 2
    EXPECT_EQ(lu.factorisations, 3);
    double b[2] = {1.0, 2.0};  // x = A⁻¹ b
    ASSERT_TRUE(lu.solve(b));
    const double det = 1e-4 * 3 - 1;
    EXPECT_NEAR(b[0], (3 * 1.0 - 1 * 2.0) / det, 1e-15);
    EXPECT_NEAR(b[1], (1e-4 * 2.0 - 1 * 1.0) / det, 1e-15);
  }
}

TEST(SparseLu, ReportsASingularMatrix) {
  // column 2 is empty in value: structurally present, numerically zero
  SparseLu lu(3, {0, 1, 2, 3}, {0, 1, 2});
  lu.values = {1.0, 2.0, 0.0};
  EXPECT_FALSE(lu.factor() && lu.rcond() > 0);
}

}  // namespace
}  // namespace lw::num
