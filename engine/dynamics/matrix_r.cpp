#include "dynamics/matrix_r.h"
#include "dynamics/recursive_data.h"

#include "dynamics/generalized_forces.h"
#include "dynamics/tyre.h"
#include "numeric/four.h"
#include "numeric/sparse_lu.h"

#include <Eigen/Cholesky>
#include <Eigen/Geometry>
#include <Eigen/LU>
#include <Eigen/QR>
#include <cmath>
#include <limits>
#include <sstream>

namespace lw::dyn {

// factorisations and scratch of an evaluation, sized once (no allocation per step)
class MatrixRSolvers {
 public:
  MatrixRSolvers(const RecursiveModel& tree, const TreeNumbers<double>& numbers)
      : lu(tree.nz), forces(tree, numbers), dz(tree.nz), x(tree.nz), y(tree.nz), sign(tree.nz), zero(Eigen::VectorXd::Zero(tree.nz)) {
    forces.shareFrames(recursive);
  }
  RecursiveData recursive;                  // the kernels' poses and scratch (this run's own)
  Eigen::PartialPivLU<Eigen::MatrixXd> lu;  // Θ_z dense, one factorisation per evaluation
  std::unique_ptr<num::SparseLu> klu;       // Θ_z sparse (large trees), pattern per choice of coordinates
  std::vector<int> thetaSource;             // per entry of klu's pattern in a loop row: its index in blocks
  std::vector<double> blocks;               // Φ_z on its pattern (loopJacobianBlocks), sparse Θ_z only
  Eigen::LLT<Eigen::MatrixXd> llt;          // M̄
  GeneralizedForces<double> forces;         // Q^d
  Eigen::VectorXd dz, x, y, sign, zero, tmp;
  Eigen::MatrixXd Jp, dofRows, Rt;
  bool valid = false;  // Θ_z is factorised for the current choice of coordinates

  /// Sparse: Θ_z's values gathered straight from the loop Jacobian's blocks (thetaSource) and
  /// the independent coordinates' rows B (no dense Θ_z).
  bool factorSparse(int nc, const Eigen::MatrixXd& B, double& rcond) {
    const auto& colPtr = klu->colPtr();
    const auto& rowIdx = klu->rowIdx();
    for (Eigen::Index c = 0; c < B.cols(); ++c)
      for (int p = colPtr[static_cast<std::size_t>(c)]; p < colPtr[static_cast<std::size_t>(c) + 1]; ++p) {
        const int r = rowIdx[static_cast<std::size_t>(p)];
        klu->values[static_cast<std::size_t>(p)] =
            r < nc ? blocks[static_cast<std::size_t>(thetaSource[static_cast<std::size_t>(p)])] : B(r - nc, c);
      }
    if (!klu->factor()) {
      rcond = 0;
      return false;
    }
    // the pivot ratio is cheap; the 1-norm estimate only where the choice of coordinates may be
    // going singular (the switching threshold is 1e-7; the ratio can overestimate 1000-fold)
    rcond = klu->rcond(1e-2);
    return true;
  }
  bool factorDense(const Eigen::MatrixXd& Theta, double& rcond) {
    lu.compute(Theta);
    rcond = denseRcond(Theta);
    return true;
  }
  /// Θ_z X = B in place (B: nz × ncols)
  void solveInPlace(Eigen::VectorXd& b) {
    if (klu) klu->solve(b.data());
    else b = lu.solve(b);  // Eigen solves in place for an aliased vector
  }
  void solveInPlace(Eigen::MatrixXd& B) {
    if (klu) klu->solve(B.data(), static_cast<int>(B.cols()));
    else B = lu.solve(B);
  }

 private:
  // 1 / (‖Θ‖₁ ‖Θ⁻¹‖₁) with ‖Θ⁻¹‖₁ by Hager's estimator (as Eigen's rcond, without its allocations)
  double denseRcond(const Eigen::MatrixXd& A) {
    const Eigen::Index n = A.rows();
    double norm = 0;
    for (Eigen::Index j = 0; j < n; ++j) norm = std::max(norm, A.col(j).cwiseAbs().sum());
    if (norm == 0) return 0;
    x.setConstant(1.0 / static_cast<double>(n));
    double estimate = 0;
    const Eigen::MatrixXd& LU = lu.matrixLU();
    for (int it = 0; it < 5; ++it) {
      y.noalias() = lu.permutationP() * x;  // Θ y = x by P, L, U in place: no temporaries
      LU.triangularView<Eigen::UnitLower>().solveInPlace(y);
      LU.triangularView<Eigen::Upper>().solveInPlace(y);
      estimate = y.cwiseAbs().sum();
      for (Eigen::Index i = 0; i < n; ++i) sign[i] = y[i] >= 0 ? 1.0 : -1.0;
      // Θᵀ y = sign: Uᵀ, Lᵀ, then Pᵀ
      LU.triangularView<Eigen::Upper>().transpose().solveInPlace(sign);
      LU.triangularView<Eigen::UnitLower>().transpose().solveInPlace(sign);
      y.noalias() = lu.permutationP().transpose() * sign;
      Eigen::Index j = 0;
      const double top = y.cwiseAbs().maxCoeff(&j);
      if (it > 0 && top <= y.dot(x)) break;
      x.setZero();
      x[j] = 1;
    }
    return std::isfinite(estimate) && estimate > 0 ? 1 / (norm * estimate) : 0;
  }
};

namespace {

// the value of an independent coordinate, its Jacobian row and Ḃż
double dofValue(const MatrixRModel& m, MatrixRSolvers& s, const Dof& f, const Eigen::VectorXd& z) {
  if (f.kind == Dof::Kind::Coordinate) return z[f.z];
  Eigen::Vector3d r;
  s.zero.setZero(z.size());
  pointState(m.tree, s.recursive, f.body, f.point, z, s.zero, s.zero, &r, nullptr, nullptr);
  return r[f.component];
}

}  // namespace

// from this many tree coordinates on, Θ_z is factorised sparse (lw_bench_dynamics evaluation-parts)
constexpr int kSparseThetaFrom = 40;

MatrixRModel compileMatrixR(const ResolvedMechanism& m) {
  MatrixRModel mr;
  mr.tree = compileRecursiveModel(m);
  mr.lengthScale = m.lengthScale();
  Eigen::MatrixXd J;
  RecursiveData data;
  loopJacobian(mr.tree, data, mr.tree.z0, 0.0, J);
  const std::vector<int> live = nonzeroRows(J, 0, static_cast<int>(J.rows()));
  if (!live.empty()) {
    Eigen::MatrixXd Jt(J.cols(), static_cast<Eigen::Index>(live.size()));
    for (std::size_t i = 0; i < live.size(); ++i) Jt.col(static_cast<Eigen::Index>(i)) = J.row(live[i]).transpose();
    Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(Jt.rows(), Jt.cols());
    qr.setThreshold(1e-9);
    qr.compute(Jt);
    for (Eigen::Index k = 0; k < qr.rank(); ++k) mr.rows.push_back(live[static_cast<std::size_t>(qr.colsPermutation().indices()[k])]);
    std::sort(mr.rows.begin(), mr.rows.end());
  }
  mr.selected.assign(static_cast<std::size_t>(mr.tree.nrows), 0);
  for (int r : mr.rows) mr.selected[static_cast<std::size_t>(r)] = 1;
  mr.userDofs = !m.independent.empty();
  mr.sparseTheta = mr.tree.nz >= kSparseThetaFrom;
  const int d = mr.tree.nz - static_cast<int>(mr.rows.size());
  if (mr.userDofs && static_cast<int>(m.independent.size()) != d)
    mr.error = "the file names " + std::to_string(m.independent.size()) + " independent coordinates, but the mechanism has " +
               std::to_string(d) + " degrees of freedom";
  for (const auto& ic : m.independent)
    if (ic.isJoint && mr.tree.treeJointNode[static_cast<std::size_t>(ic.joint)] < 0)
      mr.error = "joint '" + m.joints[static_cast<std::size_t>(ic.joint)].name +
                 "' closes a loop of the spanning tree: Matrix R takes its independent coordinates among the tree's "
                 "coordinates and points' coordinates; choose a tree joint or a point coordinate";
  return mr;
}

MatrixRData::MatrixRData(const MatrixRModel& model, const TreeNumbers<double>* numbers)
    : z(model.tree.z0), zd(Eigen::VectorXd::Zero(model.tree.nz)), zdd(Eigen::VectorXd::Zero(model.tree.nz)),
      solvers(std::make_unique<MatrixRSolvers>(model.tree, numbers ? *numbers : model.tree.numbers)) {}
MatrixRData::~MatrixRData() = default;
MatrixRData::MatrixRData(MatrixRData&&) noexcept = default;

lw::Status chooseDofs(const MatrixRModel& m, MatrixRData& d) {
  d.solvers->valid = false;  // Θ_z changes with the choice, and so does its pattern
  d.evaluated = false;
  d.solvers->klu.reset();
  const auto& mech = *m.tree.mechanism;
  const int nz = m.tree.nz;
  d.dofs.clear();
  if (m.userDofs) {
    for (const auto& ic : mech.independent) {
      Dof f;
      if (ic.isJoint) {
        const Node& n = m.tree.nodes[static_cast<std::size_t>(m.tree.treeJointNode[static_cast<std::size_t>(ic.joint)])];
        f.kind = Dof::Kind::Coordinate;
        f.z = n.z;
        f.name = "joint " + mech.joints[static_cast<std::size_t>(ic.joint)].name;
      } else {
        f.kind = Dof::Kind::PointComponent;
        f.body = ic.point.body;
        f.item = ic.point;
        f.point = mech.bodies[static_cast<std::size_t>(ic.point.body)].points[static_cast<std::size_t>(ic.point.index)];
        f.component = ic.component;
        f.name = mech.bodies[static_cast<std::size_t>(ic.point.body)].name + "." +
                 mech.bodies[static_cast<std::size_t>(ic.point.body)].pointNames[static_cast<std::size_t>(ic.point.index)] + "." +
                 "xyz"[ic.component];
      }
      d.dofs.push_back(f);
    }
  } else {
    // the coordinates the constraints do not pivot on (column-pivoted QR of Φ_z at the current z)
    loopJacobian(m.tree, d.solvers->recursive, d.z, d.t, d.J);
    std::vector<char> dependent(static_cast<std::size_t>(nz), 0);
    if (!m.rows.empty()) {
      Eigen::MatrixXd Js(static_cast<Eigen::Index>(m.rows.size()), nz);
      for (std::size_t i = 0; i < m.rows.size(); ++i) Js.row(static_cast<Eigen::Index>(i)) = d.J.row(m.rows[i]);
      Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(Js);
      for (std::size_t i = 0; i < m.rows.size(); ++i) dependent[static_cast<std::size_t>(qr.colsPermutation().indices()[static_cast<Eigen::Index>(i)])] = 1;
    }
    for (const Node& n : m.tree.nodes)
      for (int k = 0; k < n.nz; ++k) {
        if (dependent[static_cast<std::size_t>(n.z + k)]) continue;
        Dof f;
        f.z = n.z + k;
        const std::string who = n.joint >= 0 ? "joint " + mech.joints[static_cast<std::size_t>(n.joint)].name
                                             : "body " + mech.bodies[static_cast<std::size_t>(n.body)].name;
        f.name = n.nz == 1 ? who : who + "[" + std::to_string(k) + "]";
        d.dofs.push_back(f);
      }
  }
  const auto nd = static_cast<Eigen::Index>(d.dofs.size());
  d.zi.resize(nd);
  d.zid.resize(nd);
  d.zidd.setZero(nd);
  Eigen::MatrixXd Jp;
  for (Eigen::Index k = 0; k < nd; ++k) {
    const Dof& f = d.dofs[static_cast<std::size_t>(k)];
    d.zi[k] = dofValue(m, *d.solvers, f, d.z);
    if (f.kind == Dof::Kind::Coordinate) {
      d.zid[k] = d.zd[f.z];
    } else {
      pointJacobian(m.tree, d.solvers->recursive, f.body, f.point, d.z, Jp);
      d.zid[k] = Jp.row(f.component).dot(d.zd);
    }
  }
  d.dofsAreTheCoordinates = coordinatesAreTheDofs(m, d.dofs);
  return {};
}

bool coordinatesAreTheDofs(const MatrixRModel& m, const std::vector<Dof>& dofs) {
  bool same = m.rows.empty() && static_cast<int>(dofs.size()) == m.tree.nz;
  for (std::size_t k = 0; k < dofs.size() && same; ++k) same = dofs[k].kind == Dof::Kind::Coordinate && dofs[k].z == static_cast<int>(k);
  return same;
}

namespace {

// the structural pattern of Θ_z for the current choice of coordinates: a loop row's
// (RecursiveModel::rowColumns); a point coordinate reads the nodes above its body
void thetaPattern(const MatrixRModel& m, MatrixRData& d) {
  const auto& tree = m.tree;
  std::vector<int> selected(static_cast<std::size_t>(tree.nrows), -1);
  for (std::size_t i = 0; i < m.rows.size(); ++i) selected[static_cast<std::size_t>(m.rows[i])] = static_cast<int>(i);
  std::vector<std::pair<int, int>> entries;  // (column, row)
  for (int r = 0; r < tree.nrows; ++r)
    if (selected[static_cast<std::size_t>(r)] >= 0)
      for (int col : tree.rowColumns[static_cast<std::size_t>(r)]) entries.emplace_back(col, selected[static_cast<std::size_t>(r)]);
  const int nc = static_cast<int>(m.rows.size());
  for (std::size_t k = 0; k < d.dofs.size(); ++k) {
    const Dof& f = d.dofs[k];
    const int row = nc + static_cast<int>(k);
    if (f.kind == Dof::Kind::Coordinate) {
      entries.emplace_back(f.z, row);
    } else {
      for (int n = tree.nodeOfBody[static_cast<std::size_t>(f.body)]; n >= 0; n = tree.nodes[static_cast<std::size_t>(n)].parentNode)
        for (int i = 0; i < tree.nodes[static_cast<std::size_t>(n)].nz; ++i) entries.emplace_back(tree.nodes[static_cast<std::size_t>(n)].z + i, row);
    }
  }
  std::sort(entries.begin(), entries.end());
  entries.erase(std::unique(entries.begin(), entries.end()), entries.end());
  std::vector<int> colPtr(static_cast<std::size_t>(tree.nz) + 1, 0), rowIdx;
  rowIdx.reserve(entries.size());
  for (const auto& [c, r] : entries) {
    colPtr[static_cast<std::size_t>(c) + 1]++;
    rowIdx.push_back(r);
  }
  for (std::size_t c = 0; c < static_cast<std::size_t>(tree.nz); ++c) colPtr[c + 1] += colPtr[c];
  // where each loop entry (row i of Θ_z = row rows[i] of Φ, column c) lies in Φ_z's blocks
  std::vector<const LoopConstraint*> constraintOfRow(static_cast<std::size_t>(tree.nrows), nullptr);
  for (const LoopConstraint& lc : tree.constraints)
    for (int r = lc.row; r < lc.row + lc.rows; ++r) constraintOfRow[static_cast<std::size_t>(r)] = &lc;
  auto& source = d.solvers->thetaSource;
  source.assign(rowIdx.size(), -1);
  for (int c = 0; c < tree.nz; ++c)
    for (int p = colPtr[static_cast<std::size_t>(c)]; p < colPtr[static_cast<std::size_t>(c) + 1]; ++p) {
      const int i = rowIdx[static_cast<std::size_t>(p)];
      if (i >= nc) continue;
      const int r = m.rows[static_cast<std::size_t>(i)];
      const LoopConstraint& lc = *constraintOfRow[static_cast<std::size_t>(r)];
      const auto& cols = tree.rowColumns[static_cast<std::size_t>(r)];
      const auto j = std::lower_bound(cols.begin(), cols.end(), c) - cols.begin();
      source[static_cast<std::size_t>(p)] = lc.block + static_cast<int>(j) * lc.rows + (r - lc.row);
    }
  d.solvers->klu = std::make_unique<num::SparseLu>(tree.nz, std::move(colPtr), std::move(rowIdx), false);
}

// Θ_z = [Φ_z (independent rows); B] at d.z, factorised
bool factorTheta(const MatrixRModel& m, MatrixRData& d) {
  const int nz = m.tree.nz;
  // sparse: Φ_z's selected rows on its pattern only; dense: d.J only ever holds this model's
  // Jacobian, so its structural zeros stay zero between calls
  if (m.sparseTheta) loopJacobianBlocks(m.tree, d.solvers->recursive, d.z, d.t, d.solvers->blocks, &m.selected);
  else loopJacobian(m.tree, d.solvers->recursive, d.z, d.t, d.J, true);
  // B: the independent coordinates' rows
  Eigen::MatrixXd& B = d.solvers->dofRows;
  B.setZero(static_cast<Eigen::Index>(d.dofs.size()), nz);
  Eigen::MatrixXd& Jp = d.solvers->Jp;
  for (std::size_t k = 0; k < d.dofs.size(); ++k) {
    const Dof& f = d.dofs[k];
    const auto row = static_cast<Eigen::Index>(k);
    if (f.kind == Dof::Kind::Coordinate) {
      B(row, f.z) = 1;
    } else {
      pointJacobian(m.tree, d.solvers->recursive, f.body, f.point, d.z, Jp);
      B.row(row) = Jp.row(f.component);
    }
  }
  if (nz == 0) {
    d.rcond = 1;
    return true;
  }
  if (m.sparseTheta) {
    if (!d.solvers->klu) thetaPattern(m, d);
    if (!d.solvers->factorSparse(static_cast<int>(m.rows.size()), B, d.rcond)) return false;
  } else {
    d.Theta.resize(nz, nz);
    for (std::size_t i = 0; i < m.rows.size(); ++i) d.Theta.row(static_cast<Eigen::Index>(i)) = d.J.row(m.rows[i]);
    d.Theta.bottomRows(B.rows()) = B;
    if (!d.solvers->factorDense(d.Theta, d.rcond)) return false;
  }
  return std::isfinite(d.rcond) && d.rcond > 1e-13;
}

}  // namespace

lw::Status initialState(const MatrixRModel& m, MatrixRData& d) {
  if (!m.ok()) return lw::failure(lw::Status::Code::NotDriven, 0, m.error);
  const auto& mech = *m.tree.mechanism;
  d.t = 0;
  d.z = m.tree.z0;
  // assemble: minimum-norm Newton steps on the independent loop equations from the stored
  // configuration (every coordinate shares the correction: smooth in the design parameters, where
  // a pivoted choice of the coordinates to move could flip between two runs a parameter apart)
  const double tol = 1e-12 * mech.lengthScale();
  const auto nc = static_cast<Eigen::Index>(m.rows.size());
  for (int it = 0; it < 100; ++it) {
    loopConstraints(m.tree, d.solvers->recursive, d.z, 0, d.phi);
    if (d.phi.size() == 0 || d.phi.cwiseAbs().maxCoeff() < tol) break;
    loopJacobian(m.tree, d.solvers->recursive, d.z, 0, d.J);
    Eigen::MatrixXd Js(nc, m.tree.nz);
    Eigen::VectorXd phis(nc);
    for (Eigen::Index i = 0; i < nc; ++i) {
      Js.row(i) = d.J.row(m.rows[static_cast<std::size_t>(i)]);
      phis[i] = d.phi[m.rows[static_cast<std::size_t>(i)]];
    }
    const Eigen::LDLT<Eigen::MatrixXd> normal(Js * Js.transpose());
    if (normal.info() != Eigen::Success || nc == 0) {
      d.z += Eigen::ColPivHouseholderQR<Eigen::MatrixXd>(d.J).solve(-d.phi);  // a singular stored configuration
    } else {
      d.z -= Js.transpose() * normal.solve(phis);
    }
    if (it == 99)
      return lw::failure(lw::Status::Code::NotConverged, 0,
                     "the mechanism cannot be assembled: residual " + lw::shortNumber(d.phi.cwiseAbs().maxCoeff()));
  }
  // initial velocities: the given rates as equations beside Φ_z ż = −Φ_t, least squares
  loopJacobian(m.tree, d.solvers->recursive, d.z, 0, d.J);
  loopRates(m.tree, d.solvers->recursive, d.z, d.zd, 0, d.phiT, d.c);
  std::vector<Eigen::VectorXd> rows;
  std::vector<double> rhs;
  Eigen::MatrixXd Jp;
  for (const auto& r : mech.initialRates) {
    switch (r.type) {
      case InitialVelocity::Type::Joint: {
        // the joint's coordinate's gradient (a tree joint's: its own coordinate)
        Eigen::VectorXd e(m.tree.nz);
        if (!jointCoordinateRowOn<double>(m.tree, m.tree.numbers, d.z.data(), r.joint, e.data()))
          return lw::failure(lw::Status::Code::BadRequest, 0,
                             "the initial rate of joint '" + mech.joints[static_cast<std::size_t>(r.joint)].name + "': the joint has no single coordinate");
        rows.push_back(e);
        rhs.push_back(r.value);
        break;
      }
      case InitialVelocity::Type::PointComponent:
        pointJacobian(m.tree, d.solvers->recursive, r.point.body,
                      mech.bodies[static_cast<std::size_t>(r.point.body)].points[static_cast<std::size_t>(r.point.index)], d.z, Jp);
        rows.push_back(Jp.row(r.component).transpose());
        rhs.push_back(r.value);
        break;
      case InitialVelocity::Type::Body: {
        const int node = m.tree.nodeOfBody[static_cast<std::size_t>(r.body)];
        const Node& n = m.tree.nodes[static_cast<std::size_t>(node)];
        // a free body's own coordinates: translation rates, then the rotation rate
        if (n.kind == NodeKind::FreePlanar) {
          for (int k = 0; k < 3; ++k) {
            Eigen::VectorXd e = Eigen::VectorXd::Zero(m.tree.nz);
            e[n.z + k] = 1;
            rows.push_back(e);
            rhs.push_back(k < 2 ? r.velocity[k] : r.angular.z());
          }
        } else if (n.kind == NodeKind::FreeSpatial) {
          for (int k = 0; k < 3; ++k) {
            Eigen::VectorXd e = Eigen::VectorXd::Zero(m.tree.nz);
            e[n.z + k] = 1;
            rows.push_back(e);
            rhs.push_back(r.velocity[k]);
          }
          // q̇ = ½ (0, ω) ⊗ q at the identity: (0, ω/2)
          for (int k = 0; k < 3; ++k) {
            Eigen::VectorXd e = Eigen::VectorXd::Zero(m.tree.nz);
            e[n.z + 4 + k] = 1;
            rows.push_back(e);
            rhs.push_back(0.5 * r.angular[k]);
          }
        } else {
          return lw::failure(lw::Status::Code::NotDriven, 0,
                         "an initial body velocity needs a free body; '" + mech.bodies[static_cast<std::size_t>(r.body)].name +
                             "' is jointed: give joint rates instead");
        }
        break;
      }
    }
  }
  Eigen::MatrixXd A(nc + static_cast<Eigen::Index>(rows.size()), m.tree.nz);
  Eigen::VectorXd b(A.rows());
  for (Eigen::Index i = 0; i < nc; ++i) {
    A.row(i) = d.J.row(m.rows[static_cast<std::size_t>(i)]);
    b[i] = -d.phiT[m.rows[static_cast<std::size_t>(i)]];
  }
  for (std::size_t k = 0; k < rows.size(); ++k) {
    A.row(nc + static_cast<Eigen::Index>(k)) = rows[k].transpose();
    b[nc + static_cast<Eigen::Index>(k)] = rhs[k];
  }
  if (A.rows() > 0 && m.tree.nz > 0) {
    d.zd = Eigen::ColPivHouseholderQR<Eigen::MatrixXd>(A).solve(b);
    // more rates than freedoms, or rates the joints or drivers contradict: a least-squares
    // compromise would start the run at velocities nobody gave (two rates of one crank averaged)
    const Eigen::VectorXd residual = A * d.zd - b;
    if (!rows.empty() && residual.cwiseAbs().maxCoeff() > 1e-8 * std::max(1.0, b.cwiseAbs().maxCoeff()))
      return lw::failure(lw::Status::Code::BadRequest, 0,
                         "the initial velocities cannot all hold (off by " + lw::shortNumber(residual.cwiseAbs().maxCoeff()) +
                             "): they give more rates than the mechanism has freedoms, or contradict its joints or drivers; give one rate per "
                             "freedom");
  }
  const lw::Status s = chooseDofs(m, d);
  if (!s.ok()) return s;
  return evaluate(m, d, 0, d.zi, d.zid);
}

void recursiveMassAndForces(const MatrixRModel& m, MatrixRData& d, double t) {
  massAndForces(m.tree, d.solvers->recursive, d.solvers->forces, d.z, d.zd, t, d.Md, d.Qd);
}

void restoreState(MatrixRData& d, double t, const Eigen::VectorXd& z, const Eigen::VectorXd& zd) {
  d.t = t;
  d.z = z;
  d.zd = zd;
  d.evaluated = false;         // no first-order guess from a state that is not this one
  d.solvers->valid = false;    // nor chord steps on its factorisation
}

namespace {

// An open tree whose independent coordinates are all its coordinates (a chain): Θ_z = I, so
// R^Φ = I, a = 0, ż = ż^i, M̄ = M^d and Q̄ = Q^d, with no factorisation of Θ_z
lw::Status evaluateOpenTree(const MatrixRModel& m, MatrixRData& d, double t, const Eigen::VectorXd& zi, const Eigen::VectorXd& zid) {
  const int nz = m.tree.nz;
  MatrixRSolvers& s = *d.solvers;
  d.t = t;
  d.zi = zi;
  d.zid = zid;
  d.z = zi;
  d.zd = zid;
  if (d.R.rows() != nz || d.R.cols() != nz) d.R.setIdentity(nz, nz);
  d.a.setZero(nz);
  d.rcond = 1;
  d.Qd.resize(nz);
  s.forces(d.z.data(), d.zd.data(), t, d.Qd.data());
  massMatrix(m.tree, s.recursive, d.z, d.Mbar, true);
  d.Qbar = d.Qd;
  if (nz > 0) {
    s.llt.compute(d.Mbar);
    if (s.llt.info() != Eigen::Success)
      return lw::failure(lw::Status::Code::Singular, t,
                          "the mass matrix is not positive definite at t = " + lw::shortNumber(t) + " (a massless body with free motion)");
    d.zidd = s.llt.solve(d.Qbar);
  }
  d.zdd = d.zidd;
  d.evaluated = true;
  return {};
}

}  // namespace

lw::Status evaluate(const MatrixRModel& m, MatrixRData& d, double t, const Eigen::VectorXd& zi,
                        const Eigen::VectorXd& zid) {
  if (d.dofsAreTheCoordinates) return evaluateOpenTree(m, d, t, zi, zid);
  const int nz = m.tree.nz;
  const auto nc = static_cast<Eigen::Index>(m.rows.size());
  const auto nd = static_cast<Eigen::Index>(d.dofs.size());
  // a first-order guess of the dependent coordinates from the last evaluation: along R^Φ for the
  // change of z^i and along the drivers' motion ż − R^Φ ż^i for the change of t. Newton then
  // starts a correction closer. Not across large changes (another branch could be nearer).
  const double scale = std::max(1.0, m.lengthScale);
  if (d.evaluated && d.R.rows() == nz && d.R.cols() == nd && d.zi.size() == nd && nz > 0) {
    const double dt = t - d.t;
    MatrixRSolvers& s = *d.solvers;
    s.dz.noalias() = dt * d.zd;
    for (Eigen::Index k = 0; k < nd; ++k) s.dz += (zi[k] - d.zi[k] - dt * d.zid[k]) * d.R.col(k);
    if (s.dz.allFinite() && s.dz.cwiseAbs().maxCoeff() < 0.05 * scale) d.z += s.dz;
  }
  d.evaluated = false;
  d.t = t;
  d.zi = zi;
  d.zid = zid;
  d.rhs.resize(nz);
  // 1. positions: Θ(z) = [Φ; h(z) − z^i] = 0 by Newton–Raphson from the previous z. The first
  // corrections reuse the previous evaluation's factorisation (a chord method: the configuration
  // moved little since); Θ_z is factorised afresh at the solution, where everything below needs it.
  // the residual is known to the rounding of the coordinates themselves: a crank driven at 2π
  // rad/s has turned 16 000 rad after 2600 s, where its row's rounding alone is 4e-12
  const double zMax = std::max(d.z.size() ? d.z.cwiseAbs().maxCoeff() : 0.0, zi.size() ? zi.cwiseAbs().maxCoeff() : 0.0);
  const double tol = 1e-12 * scale + 64 * std::numeric_limits<double>::epsilon() * zMax;
  auto singular = [&] {
    return lw::failure(lw::Status::Code::Singular, t,
                        "the independent coordinates no longer determine the position at t = " + lw::shortNumber(t) +
                            " (condition number " + (d.rcond > 0 ? lw::shortNumber(1 / d.rcond) : std::string("infinite")) + ")",
                        d.rcond > 0 ? 1 / d.rcond : 0);
  };
  double lastErr = std::numeric_limits<double>::infinity();
  for (int it = 0;; ++it) {
    loopConstraints(m.tree, d.solvers->recursive, d.z, t, d.phi, &m.selected);
    double err = 0;
    for (Eigen::Index i = 0; i < nc; ++i) {
      d.rhs[i] = -d.phi[m.rows[static_cast<std::size_t>(i)]];
      err = std::max(err, std::abs(d.rhs[i]));
    }
    for (Eigen::Index k = 0; k < nd; ++k) {
      d.rhs[nc + k] = zi[k] - dofValue(m, *d.solvers, d.dofs[static_cast<std::size_t>(k)], d.z);
      err = std::max(err, std::abs(d.rhs[nc + k]));
    }
    if (err < tol) {
      if (!factorTheta(m, d)) return singular();
      d.solvers->valid = true;
      break;
    }
    if (it == 30)
      return lw::failure(lw::Status::Code::NotConverged, t,
                     "the position problem did not converge at t = " + lw::shortNumber(t) + " (residual " + lw::shortNumber(err) + ")");
    // a fresh factorisation when there is none, after a few chord steps, or when they stall
    const bool chord = d.solvers->valid && it < 3 && err < 0.5 * lastErr;
    if (!chord) {
      if (!factorTheta(m, d)) return singular();
      d.solvers->valid = true;
    }
    lastErr = err;
    d.solvers->dz = d.rhs;
    d.solvers->solveInPlace(d.solvers->dz);
    d.z += d.solvers->dz;
  }
  // 2. R^Φ: Θ_z R = [0; I]. Sparse: solved as Rᵀ, the right-hand sides stored as rows (R^Φ by
  // rows is what M̄ needs, and KLU's own solve would walk the factors once per four columns)
  MatrixRSolvers& s = *d.solvers;
  if (s.klu) {
    s.Rt.setZero(nd, nz);
    for (Eigen::Index k = 0; k < nd; ++k) s.Rt(k, nc + k) = 1;
    s.klu->solveRows(s.Rt.data(), static_cast<int>(nd));
    d.R = s.Rt.transpose();
  } else {
    d.R.setZero(nz, nd);
    if (nz > 0 && nd > 0) {  // a fully driven mechanism has no columns to solve for
      d.R.bottomRows(nd).setIdentity();
      s.solveInPlace(d.R);
    }
    s.Rt = d.R.transpose();  // R^Φ by rows: its rows of a node are contiguous columns
  }
  // 3. velocities: Θ_z ż = [−Φ_t; ż^i], that is ż = R^Φ ż^i when no constraint moves with time
  // (no drivers): a product instead of a solve
  loopPhiT(m.tree, d.solvers->recursive, d.z, t, d.phiT);
  bool rheonomic = false;
  for (Eigen::Index i = 0; i < nc; ++i) {
    d.rhs[i] = -d.phiT[m.rows[static_cast<std::size_t>(i)]];
    rheonomic = rheonomic || d.rhs[i] != 0.0;
  }
  for (Eigen::Index k = 0; k < nd; ++k) d.rhs[nc + k] = zid[k];
  if (nz > 0 && rheonomic) {
    d.zd = d.rhs;
    s.solveInPlace(d.zd);
  } else if (nz > 0) {
    d.zd.noalias() = d.R * zid;
  }
  // 4. a: Θ_z a = [c; −Ḃż], c = −(Φ̇_z ż + Φ̇_t) with the new ż
  loopRates(m.tree, d.solvers->recursive, d.z, d.zd, t, d.phiT, d.c, &m.selected);
  for (Eigen::Index i = 0; i < nc; ++i) d.rhs[i] = d.c[m.rows[static_cast<std::size_t>(i)]];
  for (Eigen::Index k = 0; k < nd; ++k) {
    const Dof& f = d.dofs[static_cast<std::size_t>(k)];
    d.rhs[nc + k] = 0;
    if (f.kind == Dof::Kind::PointComponent) {
      Eigen::Vector3d acc;
      pointState(m.tree, d.solvers->recursive, f.body, f.point, d.z, d.zd, s.zero, nullptr, nullptr, &acc);
      d.rhs[nc + k] = -acc[f.component];  // Ḃż: the point's acceleration with z̈ = 0
    }
  }
  d.a = d.rhs;
  if (nz > 0) s.solveInPlace(d.a);
  // 5. Q^d, M̄ = R^Φᵀ M^d R^Φ and M^d a (recursively, without M^d); 6. M̄ z̈^i = Q̄
  d.Qd.resize(nz);
  s.forces(d.z.data(), d.zd.data(), t, d.Qd.data());
  reducedMass(m.tree, s.recursive, d.z, s.Rt, d.a, d.Mbar, s.tmp);
  s.tmp = d.Qd - s.tmp;
  d.Qbar.noalias() = s.Rt * s.tmp;
  if (nd > 0) {
    s.llt.compute(d.Mbar);
    if (s.llt.info() != Eigen::Success)
      return lw::failure(lw::Status::Code::Singular, t,
                     "the reduced mass matrix is not positive definite at t = " + lw::shortNumber(t) +
                         " (a massless body with free motion, or a singular choice of coordinates)");
    d.zidd = s.llt.solve(d.Qbar);
  }
  d.zdd = d.a;
  d.zdd.noalias() += d.R * d.zidd;
  d.evaluated = true;
  return {};
}

const Eigen::PartialPivLU<Eigen::MatrixXd>* MatrixRData::thetaFactor() const {
  return evaluated && solvers && !dofsAreTheCoordinates && !solvers->klu && z.size() > 0 ? &solvers->lu : nullptr;
}
const Eigen::LLT<Eigen::MatrixXd>* MatrixRData::reducedMassFactor() const {
  return evaluated && solvers && !dofs.empty() ? &solvers->llt : nullptr;
}

Energy energy(const MatrixRModel& m, const MatrixRData& d) {
  MotionSnapshot s;
  motionSnapshot(m.tree, d.solvers->recursive, d.z, d.zd, 0.0, s);
  return energy(m.tree, d.solvers->recursive, s, d.z);
}


}  // namespace lw::dyn
