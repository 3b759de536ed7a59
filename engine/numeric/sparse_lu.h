// Sparse LU on a fixed sparsity pattern: analysed and factored with pivoting by KLU (SuiteSparse),
// then refactored in place here on KLU's pattern and pivot order (no allocation) while that order
// stays stable; the solves run on the same factors. klu.h stays in the .cpp.
#pragma once

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

namespace lw::num {

class SparseLu {
 public:
  /// The pattern in compressed columns (row indices sorted within each column). `rowScaling`:
  /// KLU's default scaling of the rows by their largest entry before pivoting. Matrix R's Θ_z
  /// does without (its rows are of one scale) and saves a pass over the matrix per factorisation.
  SparseLu(int n, std::vector<int> colPtr, std::vector<int> rowIdx, bool rowScaling = true);
  ~SparseLu();
  SparseLu(const SparseLu&) = delete;
  SparseLu& operator=(const SparseLu&) = delete;

  /// Factors `values` (one per pattern entry); false if the matrix is singular. After the first
  /// factorisation (KLU, partial pivoting), the values are refactored in place on its pattern and
  /// pivot order while the pivots stay large (reciprocal pivot growth above 1e-2, or a tenth of
  /// the fresh factorisation's, and pivot ratio above 1e-6), afresh by KLU otherwise. KLU's own
  /// klu_rgrowth is not used: on scaled rows it reported 0.66 for factors of growth 0.0024.
  bool factor();
  /// Reciprocal condition: the cheap pivot ratio min |U_kk| / max |U_kk| (as KLU's klu_rcond),
  /// refined by KLU's 1-norm estimate when below `refineBelow` (the ratio alone flags badly scaled
  /// but regular matrices; KLU's factors are brought up to date for it first).
  double rcond(double refineBelow = 1e-10);
  /// Solves A X = B in place; B is n × nrhs, column-major.
  bool solve(double* b, int nrhs = 1);
  /// The same with the right-hand sides stored as rows: B is nrhs × n, column-major (entry (c, i)
  /// at i·nrhs + c, an Eigen matrix holding Bᵀ). For many right-hand sides: each factor entry
  /// updates up to 16 contiguous values, where KLU's own solve walks its factors once per four.
  bool solveRows(double* bt, int nrhs);

  int size() const { return n_; }
  const std::vector<int>& colPtr() const { return colPtr_; }
  const std::vector<int>& rowIdx() const { return rowIdx_; }
  /// Diagonal blocks of the block triangular form KLU found (1: none).
  int diagonalBlocks() const;
  /// Nonzeros of L + U of the current factorisation (fill-in included).
  long factorNonzeros() const;

  std::vector<double> values;
  long factorisations = 0, refactorisations = 0;  // fresh (with pivoting) and in place

  /// The current factorisation P (Rs⁻¹A) Q = L U + F in compressed columns, read out of KLU with
  /// klu_extract after each factorisation with pivoting: per diagonal block of the block triangular
  /// form, L (unit diagonal first in each column) and U (diagonal last; the rows of a column
  /// ascending), and the entries F outside the blocks. The refactorisations recompute the values
  /// in place on this pattern; the solves read them.
  static constexpr std::size_t kRowPanel = 16;  // right-hand sides per sweep of solveRows
  struct Factors {
    std::vector<int> P, Q, blocks, Lp, Li, Up, Ui, Fp, Fi;
    std::vector<double> Lx, Ux, Fx, rowScale, work;
    std::vector<int> target;   // per entry of A: its row in pivot order (≥ 0), or −1 − its slot in Fx
    std::vector<double> x;     // the refactorisation's column, zero between columns
    std::vector<double> rowMax;  // per row of A: its largest entry (KLU's row scale), then 1 / that
    double pivotRatio = 0;     // min |U_kk| / max |U_kk|, KLU's cheap reciprocal condition
    double minGrowth = 0;      // the reciprocal pivot growth a refactorisation must keep
    std::vector<int> Pinv, blockOf;  // extraction's work (kept: a fresh factorisation then
    std::vector<std::pair<int, double>> column;  // allocates only inside KLU)
  };

 private:
  struct Klu;
  bool extractFactors();
  bool refactorInPlace();
  int n_;
  bool rowScaling_;
  bool factored_ = false;     // f_ holds the factors of `values`
  bool kluCurrent_ = false;   // so does KLU's numeric object (stale after refactorInPlace)
  std::vector<int> colPtr_, rowIdx_;
  std::unique_ptr<Klu> klu_;
  Factors f_;
};

}  // namespace lw::num
