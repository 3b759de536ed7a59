// The index-3 formulation's matrices on their sparsity pattern (Index3Sparse, natural_dynamics.h):
// a body's mass couples its own entities, a constraint's Jacobian row and Hessian its own columns,
// so M + (h²/4)(αΦ_qᵀΦ_q + Σ w_k Φ_k,qq) has the pattern of M and of every constraint's columns
// squared. The Jacobian blocks and Hessians are the constraints' closed forms
// (constraint_derivatives.cpp). KLU factors both matrices.
#include <algorithm>

#include "dynamics/natural_dynamics.h"
#include "numeric/sparse_lu.h"

namespace lw::dyn {

struct Index3Sparse::Pattern {
  std::vector<int> colPtr, rowIdx;
  std::vector<double> mass;  // M on the pattern
  // by constraint: the slots of its columns' pairs (a × b, row-major over its columns)
  std::vector<std::vector<int>> pairSlots;
  std::unique_ptr<num::SparseLu> tangent, projection;
  // a constraint's weighted second derivatives (its columns × its columns): sized for the largest
  std::vector<double> hessian;
  int slot(int i, int j) const {
    const auto b = rowIdx.begin() + colPtr[static_cast<std::size_t>(j)], e = rowIdx.begin() + colPtr[static_cast<std::size_t>(j) + 1];
    const auto it = std::lower_bound(b, e, i);
    return it != e && *it == i ? static_cast<int>(it - rowIdx.begin()) : -1;
  }
};

Index3Sparse::Index3Sparse(const kin::NaturalModel& m, const Eigen::MatrixXd& M) : p_(std::make_unique<Pattern>()) {
  Pattern& p = *p_;
  const int n = m.nq;
  std::vector<std::vector<int>> rows(static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j) {
    rows[static_cast<std::size_t>(j)].push_back(j);
    for (int i = 0; i < n; ++i)
      if (M(i, j) != 0) rows[static_cast<std::size_t>(j)].push_back(i);
  }
  for (const kin::Constraint& c : m.constraints)
    for (int a : c.columns)
      for (int b : c.columns) rows[static_cast<std::size_t>(b)].push_back(a);
  p.colPtr.push_back(0);
  for (auto& r : rows) {
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
    p.rowIdx.insert(p.rowIdx.end(), r.begin(), r.end());
    p.colPtr.push_back(static_cast<int>(p.rowIdx.size()));
  }
  p.mass.assign(p.rowIdx.size(), 0.0);
  for (int j = 0; j < n; ++j)
    for (int k = p.colPtr[static_cast<std::size_t>(j)]; k < p.colPtr[static_cast<std::size_t>(j) + 1]; ++k)
      p.mass[static_cast<std::size_t>(k)] = M(p.rowIdx[static_cast<std::size_t>(k)], j);
  std::size_t widest = 0;
  for (const kin::Constraint& c : m.constraints) widest = std::max(widest, c.columns.size());
  p.hessian.resize(widest * widest);
  for (const kin::Constraint& c : m.constraints) {
    std::vector<int> slots;
    for (int a : c.columns)
      for (int b : c.columns) slots.push_back(p.slot(a, b));
    p.pairSlots.push_back(std::move(slots));
  }
  p.tangent = std::make_unique<num::SparseLu>(n, p.colPtr, p.rowIdx);
  p.projection = std::make_unique<num::SparseLu>(n, p.colPtr, p.rowIdx);
}

Index3Sparse::~Index3Sparse() = default;

bool Index3Sparse::factor(const kin::NaturalModel& m, double s, double alpha, double t, const Eigen::VectorXd& q, const Eigen::VectorXd* w) {
  Pattern& p = *p_;
  num::SparseLu& lu = w ? *p.tangent : *p.projection;
  lu.values = p.mass;
  // s α Σ_rows (Φ_r,a Φ_r,b)
  forEachConstraintGram(m, q, t, [&](std::size_t k, std::size_t a, std::size_t b, double v) {
    lu.values[static_cast<std::size_t>(p.pairSlots[k][a * m.constraints[k].columns.size() + b])] += s * alpha * v;
  });
  if (w) {
    // s Σ_r w_r ∂²Φ_r/∂q_a∂q_b
    for (std::size_t ci = 0; ci < m.constraints.size(); ++ci) {
      const kin::Constraint& c = m.constraints[ci];
      const std::size_t nc = c.columns.size();
      kin::constraintHessian(m, c, q, t, w->data() + c.row, p.hessian.data());
      for (std::size_t k = 0; k < nc * nc; ++k)
        if (const double h = p.hessian[k]; h != 0) lu.values[static_cast<std::size_t>(p.pairSlots[ci][k])] += s * h;
    }
  }
  return lu.factor();
}

bool Index3Sparse::solve(bool tangent, Eigen::VectorXd& x) { return (tangent ? p_->tangent : p_->projection)->solve(x.data()); }

}  // namespace lw::dyn
