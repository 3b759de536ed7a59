// KLU (SuiteSparse) on a fixed sparsity pattern: analysed once, factored, then refactored in place
// with the same pivot order (no allocation) while that order stays stable. klu.h stays in the .cpp.
#pragma once

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

  int size() const { return n_; }
  const std::vector<int>& colPtr() const { return colPtr_; }
  const std::vector<int>& rowIdx() const { return rowIdx_; }
  /// Nonzeros of L + U of the current factorisation (fill-in included).
  long factorNonzeros() const;

  std::vector<double> values;
  long factorisations = 0, refactorisations = 0;  // fresh (with pivoting) and in place

 private:
  struct Klu;
  int n_;
  std::vector<int> colPtr_, rowIdx_;
  std::unique_ptr<Klu> klu_;
};

}  // namespace lw::num
