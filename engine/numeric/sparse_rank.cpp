#include "numeric/sparse_rank.h"

#include <SuiteSparseQR.hpp>

#include <algorithm>
#include <cmath>
#include <new>

namespace lw::num {
namespace {

using Long = SuiteSparse_long;

// CHOLMOD's workspace for one call, finished however the call ends
struct Common {
  cholmod_common cc;
  Common() {
    cholmod_l_start(&cc);
    cc.print = 0;  // no messages on standard output
  }
  ~Common() { cholmod_l_finish(&cc); }
};

// A in compressed columns, duplicates summed; the largest column norm into `largest`
cholmod_sparse* compress(int rows, int cols, const std::vector<Entry>& entries, cholmod_common* cc, double& largest) {
  cholmod_triplet* t = cholmod_l_allocate_triplet(static_cast<std::size_t>(rows), static_cast<std::size_t>(cols), entries.size(), 0,
                                                  CHOLMOD_REAL, cc);
  if (!t) return nullptr;
  auto* ti = static_cast<Long*>(t->i);
  auto* tj = static_cast<Long*>(t->j);
  auto* tx = static_cast<double*>(t->x);
  for (std::size_t k = 0; k < entries.size(); ++k) {
    ti[k] = entries[k].row;
    tj[k] = entries[k].col;
    tx[k] = entries[k].value;
  }
  t->nnz = entries.size();
  cholmod_sparse* A = cholmod_l_triplet_to_sparse(t, entries.size(), cc);
  cholmod_l_free_triplet(&t, cc);
  largest = 0;
  if (!A) return nullptr;
  const auto* p = static_cast<const Long*>(A->p);
  const auto* x = static_cast<const double*>(A->x);
  for (int j = 0; j < cols; ++j) {
    double sum = 0;
    for (Long k = p[j]; k < p[j + 1]; ++k) sum += x[k] * x[k];
    largest = std::max(largest, std::sqrt(sum));
  }
  return A;
}

}  // namespace

SparseRank sparseColumnRank(int rows, int cols, const std::vector<Entry>& entries, double relativeTolerance) {
  SparseRank out;
  if (rows == 0 || cols == 0) {
    for (int j = 0; j < cols; ++j) out.dependent.push_back(j);
    return out;
  }
  Common c;
  double largest = 0;
  cholmod_sparse* A = compress(rows, cols, entries, &c.cc, largest);
  if (!A) throw std::bad_alloc();
  cholmod_sparse* R = nullptr;
  Long* E = nullptr;
  // the rank-revealing column order: the live (independent) columns first, the dead ones last
  const Long rank = SuiteSparseQR<double>(SPQR_ORDERING_DEFAULT, std::max(relativeTolerance * largest, 1e-300), 0, A, &R, &E, &c.cc);
  cholmod_l_free_sparse(&A, &c.cc);
  cholmod_l_free_sparse(&R, &c.cc);
  if (rank < 0) {
    if (E) cholmod_l_free(static_cast<std::size_t>(cols), sizeof(Long), E, &c.cc);
    throw std::bad_alloc();
  }
  out.rank = static_cast<int>(rank);
  for (int k = out.rank; k < cols; ++k) out.dependent.push_back(E ? static_cast<int>(E[k]) : k);
  std::sort(out.dependent.begin(), out.dependent.end());
  if (E) cholmod_l_free(static_cast<std::size_t>(cols), sizeof(Long), E, &c.cc);
  return out;
}

bool sparseLeastSquares(int rows, int cols, const std::vector<Entry>& entries, const Eigen::VectorXd& b, double relativeTolerance,
                        Eigen::VectorXd& x) {
  x.setZero(cols);
  if (rows == 0 || cols == 0) return true;
  Common c;
  double largest = 0;
  cholmod_sparse* A = compress(rows, cols, entries, &c.cc, largest);
  if (!A) return false;
  cholmod_dense* B = cholmod_l_allocate_dense(static_cast<std::size_t>(rows), 1, static_cast<std::size_t>(rows), CHOLMOD_REAL, &c.cc);
  if (!B) {
    cholmod_l_free_sparse(&A, &c.cc);
    return false;
  }
  std::copy(b.data(), b.data() + rows, static_cast<double*>(B->x));
  cholmod_dense* X = SuiteSparseQR<double>(SPQR_ORDERING_DEFAULT, std::max(relativeTolerance * largest, 1e-300), A, B, &c.cc);
  cholmod_l_free_sparse(&A, &c.cc);
  cholmod_l_free_dense(&B, &c.cc);
  if (!X) return false;
  const auto* xs = static_cast<const double*>(X->x);
  std::copy(xs, xs + cols, x.data());
  cholmod_l_free_dense(&X, &c.cc);
  return x.allFinite();
}

}  // namespace lw::num
