// KLU (SuiteSparse) on a fixed sparsity pattern: analysed once, factored, then refactored in place
// with the same pivot order (no allocation) while that order stays stable. klu.h stays in the .cpp.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace lw::num {

class SparseLu {
 public:
  /// The pattern in compressed columns (row indices sorted within each column). `rowScaling`:
  /// KLU's default scaling of the rows by their largest entry before pivoting. Without it partial
  /// pivoting stays stable (and the refactorisations keep their pivot-growth check); Matrix R's
  /// Θ_z does without and saves KLU's pass over the matrix per factorisation and per solve.
  SparseLu(int n, std::vector<int> colPtr, std::vector<int> rowIdx, bool rowScaling = true);
  ~SparseLu();
  SparseLu(const SparseLu&) = delete;
  SparseLu& operator=(const SparseLu&) = delete;

  /// Factors `values` (one per pattern entry); false if the matrix is singular.
  bool factor();
  /// Reciprocal condition: KLU's cheap pivot ratio, refined by its 1-norm estimate when below
  /// `refineBelow` (the ratio alone flags badly scaled but regular matrices).
  double rcond(double refineBelow = 1e-10);
  /// Solves A X = B in place; B is n × nrhs, column-major.
  bool solve(double* b, int nrhs = 1);
  /// The same with the right-hand sides stored as rows: B is nrhs × n, column-major (entry (c, i)
  /// at i·nrhs + c, an Eigen matrix holding Bᵀ). For many right-hand sides: each factor entry
  /// updates nrhs contiguous values, where KLU's solve walks the factors once per four.
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

  /// The current factorisation P (Rs⁻¹A) Q = L U + F in compressed columns, as klu_extract gives
  /// it: per diagonal block of the block triangular form, L (unit diagonal stored) and U, and the
  /// entries F outside the blocks. Read out lazily for solveRows, once per factorisation.
  static constexpr std::size_t kRowPanel = 16;  // right-hand sides per sweep of solveRows
  struct Factors {
    bool current = false;
    std::vector<int> P, Q, blocks, Lp, Li, Up, Ui, Fp, Fi;
    std::vector<double> Lx, Ux, Fx, rowScale, work;
  };

 private:
  struct Klu;
  bool extractFactors();
  int n_;
  std::vector<int> colPtr_, rowIdx_;
  std::unique_ptr<Klu> klu_;
  Factors f_;
};

}  // namespace lw::num
