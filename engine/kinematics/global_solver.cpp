#include "kinematics/global_solver.h"

#include <Eigen/LU>
#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "numeric/sparse_lu.h"
#include "numeric/sparse_rank.h"

namespace lw::kin {

class DenseLu {
 public:
  explicit DenseLu(int n) : lu(n) {}
  Eigen::PartialPivLU<Eigen::MatrixXd> lu;
};

GlobalData::GlobalData(const NaturalModel& m, KinematicsOptions o)
    : options(o), q(m.q0), qd(Eigen::VectorXd::Zero(m.nq)), qdd(Eigen::VectorXd::Zero(m.nq)),
      phi(m.nrows), phiT(m.nrows), gamma(m.nrows), rhs(m.nq), dq(m.nq) {
  // n² buffers for the dense solver only (a sparse run of 10⁴ bodies would need gigabytes)
  if (o.solver == LinearSolverKind::Dense) {
    J.resize(m.nrows, m.nq);
    Jsel.resize(m.nq, m.nq);
    dense = std::make_unique<DenseLu>(m.nq);
  }
}
GlobalData::~GlobalData() = default;
GlobalData::GlobalData(GlobalData&&) noexcept = default;

namespace {

double scaleOf(const NaturalModel& m) { return m.mechanism ? m.mechanism->lengthScale() : 1.0; }

// index of the largest |phi| entry over all rows
int worstRow(const Eigen::VectorXd& phi) {
  Eigen::Index i = 0;
  if (phi.size()) phi.cwiseAbs().maxCoeff(&i);
  return static_cast<int>(i);
}

// Φ_q restricted to the selected rows, into the dense or sparse storage; then factor it
bool factorSelected(const NaturalModel& m, GlobalData& d) {
  if (d.options.solver == LinearSolverKind::Sparse) {
    num::SparseLu& s = *d.sparse;
    std::fill(s.values.begin(), s.values.end(), 0.0);
    std::size_t k = 0;
    evaluateJacobian(m, d.q, d.t, [&](int, int, double v) {
      const int slot = d.sparseSlots[k++];
      if (slot >= 0) s.values[static_cast<std::size_t>(slot)] += v;
    });
    if (!s.factor()) {
      d.rcond = 0;
      return false;
    }
    d.rcond = s.rcond();
    return true;
  }
  evaluateJacobianDense(m, d.q, d.t, d.J);
  for (std::size_t i = 0; i < d.rows.size(); ++i) d.Jsel.row(static_cast<Eigen::Index>(i)) = d.J.row(d.rows[i]);
  d.dense->lu.compute(d.Jsel);
  d.rcond = d.dense->lu.rcond();
  return std::isfinite(d.rcond);
}

// solves Φ_q,sel x = d.rhs into d.dq
void solveSelected(GlobalData& d) {
  if (d.options.solver == LinearSolverKind::Sparse) {
    d.dq = d.rhs;
    d.sparse->solve(d.dq.data());
  } else {
    d.dq.noalias() = d.dense->lu.solve(d.rhs);
  }
}

void gatherRows(const GlobalData& d, const Eigen::VectorXd& all, double sign, Eigen::VectorXd& out) {
  for (std::size_t i = 0; i < d.rows.size(); ++i) out[static_cast<Eigen::Index>(i)] = sign * all[d.rows[i]];
}

void buildSparse(const NaturalModel& m, GlobalData& d) {
  std::vector<int> selectedIndex(static_cast<std::size_t>(m.nrows), -1);
  for (std::size_t i = 0; i < d.rows.size(); ++i) selectedIndex[static_cast<std::size_t>(d.rows[i])] = static_cast<int>(i);
  std::vector<std::pair<int, int>> entries;  // (row, col) in evaluation order
  evaluateJacobian(m, d.q, d.t, [&](int r, int c, double) { entries.emplace_back(selectedIndex[static_cast<std::size_t>(r)], c); });
  std::vector<std::pair<int, int>> pattern;  // (col, row), unique
  for (const auto& [r, c] : entries)
    if (r >= 0) pattern.emplace_back(c, r);
  std::sort(pattern.begin(), pattern.end());
  pattern.erase(std::unique(pattern.begin(), pattern.end()), pattern.end());
  std::vector<int> colPtr(static_cast<std::size_t>(m.nq) + 1, 0), rowIdx;
  for (const auto& [c, r] : pattern) {
    colPtr[static_cast<std::size_t>(c) + 1]++;
    rowIdx.push_back(r);
  }
  for (std::size_t c = 0; c < static_cast<std::size_t>(m.nq); ++c) colPtr[c + 1] += colPtr[c];
  d.sparse = std::make_unique<num::SparseLu>(m.nq, colPtr, rowIdx);
  d.sparseSlots.clear();
  for (const auto& [r, c] : entries) {
    if (r < 0) {
      d.sparseSlots.push_back(-1);
      continue;
    }
    const auto begin = pattern.begin() + colPtr[static_cast<std::size_t>(c)];
    const auto end = pattern.begin() + colPtr[static_cast<std::size_t>(c) + 1];
    const auto it = std::lower_bound(begin, end, std::make_pair(c, r));
    d.sparseSlots.push_back(static_cast<int>(it - pattern.begin()));
  }
}

}  // namespace

namespace {
// Φ_q's entries at (q, t), transposed (its rows are the columns: the sparse QR's rank reveals
// independent columns)
std::vector<num::Entry> jacobianTransposed(const NaturalModel& m, const Eigen::VectorXd& q, double t) {
  std::vector<num::Entry> out;
  evaluateJacobian(m, q, t, [&](int row, int col, double v) { out.push_back({col, row, v}); });
  return out;
}
constexpr double kRankTolerance = 1e-9;  // relative to the largest column norm of the matrix ranked
}  // namespace

NumericalMobility numericalMobility(const NaturalModel& m, const Eigen::VectorXd& q, double t) {
  NumericalMobility r;
  r.coordinates = m.nq;
  std::vector<int> plain, plainIndex(static_cast<std::size_t>(m.nrows), -1);
  for (const auto& c : m.constraints)
    for (int k = 0; k < c.rows; ++k) {
      if (c.source.kind == ConstraintSource::Kind::Driver) {
        ++r.drivers;
      } else {
        plainIndex[static_cast<std::size_t>(c.row + k)] = static_cast<int>(plain.size());
        plain.push_back(c.row + k);
      }
    }
  r.equations = static_cast<int>(plain.size());
  // The ranks from Φ_q as it is: a coordinate every constraint shares (the crank pin of the 3D
  // crank-slider) is a dense column there, which the sparse QR orders last; in Φ_qᵀ it is a dense
  // row, whose front holds every column (10⁵ units ran out of memory). Φ_qᵀ only to name the rows
  // that depend on the others, when there are any.
  std::vector<num::Entry> all, withoutDrivers;
  evaluateJacobian(m, q, t, [&](int row, int col, double v) {
    all.push_back({row, col, v});
    if (const int k = plainIndex[static_cast<std::size_t>(row)]; k >= 0) withoutDrivers.push_back({k, col, v});
  });
  if (m.nq > 0 && !plain.empty()) {
    const int rows = static_cast<int>(plain.size());
    r.rank = num::sparseColumnRank(rows, m.nq, withoutDrivers, kRankTolerance).rank;
    if (r.rank < rows) {
      for (auto& e : withoutDrivers) std::swap(e.row, e.col);
      std::set<std::string> names;
      for (int k : num::sparseColumnRank(m.nq, rows, withoutDrivers, kRankTolerance).dependent)
        names.insert(m.describeRow(plain[static_cast<std::size_t>(k)]));
      r.redundant.assign(names.begin(), names.end());
    }
  }
  r.dof = m.nq - r.rank;
  if (m.nq > 0 && m.nrows > 0) r.rankWithDrivers = num::sparseColumnRank(m.nrows, m.nq, all, kRankTolerance).rank;
  r.freeDof = m.nq - r.rankWithDrivers;
  r.passive = m.passiveSpins;
  return r;
}

Status assemble(const NaturalModel& m, GlobalData& d, double t) {
  d.t = t;
  const double tol = d.options.tolerance * scaleOf(m);
  // least-squares Newton over all rows: the stored configuration need not close exactly
  bool converged = false;
  for (int it = 0; it < 4 * d.options.maxIterations; ++it) {
    evaluateConstraints(m, d.q, t, d.phi);
    if (d.phi.cwiseAbs().maxCoeff() < tol) {
      converged = true;
      break;
    }
    std::vector<num::Entry> J;
    evaluateJacobian(m, d.q, t, [&](int row, int col, double v) { J.push_back({row, col, v}); });
    Eigen::VectorXd step;
    if (!num::sparseLeastSquares(m.nrows, m.nq, J, -d.phi, kRankTolerance, step)) break;
    // damp large steps: the stored drawing is a guess, keep to its branch
    const double n = step.cwiseAbs().maxCoeff();
    if (n > 0.2 * scaleOf(m)) step *= 0.2 * scaleOf(m) / n;
    d.q += step;
  }
  if (m.nrows == 0) converged = true;
  d.mobility = numericalMobility(m, d.q, t);
  const NumericalMobility& mob = d.mobility;
  if (mob.freeDof > 0) {
    std::string msg = "the drivers leave " + std::to_string(mob.freeDof) + " freedom" +
                      (mob.freeDof == 1 ? "" : "s") + " undetermined (" + std::to_string(mob.dof) +
                      " DOF, " + std::to_string(mob.drivers) + " driver" + (mob.drivers == 1 ? "" : "s") +
                      "): kinematics needs one driver per degree of freedom";
    return failure(Status::Code::NotDriven, t, msg);
  }
  if (!converged) {
    const int row = worstRow(d.phi);
    return failure(Status::Code::NotConverged, t,
                "the mechanism cannot be assembled at t = " + shortNumber(t) + ": the largest residual (" +
                    shortNumber(std::abs(d.phi[row])) + ") is in " + m.describeRow(row) +
                    (mob.drivers > mob.rankWithDrivers - mob.rank ? "; the drivers may contradict each other" : ""));
  }
  // independent rows, in model order (all of them unless the rank says otherwise)
  {
    const num::SparseRank rank = mob.rankWithDrivers == m.nrows ? num::SparseRank{m.nrows, {}}
                                                                : num::sparseColumnRank(m.nq, m.nrows, jacobianTransposed(m, d.q, t), kRankTolerance);
    d.rows.clear();
    std::size_t k = 0;
    for (int row = 0; row < m.nrows; ++row) {
      if (k < rank.dependent.size() && rank.dependent[k] == row) {
        ++k;
        continue;
      }
      d.rows.push_back(row);
    }
  }
  if (static_cast<int>(d.rows.size()) != m.nq)
    return failure(Status::Code::NotDriven, t, "the constraint Jacobian has rank " + std::to_string(d.rows.size()) +
                                                   " for " + std::to_string(m.nq) + " coordinates");
  if (d.options.solver == LinearSolverKind::Sparse) buildSparse(m, d);
  Status s = solveVelocities(m, d);
  if (!s.ok()) return s;
  return solveAccelerations(m, d);
}

Status solvePositions(const NaturalModel& m, GlobalData& d, double t) {
  // predictor: second-order extrapolation along the motion keeps Newton on its branch
  const double h = t - d.t;
  d.q += h * d.qd + 0.5 * h * h * d.qdd;
  d.t = t;
  const double tol = d.options.tolerance * scaleOf(m);
  for (d.iterations = 0; d.iterations <= d.options.maxIterations; ++d.iterations) {
    evaluateConstraints(m, d.q, t, d.phi);
    double err = 0;
    for (int r : d.rows) err = std::max(err, std::abs(d.phi[r]));
    if (err < tol) break;
    if (d.iterations == d.options.maxIterations) {
      const int row = worstRow(d.phi);
      return failure(Status::Code::NotConverged, t,
                  "the position problem did not converge at t = " + shortNumber(t) + " (residual " + shortNumber(err) +
                      " in " + m.describeRow(row) + "): the mechanism cannot reach this position",
                  d.rcond > 0 ? 1 / d.rcond : 0);
    }
    if (!factorSelected(m, d) || d.rcond < d.options.singularRcond)
      return failure(Status::Code::Singular, t,
                  "singular position at t = " + shortNumber(t) + ": the constraint Jacobian lost rank (condition number " +
                      (d.rcond > 0 ? shortNumber(1 / d.rcond) : std::string("infinite")) + ")",
                  d.rcond > 0 ? 1 / d.rcond : 0);
    gatherRows(d, d.phi, -1, d.rhs);
    solveSelected(d);
    d.q += d.dq;
  }
  return {};
}

Status solveVelocities(const NaturalModel& m, GlobalData& d) {
  if (!factorSelected(m, d) || d.rcond < d.options.singularRcond)
    return failure(Status::Code::Singular, d.t,
                "singular position at t = " + shortNumber(d.t) + ": velocities are not determined (condition number " +
                    (d.rcond > 0 ? shortNumber(1 / d.rcond) : std::string("infinite")) + ")",
                d.rcond > 0 ? 1 / d.rcond : 0);
  evaluatePhiT(m, d.q, d.t, d.phiT);
  gatherRows(d, d.phiT, -1, d.rhs);
  solveSelected(d);
  d.qd = d.dq;
  return {};
}

Status solveAccelerations(const NaturalModel& m, GlobalData& d) {
  // uses the factorisation of solveVelocities (same q)
  evaluateGamma(m, d.q, d.qd, d.t, d.gamma);
  gatherRows(d, d.gamma, -1, d.rhs);
  solveSelected(d);
  d.qdd = d.dq;
  return {};
}

Status solveStep(const NaturalModel& m, GlobalData& d, double t) {
  Status s = solvePositions(m, d, t);
  if (!s.ok()) return s;
  s = solveVelocities(m, d);
  if (!s.ok()) return s;
  return solveAccelerations(m, d);
}

}  // namespace lw::kin
