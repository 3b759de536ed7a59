// The KLU wrapper against Eigen's dense LU: first factorisation, in-place refactorisations with
// the old pivot order, the fresh pivoting when that order no longer suits, several right-hand sides;
// with and without KLU's row scaling, on rows of two scales.
#include "numeric/sparse_lu.h"

#include <gtest/gtest.h>

#include <Eigen/LU>
#include <random>

namespace lw::num {
namespace {

struct Pattern {
  std::vector<int> colPtr, rowIdx;
};

// a random sparse pattern with a full diagonal (about `perColumn` entries per column)
Pattern randomPattern(int n, int perColumn, std::mt19937& rng) {
  Pattern p;
  p.colPtr.push_back(0);
  std::uniform_int_distribution<int> row(0, n - 1);
  for (int c = 0; c < n; ++c) {
    std::vector<int> rows{c};
    for (int k = 0; k < perColumn; ++k) rows.push_back(row(rng));
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    p.rowIdx.insert(p.rowIdx.end(), rows.begin(), rows.end());
    p.colPtr.push_back(static_cast<int>(p.rowIdx.size()));
  }
  return p;
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

TEST(SparseLu, ReportsASingularMatrix) {
  // column 2 is empty in value: structurally present, numerically zero
  SparseLu lu(3, {0, 1, 2, 3}, {0, 1, 2});
  lu.values = {1.0, 2.0, 0.0};
  EXPECT_FALSE(lu.factor() && lu.rcond() > 0);
}

}  // namespace
}  // namespace lw::num
