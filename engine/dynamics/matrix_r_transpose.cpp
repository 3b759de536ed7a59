// MatrixRParameterTranspose (matrix_r_derivatives.h): the Matrix R tangent's parameter lanes at
// one point taken backwards, for the adjoint's products.
#include "dynamics/matrix_r_transpose.h"

namespace lw::dyn {

void rowPointsOf(const RecursiveModel& tree, const std::vector<int>& selected, const std::vector<Dof>& dofs, std::span<const ItemIndex> extra,
                 std::vector<ItemIndex>& points, std::vector<RowPoint>& rows) {
  points.assign(extra.begin(), extra.end());
  rows.clear();
  auto pointIndex = [&](ItemIndex p) {
    for (std::size_t i = extra.size(); i < points.size(); ++i)
      if (points[i] == p) return static_cast<int>(i);
    points.push_back(p);
    return static_cast<int>(points.size()) - 1;
  };
  for (std::size_t i = 0; i < selected.size(); ++i) {
    const int row = selected[i];
    for (const LoopConstraint& c : tree.constraints) {
      // a coordinate driver's row is its point's component (a tree joint's driver reads no point)
      if (c.kind == LoopConstraint::Kind::Driver && row == c.row) {
        const auto& dv = tree.mechanism->drivers[static_cast<std::size_t>(c.index)];
        if (dv.type == Driver::Type::Coordinate) rows.push_back({static_cast<int>(i), pointIndex(dv.point), dv.component, 1.0});
        continue;
      }
      // a quaternion's unit row reads no point (and no number: |q|² − 1), a revolute's axis rows
      // (from row 3) no point either, and no lane turns an axis
      if (row < c.row || row >= c.row + c.rows || c.kind != LoopConstraint::Kind::CutJoint || row - c.row >= 3) continue;
      const auto& jt = tree.mechanism->joints[static_cast<std::size_t>(c.index)];
      for (int side = 0; side < 2; ++side) rows.push_back({static_cast<int>(i), pointIndex(jt.points[side]), row - c.row, side == 1 ? 1.0 : -1.0});
    }
  }
  for (std::size_t k = 0; k < dofs.size(); ++k) {
    const Dof& f = dofs[k];
    if (f.kind == Dof::Kind::PointComponent) rows.push_back({static_cast<int>(selected.size() + k), pointIndex(f.item), f.component, 1.0});
  }
}

MatrixRParameterTranspose::MatrixRParameterTranspose() : d_(std::make_unique<Data>()) {}
MatrixRParameterTranspose::~MatrixRParameterTranspose() = default;
std::span<const ItemIndex> MatrixRParameterTranspose::points() const { return d_->points; }
const MotionAtState& MatrixRParameterTranspose::state() const { return *d_->state; }

void MatrixRParameterTranspose::adjoint(const TreeNumbers<double>& values, const Eigen::VectorXd& wzidd, const Eigen::VectorXd& wz,
                                        const Eigen::VectorXd& wzd, const Eigen::VectorXd& wzdd, const double* wr, const double* wv,
                                        const double* wa, NumbersAdjoint& out, Eigen::VectorXd& wTau) const {
  const Data& d = *d_;
  const RecursiveModel& tree = *d.tree;
  // backwards through M̄ δz̈ⁱ = −R^Φᵀ(M^d δa + δτ + δ(Φ_zᵀλ)), δz̈ = R^Φ δz̈ⁱ + δa
  const Eigen::VectorXd u = d.mbar.solve(Eigen::VectorXd(wzidd + d.R.transpose() * wzdd));
  const Eigen::VectorXd y = -(d.R * u);
  // then through Θ δa = −(Θ̈ δz + 2Θ̇ δż + Ψ̈_ρ), Θ δż = −(Θ̇ δz + Ψ̇_ρ), Θ δz = −Ψ_ρ
  const auto thetaT = d.theta.transpose();
  const Eigen::VectorXd psiA = -Eigen::VectorXd(thetaT.solve(Eigen::VectorXd(wzdd + d.Md * y)));
  Eigen::VectorXd gzd = wzd + d.tauZd.transpose() * y;
  gzd.noalias() += 2 * (d.rates.transpose() * psiA);
  const Eigen::VectorXd psiV = -Eigen::VectorXd(thetaT.solve(gzd));
  Eigen::VectorXd gz = wz + d.tauZ.transpose() * y;
  gz.noalias() += d.secondRates.transpose() * psiA;
  gz.noalias() += d.rates.transpose() * psiV;
  const Eigen::VectorXd psiZ = -Eigen::VectorXd(thetaT.solve(gz));
  // the points' weights: the extra ones', and Ψ's rows' on theirs
  const std::size_t np = 3 * d.points.size(), ne = 3 * d.extra;
  thread_local std::vector<double> r, v, a;
  r.assign(np, 0.0);
  v.assign(np, 0.0);
  a.assign(np, 0.0);
  for (std::size_t i = 0; i < ne; ++i) {
    if (wr) r[i] = wr[i];
    if (wv) v[i] = wv[i];
    if (wa) a[i] = wa[i];
  }
  // the multipliers as loads −s λ e_k at the loops' points: λᵀ δΦ_z y in the same reverse pass
  const auto nc = d.lambda.size();
  thread_local std::vector<PointLoad> loads;
  thread_local std::vector<int> loadPoint;  // by load: its point's index in d.points
  loads.clear();
  loadPoint.clear();
  for (const RowPoint& rp : d.rowPoints) {
    const auto i = static_cast<std::size_t>(3 * rp.point + rp.component);
    r[i] += rp.sign * psiZ[rp.row];
    v[i] += rp.sign * psiV[rp.row];
    a[i] += rp.sign * psiA[rp.row];
    if (rp.row >= nc || d.lambda[rp.row] == 0) continue;
    PointLoad q{d.points[static_cast<std::size_t>(rp.point)], Eigen::Vector3d::Zero()};
    q.force[rp.component] = -rp.sign * d.lambda[rp.row];
    loads.push_back(q);
    loadPoint.push_back(rp.point);
  }
  inverseDynamicsNumbersAdjoint(tree, values, *d.state, y.data(), d.points, r.data(), v.data(), a.data(), out, loads);
  for (std::size_t j = 0; j < loads.size(); ++j) out.points[static_cast<std::size_t>(loadPoint[j])] += out.loadPoints[j];
  wTau = y;
}

}  // namespace lw::dyn
