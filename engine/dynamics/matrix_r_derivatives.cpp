#include "dynamics/matrix_r_derivatives.h"

#include <Eigen/LU>
#include <Eigen/QR>
#include <algorithm>
#include <complex>
#include <type_traits>

#include "dynamics/generalized_forces.h"
#include "dynamics/inverse_dynamics_derivatives.h"
#include "dynamics/tree_motion.h"
#include "numeric/jet.h"
#include "numeric/scalar.h"
#include "numeric/solve_on.h"

namespace lw::dyn {

std::vector<ItemIndex> dofPoints(const std::vector<Dof>& dofs) {
  std::vector<ItemIndex> points;
  for (const Dof& f : dofs)
    if (f.kind == Dof::Kind::PointComponent) points.push_back(f.item);
  return points;
}

namespace {

template <class S> using Jet = kin::BasicJet<S>;
template <class S> using MatrixOn = num::MatrixOn<S>;

template <class S> double real(const S& x) { return num::value(x); }


// [Φ (selected rows); h(z) − zⁱ] on T (S, or a jet on S along a direction): rows m.rows, then
// the coordinates. `points`: dofPoints(dofs).
template <class S, class T>
void thetaRows(const MatrixRModel& m, const TreeNumbers<S>& p, const std::vector<Dof>& dofs, const std::vector<ItemIndex>& points,
               const T* z, const T& t, std::vector<T>& phi, std::vector<T>& xyz, T* out) {
  phi.resize(static_cast<std::size_t>(m.tree.nrows));
  xyz.resize(3 * points.size());
  kinematicsOn<T, S>(m.tree, p, z, t, phi.data(), points, xyz.data());
  std::size_t r = 0;
  for (int row : m.rows) out[r++] = phi[static_cast<std::size_t>(row)];
  std::size_t point = 0;
  for (const Dof& f : dofs) {
    if (f.kind == Dof::Kind::Coordinate) out[r++] = z[f.z];
    else out[r++] = xyz[3 * point++ + static_cast<std::size_t>(f.component)];
  }
}

// Θ_z = ∂[Φ_sel; h]/∂z on S, a column per pass of jets
template <class S>
MatrixOn<S> thetaOn(const MatrixRModel& m, const TreeNumbers<S>& p, const std::vector<Dof>& dofs, const std::vector<ItemIndex>& points,
                    const VectorOn<S>& z, double t) {
  const int nz = m.tree.nz;
  MatrixOn<S> Theta(nz, nz);
  std::vector<Jet<S>> zj(static_cast<std::size_t>(nz)), phi, xyz, rows(static_cast<std::size_t>(nz));
  for (int i = 0; i < nz; ++i) zj[static_cast<std::size_t>(i)] = Jet<S>(z[i], S(0.0), S(0.0));
  for (int j = 0; j < nz; ++j) {
    zj[static_cast<std::size_t>(j)].d = S(1.0);
    thetaRows<S, Jet<S>>(m, p, dofs, points, zj.data(), Jet<S>(S(t)), phi, xyz, rows.data());
    for (int i = 0; i < nz; ++i) Theta(i, j) = rows[static_cast<std::size_t>(i)].d;
    zj[static_cast<std::size_t>(j)].d = S(0.0);
  }
  return Theta;
}

// Θ_z on doubles from one motion pass at z: the loops' rows along their bodies' twists
// (constraintJacobianFrom), a point's row from the columns (S_j.v + S_j.ω × r), a coordinate's
// unit row — not a jet pass per coordinate
Eigen::MatrixXd thetaFromMotion(const MatrixRModel& m, const TreeNumbers<double>& p, const std::vector<Dof>& dofs, const Eigen::VectorXd& z,
                                double t) {
  const RecursiveModel& tree = m.tree;
  const int nz = tree.nz;
  thread_local detail::TreeMotion<double> motion;
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(nz);
  detail::treeMotion<double>(tree, p, z.data(), zero.data(), zero.data(), motion);
  Eigen::MatrixXd J;
  detail::constraintJacobianFrom<double>(tree, p, motion, z.data(), t, J);
  Eigen::MatrixXd Theta = Eigen::MatrixXd::Zero(nz, nz);
  Eigen::Index r = 0;
  for (int row : m.rows) Theta.row(r++) = J.row(row);
  for (const Dof& f : dofs) {
    if (f.kind == Dof::Kind::Coordinate) {
      Theta(r++, f.z) = 1;
      continue;
    }
    const detail::V3<double> x = detail::worldPoint(motion.frames[static_cast<std::size_t>(f.body)], p.mech.point(f.item));
    for (int j = 0; j < nz; ++j) {
      if (!tree.movesWith(f.body, motion.nodeOf[static_cast<std::size_t>(j)])) continue;
      const detail::Motion6<double>& s = motion.column[static_cast<std::size_t>(j)];
      const detail::V3<double> col = detail::add(s.v, detail::cross(s.w, x));
      Theta(r, j) = col[f.component];
    }
    ++r;
  }
  return Theta;
}

// the rows along z + s ż, t + s·dt (z̈ = 0): first derivatives Θ ż + [Φ_t; 0]·dt, second the
// acceleration terms −[c; −Ḃż]
template <class S>
std::vector<Jet<S>> ratesOn(const MatrixRModel& m, const TreeNumbers<S>& p, const std::vector<Dof>& dofs,
                            const std::vector<ItemIndex>& points, const VectorOn<S>& z, const VectorOn<S>* zd, double t) {
  const int nz = m.tree.nz;
  std::vector<Jet<S>> zj(static_cast<std::size_t>(nz)), phi, xyz, rows(static_cast<std::size_t>(nz));
  for (int i = 0; i < nz; ++i) zj[static_cast<std::size_t>(i)] = Jet<S>(z[i], zd ? (*zd)[i] : S(0.0), S(0.0));
  thetaRows<S, Jet<S>>(m, p, dofs, points, zj.data(), Jet<S>(S(t), S(1.0), S(0.0)), phi, xyz, rows.data());
  return rows;
}

// The parts of S that are linear in the data (value and derivative parts): a solve with a double
// matrix acts on each alone.
template <class S> struct Lanes;
template <> struct Lanes<std::complex<double>> {
  static constexpr int n = 2;
  static double get(const std::complex<double>& x, int l) { return l ? x.imag() : x.real(); }
  static void set(std::complex<double>& x, int l, double v) { l ? x.imag(v) : x.real(v); }
};
template <int N> struct Lanes<num::Dual<N>> {
  static constexpr int n = N + 1;
  static double get(const num::Dual<N>& x, int l) { return l ? x.g[l - 1] : x.v; }
  static void set(num::Dual<N>& x, int l, double v) { (l ? x.g[l - 1] : x.v) = v; }
};

// A⁻¹ B for A on doubles (factored), B on S: part by part
template <class S>
MatrixOn<S> solveParts(const Eigen::PartialPivLU<Eigen::MatrixXd>& lu, const MatrixOn<S>& B) {
  MatrixOn<S> X(B.rows(), B.cols());
  Eigen::MatrixXd part(B.rows(), B.cols());
  for (int l = 0; l < Lanes<S>::n; ++l) {
    for (Eigen::Index j = 0; j < B.cols(); ++j)
      for (Eigen::Index i = 0; i < B.rows(); ++i) part(i, j) = Lanes<S>::get(B(i, j), l);
    const Eigen::MatrixXd sol = lu.solve(part);
    for (Eigen::Index j = 0; j < B.cols(); ++j)
      for (Eigen::Index i = 0; i < B.rows(); ++i) Lanes<S>::set(X(i, j), l, sol(i, j));
  }
  return X;
}

// exactly 0 or 1, derivative parts included
template <class S> bool exactly(const S& x, double c) {
  if constexpr (std::is_same_v<S, double>) return x == c;
  else if constexpr (std::is_same_v<S, std::complex<double>>) return x.real() == c && x.imag() == 0;
  else {
    if (x.v != c) return false;
    for (double g : x.g)
      if (g != 0) return false;
    return true;
  }
}
// the row of the single exact 1 in each column of R (the rest exact zeros), or empty
template <class S> std::vector<int> selectedRows(const MatrixOn<S>& R) {
  std::vector<int> rows;
  for (Eigen::Index k = 0; k < R.cols(); ++k) {
    int one = -1;
    for (Eigen::Index i = 0; i < R.rows(); ++i) {
      if (exactly(R(i, k), 0.0)) continue;
      if (one >= 0 || !exactly(R(i, k), 1.0)) return {};
      one = static_cast<int>(i);
    }
    if (one < 0) return {};
    rows.push_back(one);
  }
  return rows;
}

// z on S by the implicit function theorem about the double solution zStart (see evaluateOn), Θ_z
// factored in lu and z's values in zv; false when zStart does not solve the position problem (the
// caller iterates) or Θ_z is nearly singular there (the caller reports it)
// (known: lu and zv are already those of zStart)
template <class S>
bool positionsAbout(const MatrixRModel& m, const TreeNumbers<S>& p, const TreeNumbers<double>& pv, const std::vector<Dof>& dofs,
                    const std::vector<ItemIndex>& points, double t, const VectorOn<S>& zi, const Eigen::VectorXd& zStart,
                    Eigen::PartialPivLU<Eigen::MatrixXd>& lu, Eigen::VectorXd& zv, VectorOn<S>& z, bool known = false) {
  const int nz = m.tree.nz, d = static_cast<int>(dofs.size()), nc = static_cast<int>(m.rows.size());
  if (!known) {
    lu.compute(thetaFromMotion(m, pv, dofs, zStart, t));
    if (nz > 0 && !(lu.rcond() > 1e-13)) return false;
    // positions: the run's solution refined to round-off on doubles (the derivative parts are
    // those of the exact solution: a residual left would bias them), then one Newton step on S,
    // exact in the derivative parts
    const double scale = std::max(1.0, zStart.cwiseAbs().maxCoeff());
    zv = zStart;
    Eigen::VectorXd rv(nz);
    std::vector<double> phiV, xyzV;
    for (int it = 0;; ++it) {
      thetaRows<double, double>(m, pv, dofs, points, zv.data(), t, phiV, xyzV, rv.data());
      for (int k = 0; k < d; ++k) rv[nc + k] -= real(zi[k]);
      const double residual = nz > 0 ? rv.cwiseAbs().maxCoeff() : 0.0;
      if (residual <= 1e-14 * scale) break;
      if (it == 3 || residual > 1e-8 * scale) return false;  // not the run's solution: iterate on S
      zv -= lu.solve(rv);
    }
    // Θ_z where the derivative parts are taken: near a singular position (cond ~1e7) the run's
    // tolerance in z would show in them
    if (zv != zStart) lu.compute(thetaFromMotion(m, pv, dofs, zv, t));
  }
  std::vector<S> phi, xyz;
  MatrixOn<S> r(nz, 1);
  const VectorOn<S> z0 = zv.cast<S>();
  thetaRows<S, S>(m, p, dofs, points, z0.data(), S(t), phi, xyz, r.data());
  for (int k = 0; k < d; ++k) r(nc + k, 0) -= zi[k];
  z = z0 - solveParts(lu, r).col(0);
  return true;
}

// z, ż, R^Φ and a on S by the implicit function theorem about the double solution zStart (see
// evaluateOn); false as positionsAbout
template <class S>
bool linearisedOn(const MatrixRModel& m, const TreeNumbers<S>& p, const TreeNumbers<double>& pv, const std::vector<Dof>& dofs,
                  const std::vector<ItemIndex>& points, double t, const VectorOn<S>& zi, const VectorOn<S>& zid, const Eigen::VectorXd& zStart,
                  VectorOn<S>& z, VectorOn<S>& zd, MatrixOn<S>& R, VectorOn<S>& a) {
  const int nz = m.tree.nz, d = static_cast<int>(dofs.size()), nc = static_cast<int>(m.rows.size());
  Eigen::PartialPivLU<Eigen::MatrixXd> lu;
  Eigen::VectorXd zv;
  if (!positionsAbout<S>(m, p, pv, dofs, points, t, zi, zStart, lu, zv, z)) return false;
  // velocities: Θ ż + [Φ_t; −żⁱ] = 0, solved on doubles, then corrected by the residual on S
  const std::vector<Jet<double>> ratesV = ratesOn<double>(m, pv, dofs, points, zv, nullptr, t);
  Eigen::VectorXd rhs(nz);
  for (int i = 0; i < nc; ++i) rhs[i] = -ratesV[static_cast<std::size_t>(i)].d;
  for (int k = 0; k < d; ++k) rhs[nc + k] = real(zid[k]);
  const VectorOn<S> zdv = Eigen::VectorXd(lu.solve(rhs)).cast<S>();
  const std::vector<Jet<S>> rowsAt = ratesOn<S>(m, p, dofs, points, z, &zdv, t);
  MatrixOn<S> res(nz, 1);
  for (int i = 0; i < nz; ++i) res(i, 0) = rowsAt[static_cast<std::size_t>(i)].d - (i < nc ? S(0.0) : zid[i - nc]);
  zd = zdv - solveParts(lu, res).col(0);
  // R^Φ and a: Θ [R a] = B = [0 | c; I | −Ḃż]; on doubles, then corrected by B − Θ(S) X
  const std::vector<Jet<S>> along = ratesOn<S>(m, p, dofs, points, z, &zd, t);
  MatrixOn<S> B = MatrixOn<S>::Zero(nz, d + 1);
  for (int k = 0; k < d; ++k) B(nc + k, k) = S(1.0);
  for (int i = 0; i < nz; ++i) B(i, d) = -along[static_cast<std::size_t>(i)].dd;
  Eigen::MatrixXd Bv(nz, d + 1);
  for (int j = 0; j <= d; ++j)
    for (int i = 0; i < nz; ++i) Bv(i, j) = real(B(i, j));
  const Eigen::MatrixXd Xv = lu.solve(Bv);
  std::vector<Jet<S>> zj(static_cast<std::size_t>(nz)), phij, xyzj, rows(static_cast<std::size_t>(nz));
  for (int j = 0; j <= d; ++j) {
    // Θ(S) along the column: one jet pass
    for (int i = 0; i < nz; ++i) zj[static_cast<std::size_t>(i)] = Jet<S>(z[i], S(Xv(i, j)), S(0.0));
    thetaRows<S, Jet<S>>(m, p, dofs, points, zj.data(), Jet<S>(S(t)), phij, xyzj, rows.data());
    for (int i = 0; i < nz; ++i) B(i, j) -= rows[static_cast<std::size_t>(i)].d;
  }
  const MatrixOn<S> RA = MatrixOn<S>(Xv.cast<S>()) + solveParts(lu, B);
  R = RA.leftCols(d);
  a = RA.col(d);
  return true;
}

}  // namespace

// M̄ z̈ⁱ = Q̄ at a dependent state (z, ż) with R^Φ and a: the accelerations
template <class S>
Status reducedDynamicsOn(const MatrixRModel& m, const TreeNumbers<S>& p, double t, const VectorOn<S>& z, const VectorOn<S>& zd,
                         const MatrixOn<S>& R, const VectorOn<S>& a, MatrixROn<S>& out);

template <class S>
Status evaluateOn(const MatrixRModel& m, const TreeNumbers<S>& p, const std::vector<Dof>& dofs, double t, const VectorOn<S>& zi,
                  const VectorOn<S>& zid, const Eigen::VectorXd& zStart, MatrixROn<S>& out, const TreeNumbers<double>* values) {
  const int nz = m.tree.nz, d = static_cast<int>(dofs.size()), nc = static_cast<int>(m.rows.size());
  if (nc + d != nz) return failure(Status::Code::BadRequest, t, "the independent coordinates do not complete the loop equations");
  const std::vector<ItemIndex> points = dofPoints(dofs);
  if (nc == 0 && points.empty()) {
    // an open chain in its own coordinates (the ten-bar chain): Θ_z is a permutation, h linear,
    // z = zⁱ, ż = żⁱ, R^Φ the permutation's columns, a = 0: no kinematic pass at all
    VectorOn<S> z(nz), zd(nz), a = VectorOn<S>::Zero(nz);
    MatrixOn<S> R = MatrixOn<S>::Zero(nz, d);
    for (int k = 0; k < d; ++k) {
      const int j = dofs[static_cast<std::size_t>(k)].z;
      z[j] = zi[k];
      zd[j] = zid[k];
      R(j, k) = S(1.0);
    }
    return reducedDynamicsOn<S>(m, p, t, z, zd, R, a, out);
  }
  if constexpr (!std::is_same_v<S, double>) {
    VectorOn<S> z, zd, a;
    MatrixOn<S> R;
    if (values && linearisedOn<S>(m, p, *values, dofs, points, t, zi, zid, zStart, z, zd, R, a)) return reducedDynamicsOn<S>(m, p, t, z, zd, R, a, out);
  }
  // positions: Newton on [Φ_sel; h − zⁱ] = 0 from the double solution
  VectorOn<S> z = zStart.cast<S>();
  std::vector<S> phi, xyz;
  MatrixOn<S> r(nz, 1), dz, Theta;
  const double scale = std::max(1.0, zStart.cwiseAbs().maxCoeff());
  bool converged = false;
  double lastStep = 0;
  for (int it = 0; it < 30 && !converged; ++it) {
    thetaRows<S, S>(m, p, dofs, points, z.data(), S(t), phi, xyz, r.data());
    for (int k = 0; k < d; ++k) r(nc + k, 0) -= zi[k];
    Theta = thetaOn(m, p, dofs, points, z, t);
    if (!num::solveOn(Theta, r, dz)) return failure(Status::Code::Singular, t, "the loops are singular here (Θ_z)");
    z -= dz.col(0);
    double step = 0;
    for (int i = 0; i < nz; ++i) step = std::max(step, std::abs(real(dz(i, 0))));
    // from a converged start the first update's values are round-off and its derivative parts
    // exact (−Θ⁻¹ times the residual's, Θ exact on S): one iteration; from further away, Newton
    // converges quadratically in both parts
    // next to a singular position round-off (ε·cond) can exceed that: a step that no longer falls
    // and is below the double pipeline's own tolerance is converged too
    converged = step <= 1e-13 * scale || (it >= 1 && step >= 0.5 * lastStep && step <= 1e-10 * scale);
    lastStep = step;
  }
  if (!converged) return failure(Status::Code::NotConverged, t, "the position problem did not converge (on the derivatives' scalar)");
  Theta = thetaOn(m, p, dofs, points, z, t);
  // velocities: Θ ż = [−Φ_t; żⁱ]
  const std::vector<Jet<S>> phiT = ratesOn<S>(m, p, dofs, points, z, nullptr, t);
  MatrixOn<S> rhs(nz, 1), sol;
  for (int i = 0; i < nc; ++i) rhs(i, 0) = -phiT[static_cast<std::size_t>(i)].d;
  for (int k = 0; k < d; ++k) rhs(nc + k, 0) = zid[k];
  if (!num::solveOn(Theta, rhs, sol)) return failure(Status::Code::Singular, t, "the loops are singular here (Θ_z)");
  const VectorOn<S> zd = sol.col(0);
  // R^Φ and a: Θ R = [0; I], Θ a = [c; −Ḃż] (the second derivatives along ż with z̈ = 0 are
  // −c for the loops and Ḃż for the coordinates)
  const std::vector<Jet<S>> along = ratesOn<S>(m, p, dofs, points, z, &zd, t);
  MatrixOn<S> B = MatrixOn<S>::Zero(nz, d + 1), RA;
  for (int k = 0; k < d; ++k) B(nc + k, k) = S(1.0);
  for (int i = 0; i < nz; ++i) B(i, d) = -along[static_cast<std::size_t>(i)].dd;
  if (!num::solveOn(Theta, B, RA)) return failure(Status::Code::Singular, t, "the loops are singular here (Θ_z)");
  const MatrixOn<S> R = RA.leftCols(d);
  const VectorOn<S> a = RA.col(d);
  return reducedDynamicsOn<S>(m, p, t, z, zd, R, a, out);
}

template <class S>
Status reducedDynamicsOn(const MatrixRModel& m, const TreeNumbers<S>& p, double t, const VectorOn<S>& z, const VectorOn<S>& zd,
                         const MatrixOn<S>& R, const VectorOn<S>& a, MatrixROn<S>& out) {
  const int nz = m.tree.nz, d = static_cast<int>(R.cols());
  // M̄ z̈ⁱ = Q̄ from the inverse dynamics residual Q^d − M^d z̈ at z̈ = a, and M^d R column by column
  // at the same positions
  GeneralizedForces<S, S> forces(m.tree, p);
  VectorOn<S> Qa(nz), column(nz), Mcolumn(nz);
  forces(z.data(), zd.data(), t, Qa.data(), a.data());
  MatrixOn<S> MR(nz, d);
  for (int k = 0; k < d; ++k) {
    column = R.col(k);
    forces.massTimes(column.data(), Mcolumn.data());
    MR.col(k) = Mcolumn;
  }
  // an open chain in its own coordinates has R^Φ a constant selection of z: its products are rows
  // picked (on dual numbers a dense product is most of the rest of the work)
  const std::vector<int> picked = selectedRows<S>(R);
  MatrixOn<S> Mbar(d, d), Qbar(d, 1);
  if (!picked.empty()) {
    for (int k = 0; k < d; ++k) {
      Mbar.row(k) = MR.row(picked[static_cast<std::size_t>(k)]);
      Qbar(k, 0) = Qa[picked[static_cast<std::size_t>(k)]];
    }
  } else {
    Mbar = R.transpose() * MR;
    Qbar = R.transpose() * Qa;
  }
  MatrixOn<S> zidd;
  if (!num::solveOn(Mbar, Qbar, zidd)) return failure(Status::Code::Singular, t, "the reduced mass matrix is singular");
  out.z = z;
  out.zd = zd;
  out.zidd = zidd.col(0);
  if (!picked.empty()) {
    out.zdd = a;
    for (int k = 0; k < d; ++k) out.zdd[picked[static_cast<std::size_t>(k)]] += out.zidd[k];
  } else {
    out.zdd = R * out.zidd + a;
  }
  out.R = R;
  out.Mbar = Mbar;
  return {};
}

template <class S>
void independentOn(const MatrixRModel& m, const TreeNumbers<S>& p, const std::vector<Dof>& dofs, const VectorOn<S>& z,
                   const VectorOn<S>& zd, const VectorOn<S>* zdd, VectorOn<S>& zi, VectorOn<S>& zid, VectorOn<S>* zidd) {
  const std::vector<ItemIndex> points = dofPoints(dofs);
  const int nz = m.tree.nz;
  std::vector<Jet<S>> zj(static_cast<std::size_t>(nz)), phi(static_cast<std::size_t>(m.tree.nrows)), xyz(3 * points.size());
  for (int i = 0; i < nz; ++i) zj[static_cast<std::size_t>(i)] = Jet<S>(z[i], zd[i], zdd ? (*zdd)[i] : S(0.0));
  kinematicsOn<Jet<S>, S>(m.tree, p, zj.data(), Jet<S>(S(0.0)), nullptr, points, xyz.data());
  const auto d = static_cast<Eigen::Index>(dofs.size());
  zi.resize(d);
  zid.resize(d);
  if (zidd) zidd->resize(d);
  std::size_t point = 0;
  for (Eigen::Index k = 0; k < d; ++k) {
    const Dof& f = dofs[static_cast<std::size_t>(k)];
    const Jet<S> x = f.kind == Dof::Kind::Coordinate ? zj[static_cast<std::size_t>(f.z)] : xyz[3 * point++ + static_cast<std::size_t>(f.component)];
    zi[k] = x.v;
    zid[k] = x.d;
    if (zidd) (*zidd)[k] = x.dd;
  }
}

template <class S>
Status initialStateOn(const MatrixRModel& m, const TreeNumbers<S>& p, const std::vector<Dof>& dofs, const Eigen::VectorXd& z0,
                      VectorOn<S>& zi, VectorOn<S>& zid) {
  VectorOn<S> z, zd;
  if (Status s = initialCoordinatesOn<S>(m, p, z0, z, zd, true); !s.ok()) return s;
  independentOn<S>(m, p, dofs, z, zd, nullptr, zi, zid, nullptr);
  return {};
}

template <class S>
Status initialCoordinatesOn(const MatrixRModel& m, const TreeNumbers<S>& p, const Eigen::VectorXd& z0, VectorOn<S>& z, VectorOn<S>& zd,
                            bool oneStep) {
  const int nz = m.tree.nz, nc = static_cast<int>(m.rows.size());
  const auto& mech = *m.tree.mechanism;
  // the assembly as initialState() takes it: minimum-norm Newton steps on the independent loop
  // rows from the stored configuration (smooth in the parameters: no choice of coordinates to
  // hold that a perturbation could flip), run on S until values and derivative parts settle
  const std::vector<Dof> none;
  const std::vector<ItemIndex> noPoints;
  z = m.tree.z0.cast<S>();
  std::vector<S> phi, xyz;
  MatrixOn<S> r(nc, 1), Jrows(nc, nz), y;
  const double scale = std::max(1.0, z0.cwiseAbs().maxCoeff());
  detail::TreeMotion<S> motion;
  MatrixOn<S> J;
  const VectorOn<S> zero = VectorOn<S>::Zero(nz);
  auto jacobian = [&] {  // Φ_z's independent rows at z, from one motion pass (the rows along their bodies' twists)
    detail::treeMotion<S>(m.tree, p, z.data(), zero.data(), zero.data(), motion);
    detail::constraintJacobianFrom<S>(m.tree, p, motion, z.data(), 0.0, J);
    for (int i = 0; i < nc; ++i) Jrows.row(i) = J.row(m.rows[static_cast<std::size_t>(i)]);
  };
  bool converged = nc == 0;
  if constexpr (std::is_same_v<S, num::Dual8>) {
    // a stored configuration that is assembled already (the run's start to round-off): the
    // iterations' values stay and their derivative parts settle after one step at the limit
    // δz = −Jᵀ(J Jᵀ)⁻¹ Φ_ρ, the minimum-norm step; J Jᵀ on doubles, the lanes its right-hand sides
    if (!converged && oneStep) {
      thetaRows<S, S>(m, p, none, noPoints, z.data(), S(0.0), phi, xyz, r.data());
      double residual = 0;
      for (int i = 0; i < nc; ++i) residual = std::max(residual, std::abs(r(i, 0).v));
      if (residual <= 1e-14 * scale) {
        jacobian();
        Eigen::MatrixXd Jv(nc, nz), rhs(nc, num::kChunk);
        for (int i = 0; i < nc; ++i)
          for (int j = 0; j < nz; ++j) Jv(i, j) = Jrows(i, j).v;
        const Eigen::PartialPivLU<Eigen::MatrixXd> JJt(Jv * Jv.transpose());
        // the step, then one refinement on the rows' lanes at its end (as the iterations polish
        // them: the penalty formulation multiplies what Φ_z δz + Φ_ρ leaves by its α)
        for (int pass = 0; pass < 2; ++pass) {
          if (pass > 0) thetaRows<S, S>(m, p, none, noPoints, z.data(), S(0.0), phi, xyz, r.data());
          for (int i = 0; i < nc; ++i)
            for (int l = 0; l < num::kChunk; ++l) rhs(i, l) = r(i, 0).g[l];
          const Eigen::MatrixXd dz = Jv.transpose() * JJt.solve(rhs);
          for (int j = 0; j < nz; ++j)
            for (int l = 0; l < num::kChunk; ++l) z[j].g[l] -= dz(j, l);
        }
        converged = true;
      }
    }
  }
  for (int it = 0; it < 100 && !converged; ++it) {
    thetaRows<S, S>(m, p, none, noPoints, z.data(), S(0.0), phi, xyz, r.data());
    jacobian();
    if (!num::solveOn(MatrixOn<S>(Jrows * Jrows.transpose()), r, y)) return failure(Status::Code::Singular, 0, "the assembly is singular");
    const VectorOn<S> dz = Jrows.transpose() * y.col(0);
    z -= dz;
    double step = 0;
    for (int i = 0; i < nz; ++i) step = std::max(step, std::abs(real(dz[i])));
    converged = it >= 2 && step <= 1e-13 * scale;
  }
  if (!converged) return failure(Status::Code::NotConverged, 0, "the assembly did not converge (on the derivatives' scalar)");
  jacobian();
  for (int i = 0; i < nz; ++i)
    if (std::abs(real(z[i]) - z0[i]) > 1e-3 * scale)  // moved numbers (GSAM) move it by their δ
      return failure(Status::Code::NotConverged, 0, "the assembly on the derivatives' scalar reached another configuration than the run's");
  if (!converged) return failure(Status::Code::NotConverged, 0, "the assembly did not converge (on the derivatives' scalar)");
  // velocities: [Φ_z (selected rows); the initial rates' rows] ż = [−Φ_t; rates], least squares on
  // the columns the double solve pivoted on (the others zero), as ColPivHouseholderQR solves it
  std::vector<VectorOn<S>> rows;
  std::vector<S> rhs;
  const std::vector<Jet<S>> phiT = ratesOn<S>(m, p, none, noPoints, z, nullptr, 0);
  for (int i = 0; i < nc; ++i) {
    rows.push_back(Jrows.row(i).transpose());
    rhs.push_back(-phiT[static_cast<std::size_t>(i)].d);
  }
  for (std::size_t i = 0; i < mech.initialRates.size(); ++i) {
    const auto& rate = mech.initialRates[i];
    const auto& value = p.mech.initialRates[i];
    auto unit = [&](int col, double sign) {
      VectorOn<S> e = VectorOn<S>::Zero(nz);
      e[col] = S(sign);
      return e;
    };
    switch (rate.type) {
      case InitialVelocity::Type::Joint: {
        VectorOn<S> e(nz);
        if (!jointCoordinateRowOn<S>(m.tree, p, z.data(), rate.joint, e.data()))
          return failure(Status::Code::BadRequest, 0, "an initial rate on a joint without a single coordinate");
        rows.push_back(e);
        rhs.push_back(value.value);
        break;
      }
      case InitialVelocity::Type::PointComponent: {
        Dof f;
        f.kind = Dof::Kind::PointComponent;
        f.item = rate.point;
        f.component = rate.component;
        const std::vector<Dof> one{f};
        const std::vector<ItemIndex> at{rate.point};
        std::vector<Jet<S>> zp(static_cast<std::size_t>(nz)), ph, xy(3);
        VectorOn<S> row(nz);
        for (int j = 0; j < nz; ++j) {
          for (int k = 0; k < nz; ++k) zp[static_cast<std::size_t>(k)] = Jet<S>(z[k], S(k == j ? 1.0 : 0.0), S(0.0));
          kinematicsOn<Jet<S>, S>(m.tree, p, zp.data(), Jet<S>(S(0.0)), nullptr, at, xy.data());
          row[j] = xy[static_cast<std::size_t>(rate.component)].d;
        }
        rows.push_back(row);
        rhs.push_back(value.value);
        break;
      }
      case InitialVelocity::Type::Body: {
        const Node& n = m.tree.nodes[static_cast<std::size_t>(m.tree.nodeOfBody[static_cast<std::size_t>(rate.body)])];
        if (n.kind == NodeKind::FreePlanar) {
          for (int k = 0; k < 3; ++k) {
            rows.push_back(unit(n.z + k, 1));
            rhs.push_back(k < 2 ? value.velocity[k] : value.angular[2]);
          }
        } else {
          for (int k = 0; k < 3; ++k) {
            rows.push_back(unit(n.z + k, 1));
            rhs.push_back(value.velocity[k]);
          }
          for (int k = 0; k < 3; ++k) {
            rows.push_back(unit(n.z + 4 + k, 1));
            rhs.push_back(value.angular[k] * 0.5);
          }
        }
        break;
      }
    }
  }
  zd = VectorOn<S>::Zero(nz);
  if (!rows.empty() && nz > 0) {
    Eigen::MatrixXd Av(static_cast<Eigen::Index>(rows.size()), nz);
    for (std::size_t i = 0; i < rows.size(); ++i)
      for (int j = 0; j < nz; ++j) Av(static_cast<Eigen::Index>(i), j) = real(rows[i][j]);
    Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(Av);
    std::vector<int> pivots;
    for (Eigen::Index i = 0; i < qr.rank(); ++i) pivots.push_back(qr.colsPermutation().indices()[i]);
    // normal equations on the pivot columns: the least-squares solution the QR gives
    MatrixOn<S> A(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(pivots.size())), b(static_cast<Eigen::Index>(rows.size()), 1), x;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      for (std::size_t j = 0; j < pivots.size(); ++j) A(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = rows[i][pivots[j]];
      b(static_cast<Eigen::Index>(i), 0) = rhs[i];
    }
    if constexpr (std::is_same_v<S, num::Dual8>) {
      // on dual numbers by the implicit function theorem: AᵀA x = Aᵀb on doubles, then per lane
      // AᵀA δx = δAᵀ(b − A x) + Aᵀ(δb − δA x) with the same factor (no dense algebra on dual
      // numbers: a grid's normal equations are most of its initial sensitivities' cost otherwise)
      if (!pivots.empty()) {
        const Eigen::Index nr = A.rows(), np = A.cols();
        Eigen::MatrixXd Ad(nr, np), bd(nr, 1);
        for (Eigen::Index i = 0; i < nr; ++i) {
          bd(i, 0) = b(i, 0).v;
          for (Eigen::Index j = 0; j < np; ++j) Ad(i, j) = A(i, j).v;
        }
        const Eigen::PartialPivLU<Eigen::MatrixXd> N(Ad.transpose() * Ad);
        if (!(N.rcond() > 1e-300)) return failure(Status::Code::Singular, 0, "the initial velocities are singular");
        const Eigen::VectorXd xd = N.solve(Eigen::VectorXd(Ad.transpose() * bd.col(0)));
        const Eigen::VectorXd res = bd.col(0) - Ad * xd;
        Eigen::MatrixXd rhs(np, num::kChunk), dA(nr, np), db(nr, num::kChunk);
        for (int l = 0; l < num::kChunk; ++l) {
          for (Eigen::Index i = 0; i < nr; ++i) {
            db(i, l) = b(i, 0).g[l];
            for (Eigen::Index j = 0; j < np; ++j) dA(i, j) = A(i, j).g[l];
          }
          rhs.col(l) = dA.transpose() * res + Ad.transpose() * (db.col(l) - dA * xd);
        }
        const Eigen::MatrixXd dx = N.solve(rhs);
        for (std::size_t j = 0; j < pivots.size(); ++j) {
          S& out = zd[pivots[j]];
          out = S(xd[static_cast<Eigen::Index>(j)]);
          for (int l = 0; l < num::kChunk; ++l) out.g[l] = dx(static_cast<Eigen::Index>(j), l);
        }
      }
    } else if (!pivots.empty()) {
      if (!num::solveOn(MatrixOn<S>(A.transpose() * A), MatrixOn<S>(A.transpose() * b), x))
        return failure(Status::Code::Singular, 0, "the initial velocities are singular");
      for (std::size_t j = 0; j < pivots.size(); ++j) zd[pivots[j]] = x(static_cast<Eigen::Index>(j), 0);
    }
  }
  return {};
}

// ---- the tangent by jet-free passes ----

struct DrivenFactor::Impl {
  double t = 0;
  Eigen::VectorXd zStart, zv;
  Eigen::PartialPivLU<Eigen::MatrixXd> lu;
  bool valid = false;
};
DrivenFactor::DrivenFactor() : d(std::make_unique<Impl>()) {}
DrivenFactor::~DrivenFactor() = default;

template <class S>
Status drivenPositionsOn(const MatrixRModel& m, const TreeNumbers<S>& p, const TreeNumbers<double>& values, double t, const Eigen::VectorXd& zStart,
                         VectorOn<S>& z, DrivenFactor* factor) {
  if (static_cast<int>(m.rows.size()) != m.tree.nz)
    return failure(Status::Code::BadRequest, t, "the mechanism is not fully driven: its positions need the dynamics' independent coordinates");
  if constexpr (!std::is_same_v<S, double>) {
    DrivenFactor local;
    DrivenFactor::Impl& f = *(factor ? factor : &local)->d;
    const bool known = f.valid && f.t == t && f.zStart == zStart;
    f.valid = false;
    if (positionsAbout<S>(m, p, values, {}, {}, t, VectorOn<S>(), zStart, f.lu, f.zv, z, known)) {
      f.t = t;
      f.zStart = zStart;
      f.valid = true;
      return {};
    }
  }
  MatrixROn<S> e;  // on doubles, or not the run's solution there: Newton on S
  const Status s = evaluateOn<S>(m, p, {}, t, VectorOn<S>(), VectorOn<S>(), zStart, e);
  z = e.z;
  return s;
}

#define LW_MATRIX_R_ON(S)                                                                                                          \
  template Status drivenPositionsOn<S>(const MatrixRModel&, const TreeNumbers<S>&, const TreeNumbers<double>&, double,            \
                                       const Eigen::VectorXd&, VectorOn<S>&, DrivenFactor*);                                       \
  template Status evaluateOn<S>(const MatrixRModel&, const TreeNumbers<S>&, const std::vector<Dof>&, double, const VectorOn<S>&, \
                                const VectorOn<S>&, const Eigen::VectorXd&, MatrixROn<S>&, const TreeNumbers<double>*);           \
  template void independentOn<S>(const MatrixRModel&, const TreeNumbers<S>&, const std::vector<Dof>&, const VectorOn<S>&,        \
                                 const VectorOn<S>&, const VectorOn<S>*, VectorOn<S>&, VectorOn<S>&, VectorOn<S>*);              \
  template Status initialStateOn<S>(const MatrixRModel&, const TreeNumbers<S>&, const std::vector<Dof>&, const Eigen::VectorXd&,  \
                                    VectorOn<S>&, VectorOn<S>&);                                                                   \
  template Status initialCoordinatesOn<S>(const MatrixRModel&, const TreeNumbers<S>&, const Eigen::VectorXd&, VectorOn<S>&,       \
                                          VectorOn<S>&, bool);
LW_MATRIX_R_ON(double)
LW_MATRIX_R_ON(num::Dual8)
LW_MATRIX_R_ON(std::complex<double>)
#undef LW_MATRIX_R_ON

}  // namespace lw::dyn
