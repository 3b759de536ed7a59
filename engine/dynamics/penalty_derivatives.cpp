#include "dynamics/penalty_derivatives.h"

#include <Eigen/LU>

#include <algorithm>
#include <complex>
#include <vector>

#include "dynamics/inverse_dynamics_derivatives.h"
#include "dynamics/loop_jacobian_rates.h"
#include "dynamics/matrix_r_transpose.h"
#include "dynamics/tree_motion.h"
#include "numeric/dual.h"
#include "numeric/jet.h"
#include "numeric/small_dense.h"
#include "numeric/solve_on.h"

namespace lw::dyn {
namespace {

template <class S> using Jet = kin::BasicJet<S>;
template <class S> using MatrixOn = num::MatrixOn<S>;

// the tree's motion at (z, ż, z̈): the frames and columns at z that Φ, Φ_z and M are read off,
// and the bodies' motion that τ is
template <class S>
detail::TreeMotion<S>& motionAt(const RecursiveModel& m, const TreeNumbers<S>& p, const VectorOn<S>& z, const VectorOn<S>* zd,
                                const VectorOn<S>* zdd) {
  thread_local detail::TreeMotion<S> motion;
  thread_local VectorOn<S> zero;
  zero = VectorOn<S>::Zero(m.nz);
  detail::treeMotion<S>(m, p, z.data(), zd ? zd->data() : zero.data(), zdd ? zdd->data() : zero.data(), motion);
  return motion;
}

// τ = M z̈ − Q on the motion (every force element)
template <class S>
VectorOn<S> tauOn(const RecursiveModel& m, const TreeNumbers<S>& p, const detail::TreeMotion<S>& motion, const VectorOn<S>& z,
                  const VectorOn<S>& zd, double t) {
  VectorOn<S> tau(m.nz);
  detail::inverseDynamicsFrom<S>(m, p, motion, z.data(), zd.data(), t, tau.data());
  return tau;
}

// the rows along z + s ż, t + s: first derivatives Φ_z ż + Φ_t, second Φ̇_z ż + Φ̇_t = −c. On the
// frames of `motion` (its positions z's), made jets by its rates at (ż, 0): no jet recursion of
// the frames (jetFramesFrom). The motion's rates are left at ż.
template <class S>
std::vector<Jet<S>> ratesOn(const RecursiveModel& m, const TreeNumbers<S>& p, detail::TreeMotion<S>& motion, const VectorOn<S>& z,
                            const VectorOn<S>* zd, double t) {
  thread_local VectorOn<S> zero;
  thread_local std::vector<detail::Frame<Jet<S>>> f;
  zero = VectorOn<S>::Zero(m.nz);
  detail::treeRates<S>(m, p, z.data(), zd ? zd->data() : zero.data(), zero.data(), motion);
  detail::jetFramesFrom<S>(m, motion, f, true, &m.rowBodies);
  std::vector<Jet<S>> zj(static_cast<std::size_t>(m.nz)), phi(static_cast<std::size_t>(m.nrows));
  for (int i = 0; i < m.nz; ++i) zj[static_cast<std::size_t>(i)] = Jet<S>(z[i], zd ? (*zd)[i] : S(0.0), S(0.0));
  kinematicsOnFrames<Jet<S>, S>(m, p, f, zj.data(), Jet<S>(S(t), S(1.0), S(0.0)), phi.data(), {}, nullptr);
  return phi;
}

// every row the penalty enforces at z, the loops' then the extra ones: Φ and Φ_z (the loops' from
// the motion's frames and columns: one pass, not a jet pass per coordinate)
template <class S>
void rowsOn(const RecursiveModel& m, const TreeNumbers<S>& p, const detail::TreeMotion<S>& motion, const VectorOn<S>& z, double t,
            const ExtraRowsOn<S>* extra, VectorOn<S>& phi, MatrixOn<S>& J) {
  phi.resize(m.nrows);
  kinematicsOnFrames<S, S>(m, p, motion.frames, z.data(), S(t), phi.data(), {}, nullptr);
  detail::constraintJacobianFrom<S>(m, p, motion, z.data(), t, J);
  if (!extra || !*extra) return;
  VectorOn<S> ePhi, eC;
  MatrixOn<S> eJ;
  (*extra)(z, nullptr, ePhi, eJ, eC);
  phi.conservativeResize(m.nrows + ePhi.size());
  phi.tail(ePhi.size()) = ePhi;
  J.conservativeResize(m.nrows + eJ.rows(), m.nz);
  J.bottomRows(eJ.rows()) = eJ;
}

// c = −(Φ̇_z ż + Φ̇_t) of every row along ż
template <class S>
VectorOn<S> curvaturesOn(const RecursiveModel& m, const TreeNumbers<S>& p, detail::TreeMotion<S>& motion, const VectorOn<S>& z,
                         const VectorOn<S>& zd, double t, const ExtraRowsOn<S>* extra) {
  const std::vector<Jet<S>> along = ratesOn<S>(m, p, motion, z, &zd, t);
  VectorOn<S> c(m.nrows);
  for (int i = 0; i < m.nrows; ++i) c[i] = -along[static_cast<std::size_t>(i)].dd;
  if (!extra || !*extra) return c;
  VectorOn<S> ePhi, eC;
  MatrixOn<S> eJ;
  (*extra)(z, &zd, ePhi, eJ, eC);
  c.conservativeResize(m.nrows + eC.size());
  c.tail(eC.size()) = eC;
  return c;
}

// M (nz × nz) by the composite bodies on the motion at (z, ż, 0), and Q = Q^d(z, ż) = −τ there
template <class S>
MatrixOn<S> massOn(const RecursiveModel& m, const TreeNumbers<S>& p, const detail::TreeMotion<S>& motion, const VectorOn<S>& z,
                   const VectorOn<S>& zd, double t, VectorOn<S>& Q) {
  Q = -tauOn(m, p, motion, z, zd, t);
  MatrixOn<S> M;
  detail::massMatrixFrom<S>(m, p, motion, M);
  return M;
}

}  // namespace

template <class S>
void penaltyResidualOn(const RecursiveModel& m, const TreeNumbers<S>& p, double alpha, double t, const VectorOn<S>& z,
                       const VectorOn<S>& zd, const VectorOn<S>& zdd, VectorOn<S>& F, const ExtraRowsOn<S>* extra) {
  const detail::TreeMotion<S>& motion = motionAt<S>(m, p, z, &zd, &zdd);
  F = tauOn(m, p, motion, z, zd, t);  // M z̈ − Q
  VectorOn<S> phi;
  MatrixOn<S> J;
  rowsOn(m, p, motion, z, t, extra, phi, J);
  if (phi.size() > 0) F += (J.transpose() * phi) * S(alpha);
}

bool penaltyResidualJacobians(const RecursiveModel& m, const TreeNumbers<double>& p, double alpha, double t, const Eigen::VectorXd& z,
                              const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd, Eigen::MatrixXd& Fz, Eigen::MatrixXd& Fzd, Eigen::MatrixXd& M,
                              const MotionAtState* given) {
  thread_local std::vector<int> rows;
  rows.resize(static_cast<std::size_t>(m.nrows));
  for (int i = 0; i < m.nrows; ++i) rows[static_cast<std::size_t>(i)] = i;
  if (!loopJacobianRatesUnsupported(m, rows).empty()) return false;
  thread_local MotionAtState own;
  if (!given) own.compute(m, p, z.data(), zd.data(), zdd.data(), t);
  const MotionAtState& state = given ? *given : own;
  inverseDynamicsDerivatives(m, p, state, Fz, Fzd);
  state.massMatrix(m, p, M);
  if (m.nrows == 0) return true;
  const detail::TreeMotion<double>& motion = state.data().motion;
  thread_local VectorOn<double> phi;
  thread_local MatrixOn<double> J;
  thread_local Eigen::MatrixXd rates, secondRates, H;
  phi.resize(m.nrows);
  kinematicsOnFrames<double, double>(m, p, motion.frames, z.data(), t, phi.data(), {}, nullptr);
  detail::constraintJacobianFrom<double>(m, p, motion, z.data(), t, J);
  loopJacobianRates(m, p, state, rows, {}, Eigen::VectorXd(alpha * phi), rates, secondRates, H);
  addRowsGram<double>(m, J, alpha, Fz);
  Fz += H;
  return true;
}

namespace {
// what F's parameter terms read at a state beyond τ: the rows' values Φ and Jacobian Φ_z, their
// points, which row reads which point, and the multipliers αΦ as loads −s αΦ_r e_k at them
struct ResidualRows {
  VectorOn<double> phi;
  MatrixOn<double> J;
  std::vector<ItemIndex> points;
  std::vector<RowPoint> rows;
  std::vector<PointLoad> loads;
  std::vector<int> loadPoint;  // by load: its point's index in points
};
// false where the rows are not all the kernels' (cut joints' points' and axes', unit quaternions)
bool residualRows(const RecursiveModel& m, const TreeNumbers<double>& values, double alpha, double t, const Eigen::VectorXd& z,
                  const MotionAtState& state, ResidualRows& out) {
  thread_local std::vector<int> all;
  all.resize(static_cast<std::size_t>(m.nrows));
  for (int i = 0; i < m.nrows; ++i) all[static_cast<std::size_t>(i)] = i;
  if (!loopJacobianRatesUnsupported(m, all).empty()) return false;
  const detail::TreeMotion<double>& motion = state.data().motion;
  out.phi.resize(m.nrows);
  if (m.nrows > 0) {
    kinematicsOnFrames<double, double>(m, values, motion.frames, z.data(), t, out.phi.data(), {}, nullptr);
    detail::constraintJacobianFrom<double>(m, values, motion, z.data(), t, out.J);
  }
  rowPointsOf(m, all, {}, {}, out.points, out.rows);
  out.loads.clear();
  out.loadPoint.clear();
  for (const RowPoint& rp : out.rows) {
    if (out.phi[rp.row] == 0) continue;
    PointLoad q{out.points[static_cast<std::size_t>(rp.point)], Eigen::Vector3d::Zero()};
    q.force[rp.component] = -rp.sign * alpha * out.phi[rp.row];
    out.loads.push_back(q);
    out.loadPoint.push_back(rp.point);
  }
  return true;
}
}  // namespace

bool penaltyResidualAlongNumbers(const RecursiveModel& m, const TreeNumbers<double>& values, const NumbersLanes& lanes,
                                 const TreeNumbers<num::Dual8>& p, double alpha, double t, const Eigen::VectorXd& z, const Eigen::VectorXd& zd,
                                 const Eigen::VectorXd& zdd, Eigen::MatrixXd& Fp, const MotionAtState* given) {
  thread_local MotionAtState own;
  if (!given) own.compute(m, values, z.data(), zd.data(), zdd.data(), t);
  const MotionAtState& state = given ? *given : own;
  thread_local ResidualRows rr;
  if (!residualRows(m, values, alpha, t, z, state, rr)) return false;
  constexpr int L = num::kChunk;
  const std::size_t np = 3 * rr.points.size();
  thread_local std::vector<num::Dual8> tau, r, v, a;
  tau.resize(static_cast<std::size_t>(m.nz));
  r.resize(np);
  v.resize(np);
  a.resize(np);
  if (!inverseDynamicsAlongNumbers(m, values, state, lanes, p, tau.data(), rr.points, r.data(), v.data(), a.data(), rr.loads)) return false;
  Eigen::MatrixXd P0 = Eigen::MatrixXd::Zero(m.nrows, L);
  for (const RowPoint& rp : rr.rows)
    for (int l = 0; l < L; ++l) P0(rp.row, l) += rp.sign * r[static_cast<std::size_t>(3 * rp.point + rp.component)].g[l];
  Fp.resize(m.nz, L);
  for (int i = 0; i < m.nz; ++i)
    for (int l = 0; l < L; ++l) Fp(i, l) = tau[static_cast<std::size_t>(i)].g[l];
  if (m.nrows > 0) Fp.noalias() += alpha * (rr.J.transpose() * P0);
  return true;
}

bool penaltyResidualNumbersAdjoint(const RecursiveModel& m, const TreeNumbers<double>& values, double alpha, double t, const Eigen::VectorXd& z,
                                   const MotionAtState& state, const Eigen::VectorXd& w, NumbersAdjoint& out, std::vector<ItemIndex>& points) {
  thread_local ResidualRows rr;
  if (!residualRows(m, values, alpha, t, z, state, rr)) return false;
  // wᵀ α Φ_zᵀ Φ_ρ: the rows' points' r weighed by α (Φ_z w)
  thread_local std::vector<double> wr;
  wr.assign(3 * rr.points.size(), 0.0);
  if (m.nrows > 0) {
    const Eigen::VectorXd Jw = alpha * (rr.J * w);
    for (const RowPoint& rp : rr.rows) wr[static_cast<std::size_t>(3 * rp.point + rp.component)] += rp.sign * Jw[rp.row];
  }
  inverseDynamicsNumbersAdjoint(m, values, state, w.data(), rr.points, wr.data(), nullptr, nullptr, out, rr.loads);
  for (std::size_t j = 0; j < rr.loads.size(); ++j) out.points[static_cast<std::size_t>(rr.loadPoint[j])] += out.loadPoints[j];
  points = rr.points;
  return true;
}

template <class S>
Status penaltyProjectOn(const RecursiveModel& m, const TreeNumbers<S>& p, double alpha, double t, double h, const VectorOn<S>& z,
                        const VectorOn<S>& zdStar, const VectorOn<S>& zddStar, VectorOn<S>& zd, VectorOn<S>& zdd,
                        const ExtraRowsOn<S>* extra) {
  const double hh = 0.25 * h * h;
  // the positions alone: M and Φ_z read them, the rates' passes below set their own
  thread_local detail::TreeMotion<S> motion;
  detail::treePositions<S>(m, p, z.data(), motion);
  MatrixOn<S> M;
  detail::massMatrixFrom<S>(m, p, motion, M);
  VectorOn<S> phi;
  MatrixOn<S> J;
  rowsOn(m, p, motion, z, t, extra, phi, J);
  if (phi.size() == 0) {
    zd = zdStar;
    zdd = zddStar;
    return {};
  }
  MatrixOn<S> A = M;
  addRowsGram<S>(m, J, hh * alpha, A);
  VectorOn<S> r = VectorOn<S>::Zero(phi.size());  // Φ_t: the drivers' rows (none for the extra rows)
  if (std::any_of(m.constraints.begin(), m.constraints.end(), [](const LoopConstraint& c) { return c.kind == LoopConstraint::Kind::Driver; })) {
    const std::vector<Jet<S>> phiT = ratesOn<S>(m, p, motion, z, nullptr, t);
    for (int i = 0; i < m.nrows; ++i) r[i] = phiT[static_cast<std::size_t>(i)].d;
  }
  MatrixOn<S> b = M * zdStar - (J.transpose() * r) * S(hh * alpha), x;
  if (!num::solveOn(A, b, x)) return failure(Status::Code::Singular, t, "the penalty projection's matrix is singular");
  zd = x.col(0);
  r = curvaturesOn(m, p, motion, z, zd, t, extra);
  b = M * zddStar + (J.transpose() * r) * S(hh * alpha);
  if (!num::solveOn(A, b, x)) return failure(Status::Code::Singular, t, "the penalty projection's matrix is singular");
  zdd = x.col(0);
  return {};
}

Status penaltyProjectionPartials(const RecursiveModel& m, const TreeNumbers<double>& p, const TreeNumbers<num::Dual8>& p8, double alpha, double t,
                                 double h, const Eigen::VectorXd& z, const Eigen::VectorXd& zdStar, PenaltyProjectionPartials& out,
                                 const ExtraRowsOn<double>* extra, const ExtraRowsOn<num::Dual8>* extra8, const Eigen::VectorXd* zddStar) {
  using D = num::Dual8;
  const double hh = 0.25 * h * h;
  const int nz = m.nz;
  out.Pz.resize(0, 0);
  out.Qz.resize(0, 0);
  thread_local detail::TreeMotion<double> motion;  // the positions; the rates' passes set their own
  detail::treePositions<double>(m, p, z.data(), motion);
  detail::massMatrixFrom<double>(m, p, motion, out.M);
  VectorOn<double> phi;
  MatrixOn<double> J;
  rowsOn(m, p, motion, z, t, extra, phi, J);
  if (phi.size() == 0) {
    out.Pd = out.Qdd = Eigen::MatrixXd::Identity(nz, nz);
    out.Qd = Eigen::MatrixXd::Zero(nz, nz);
    if (zddStar) out.Pz = out.Qz = Eigen::MatrixXd::Zero(nz, nz);
    return {};
  }
  Eigen::MatrixXd MA = out.M;
  addRowsGram<double>(m, J, hh * alpha, MA);
  out.A.compute(MA);
  const Eigen::PartialPivLU<Eigen::MatrixXd>& A = out.A;
  if (!(std::abs(A.determinant()) > 0)) return failure(Status::Code::Singular, t, "the penalty projection's matrix is singular");
  out.Pd = out.M;
  num::solveSmallInPlace(A, out.Pd);
  out.Qdd = out.Pd;
  // the projected velocities (as penaltyProjectOn's)
  VectorOn<double> r = VectorOn<double>::Zero(phi.size());
  const bool driven = std::any_of(m.constraints.begin(), m.constraints.end(), [](const LoopConstraint& c) { return c.kind == LoopConstraint::Kind::Driver; });
  if (driven) {
    const std::vector<Jet<double>> phiT = ratesOn<double>(m, p, motion, z, nullptr, t);
    for (int i = 0; i < m.nrows; ++i) r[i] = phiT[static_cast<std::size_t>(i)].d;
  }
  const Eigen::VectorXd zd = A.solve(Eigen::VectorXd(out.M * zdStar - (hh * alpha) * (J.transpose() * r)));
  // c_ż = −2Θ̇ and, with z̈* given, ż's and z̈'s partials by z in closed form where the loops' rates
  // cover every row (no driver's, no extra row): with e = (ż* − ż, z̈* − z̈) and g = (Φ_z ż, Φ̈),
  //   A ż_z = ∂(M e_v)/∂z − h²/4 α (H(g_v) + Φ_zᵀΘ̇),
  //   A z̈_z = ∂(M e_a)/∂z − h²/4 α (H(g_a) + Φ_zᵀ(Θ̈ + 2Θ̇ ż_z)),
  // ∂(M e)/∂z = τ_z's inertial part at (z, 0, e) (inertiaProductDerivatives), H and Θ̇, Θ̈ by
  // loopJacobianRates
  thread_local std::vector<int> rows;
  rows.resize(static_cast<std::size_t>(m.nrows));
  for (int i = 0; i < m.nrows; ++i) rows[static_cast<std::size_t>(i)] = i;
  const bool closed = zddStar && !driven && phi.size() == m.nrows && loopJacobianRatesUnsupported(m, rows).empty();
  Eigen::MatrixXd cz;
  if (closed) {
    // at (z, ż): Θ̇ and H(g_v) (H reads the positions and λ alone), then c = −Θ̇ ż (no time in the
    // rows), the projected z̈, and at (z, ż, z̈): Θ̈ and H(g_a)
    thread_local MotionAtState at, atV, atA, atRest;
    thread_local Eigen::MatrixXd rates, secondRates, H, Hv;
    const Eigen::VectorXd zero = Eigen::VectorXd::Zero(nz);
    at.compute(m, p, z.data(), zd.data(), zero.data(), t);
    loopJacobianRates(m, p, at, rows, {}, Eigen::VectorXd(J * zd), rates, secondRates, Hv);
    cz = -2 * rates;
    const Eigen::VectorXd c = -(rates * zd);
    const Eigen::VectorXd zdd = A.solve(Eigen::VectorXd(out.M * *zddStar + (hh * alpha) * (J.transpose() * c)));
    at.setAccelerations(m, p, zdd.data());
    loopJacobianRates(m, p, at, rows, {}, Eigen::VectorXd(J * zdd - c), rates, secondRates, H);
    // ∂(M e)/∂z: τ_z's inertial part at (z, 0, e) (the motions kept for the lanes, with the one
    // at rest)
    auto inertiaTurn = [&](const Eigen::VectorXd& e, MotionAtState& state, Eigen::MatrixXd& turn) {
      state.compute(m, p, z.data(), zero.data(), e.data(), t);
      inertiaProductDerivatives(m, p, state, turn);
    };
    atRest.compute(m, p, z.data(), zero.data(), zero.data(), t);
    Eigen::MatrixXd Mev, Mea;
    inertiaTurn(Eigen::VectorXd(zdStar - zd), atV, Mev);
    inertiaTurn(Eigen::VectorXd(*zddStar - zdd), atA, Mea);
    out.atV = &atV;
    out.atA = &atA;
    out.atRest = &atRest;
    out.atProjected = &at;
    out.J = J;
    out.gv = J * zd;
    out.ga = J * zdd - c;
    out.hhAlpha = hh * alpha;
    out.B = (2 * hh * alpha) * (J.transpose() * rates);
    out.Pz = Mev - (hh * alpha) * (Hv + J.transpose() * rates);
    num::solveSmallInPlace(A, out.Pz);
    out.Qz = Mea - (hh * alpha) * (H + J.transpose() * secondRates) - out.B * out.Pz;
    num::solveSmallInPlace(A, out.Qz);
  } else {
    // c_ż at the projected ż on dual numbers, eight columns a pass
    cz.resize(phi.size(), nz);
    const VectorOn<D> z8 = z.cast<D>();
    thread_local detail::TreeMotion<D> motion8;  // z's positions: the chunks' rates passes set their own
    detail::treePositions<D>(m, p8, z8.data(), motion8);
    for (int first = 0; first < nz; first += num::kChunk) {
      VectorOn<D> zd8 = zd.cast<D>();
      for (int j = first; j < std::min(nz, first + num::kChunk); ++j) zd8[j].g[j - first] = 1;
      const VectorOn<D> c = curvaturesOn<D>(m, p8, motion8, z8, zd8, t, extra8);
      for (Eigen::Index i = 0; i < c.size(); ++i)
        for (int j = first; j < std::min(nz, first + num::kChunk); ++j) cz(i, j) = c[i].g[j - first];
    }
  }
  out.Qd = (hh * alpha) * (J.transpose() * (cz * out.Pd));
  num::solveSmallInPlace(A, out.Qd);
  return {};
}

bool penaltyProjectionNumbersLanes(const RecursiveModel& m, const TreeNumbers<double>& values, const PenaltyProjectionPartials& at,
                                   const NumbersLanes& lanes, const TreeNumbers<num::Dual8>& p, Eigen::MatrixXd& Pp, Eigen::MatrixXd& Qp) {
  if (at.Pz.size() == 0 || !at.atV) return false;
  constexpr int L = num::kChunk;
  const int nz = m.nz;
  const bool geometry = !lanes.inertialOnly;
  // the rows' points and the multipliers' loads (λ = −h²/4 α g: the lanes then carry the terms'
  // sign and scale)
  thread_local std::vector<ItemIndex> points;
  thread_local std::vector<RowPoint> rows;
  thread_local std::vector<PointLoad> loadsV, loadsA;
  points.clear();
  rows.clear();
  loadsV.clear();
  loadsA.clear();
  if (geometry) {
    if (!at.atProjected || at.J.rows() != m.nrows) return false;
    thread_local std::vector<int> all;
    all.resize(static_cast<std::size_t>(m.nrows));
    for (int i = 0; i < m.nrows; ++i) all[static_cast<std::size_t>(i)] = i;
    rowPointsOf(m, all, {}, {}, points, rows);
    for (const RowPoint& rp : rows) {
      const ItemIndex q = points[static_cast<std::size_t>(rp.point)];
      PointLoad v{q, Eigen::Vector3d::Zero()}, a{q, Eigen::Vector3d::Zero()};
      v.force[rp.component] = rp.sign * at.hhAlpha * at.gv[rp.row];  // −s λ, λ = −h²/4 α g_v
      a.force[rp.component] = rp.sign * at.hhAlpha * at.ga[rp.row];
      loadsV.push_back(v);
      loadsA.push_back(a);
    }
  }
  thread_local std::vector<num::Dual8> rest, v, a, unused, r8, v8, a8;
  rest.resize(static_cast<std::size_t>(nz));
  v.resize(rest.size());
  a.resize(rest.size());
  if (!inverseDynamicsAlongNumbers(m, values, *at.atRest, lanes, p, rest.data(), {}, nullptr, nullptr, nullptr) ||
      !inverseDynamicsAlongNumbers(m, values, *at.atV, lanes, p, v.data(), {}, nullptr, nullptr, nullptr, loadsV) ||
      !inverseDynamicsAlongNumbers(m, values, *at.atA, lanes, p, a.data(), {}, nullptr, nullptr, nullptr, loadsA))
    return false;
  Pp.resize(nz, L);
  Qp.resize(nz, L);
  for (int i = 0; i < nz; ++i)
    for (int l = 0; l < L; ++l) {
      const auto u = static_cast<std::size_t>(i);
      Pp(i, l) = v[u].g[l] - rest[u].g[l];  // M_ρ e_v (− h²/4 α (Φ_zᵀg_v)_ρ)
      Qp(i, l) = a[u].g[l] - rest[u].g[l];  // M_ρ e_a (− h²/4 α (Φ_zᵀg_a)_ρ)
    }
  if (geometry && !rows.empty()) {
    // − h²/4 α Φ_zᵀ Φ̇_ρ and Φ̈_ρ: the rows' points' v, a lanes at the projected state
    const std::size_t np = 3 * points.size();
    unused.resize(rest.size());
    r8.resize(np);
    v8.resize(np);
    a8.resize(np);
    if (!inverseDynamicsAlongNumbers(m, values, *at.atProjected, lanes, p, unused.data(), points, r8.data(), v8.data(), a8.data())) return false;
    Eigen::MatrixXd dv = Eigen::MatrixXd::Zero(m.nrows, L), da = dv;
    for (const RowPoint& rp : rows) {
      const auto i = static_cast<std::size_t>(3 * rp.point + rp.component);
      for (int l = 0; l < L; ++l) {
        dv(rp.row, l) += rp.sign * v8[i].g[l];
        da(rp.row, l) += rp.sign * a8[i].g[l];
      }
    }
    Pp.noalias() -= at.hhAlpha * (at.J.transpose() * dv);
    Qp.noalias() -= at.hhAlpha * (at.J.transpose() * da);
  }
  num::solveSmallInPlace(at.A, Pp);
  Qp.noalias() -= at.B * Pp;
  num::solveSmallInPlace(at.A, Qp);
  return true;
}

template <class S>
Status penaltyStartOn(const RecursiveModel& m, const TreeNumbers<S>& p, double alpha, double t, const VectorOn<S>& z,
                      const VectorOn<S>& zd, VectorOn<S>& zdd, const ExtraRowsOn<S>* extra) {
  detail::TreeMotion<S>& motion = motionAt<S>(m, p, z, &zd, nullptr);
  VectorOn<S> Q;
  MatrixOn<S> A = massOn(m, p, motion, z, zd, t, Q);
  MatrixOn<S> b = Q;
  VectorOn<S> phi;
  MatrixOn<S> J;
  rowsOn(m, p, motion, z, t, extra, phi, J);
  if (phi.size() > 0) {
    addRowsGram<S>(m, J, alpha, A);
    b += (J.transpose() * curvaturesOn(m, p, motion, z, zd, t, extra)) * S(alpha);
  }
  MatrixOn<S> x;
  if (!num::solveOn(A, b, x)) return failure(Status::Code::Singular, t, "the penalty formulation's initial mass matrix is singular");
  zdd = x.col(0);
  return {};
}

void penaltyParts(const RecursiveModel& m, const TreeNumbers<double>& p, double t, const Eigen::VectorXd& z, const Eigen::VectorXd& zd,
                  PenaltyParts& out, const ExtraRowsOn<double>* extra) {
  detail::TreeMotion<double>& motion = motionAt<double>(m, p, z, &zd, nullptr);
  out.M = massOn<double>(m, p, motion, z, zd, t, out.Q);
  rowsOn<double>(m, p, motion, z, t, extra, out.phi, out.J);
  out.c = curvaturesOn<double>(m, p, motion, z, zd, t, extra);
}

#define LW_PENALTY_ON(S)                                                                                                           \
  template void penaltyResidualOn<S>(const RecursiveModel&, const TreeNumbers<S>&, double, double, const VectorOn<S>&,             \
                                     const VectorOn<S>&, const VectorOn<S>&, VectorOn<S>&, const ExtraRowsOn<S>*);                 \
  template Status penaltyProjectOn<S>(const RecursiveModel&, const TreeNumbers<S>&, double, double, double, const VectorOn<S>&,   \
                                      const VectorOn<S>&, const VectorOn<S>&, VectorOn<S>&, VectorOn<S>&, const ExtraRowsOn<S>*);  \
  template Status penaltyStartOn<S>(const RecursiveModel&, const TreeNumbers<S>&, double, double, const VectorOn<S>&,             \
                                    const VectorOn<S>&, VectorOn<S>&, const ExtraRowsOn<S>*);
LW_PENALTY_ON(double)
LW_PENALTY_ON(num::Dual8)
LW_PENALTY_ON(std::complex<double>)
#undef LW_PENALTY_ON

}  // namespace lw::dyn
