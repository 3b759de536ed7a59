// MatrixRTangent (matrix_r_derivatives.h): the Matrix R ODE's directional derivatives at an
// evaluated state from jet-free passes on dual numbers, Θ_z factored once on doubles.
#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <algorithm>

#include "numeric/small_dense.h"
#include "dynamics/constraint_rows.h"
#include "dynamics/inverse_dynamics_derivatives.h"
#include "dynamics/loop_jacobian_rates.h"
#include "dynamics/matrix_r_derivatives.h"
#include "dynamics/matrix_r_transpose.h"
#include "dynamics/recursive_data.h"
#include "dynamics/tree_motion.h"
#include "numeric/first_jets.h"
#include "numeric/jet.h"
#include "numeric/small_dense.h"

namespace lw::dyn {
namespace {
// Θ⁻¹ B for B of a few columns, by row operations (num::solveSmallInPlace): Eigen's blocked
// triangular solves cost several times the arithmetic at tens of rows
Eigen::MatrixXd solvedSmall(const Eigen::PartialPivLU<Eigen::MatrixXd>& lu, Eigen::MatrixXd B) {
  num::solveSmallInPlace(lu, B);
  return B;
}
}  // namespace

// a constraint's rows along a body's six unit twists at once, on the lanes' dual numbers
using TwistJets = kin::FirstJets<num::Dual8, 6>;

namespace {

// the points' accelerations' lanes for the lanes dzdd (nz × 8) of z̈: Σ_j ∂a/∂z̈_j δz̈_j with
// ∂a/∂z̈_j = S_j.v + S_j.ω × r for the coordinates that carry the point's body (the motion's
// columns S_j on doubles by `column(j, sv, sw)`, r the points' positions)
template <class Column>
void addAccelerationLanes(const RecursiveModel& tree, const std::vector<int>& nodeOf, Column&& column, const Eigen::MatrixXd& dzdd,
                          std::span<const ItemIndex> points, const num::Dual8* pr, num::Dual8* pa) {
  for (std::size_t k = 0; k < points.size(); ++k) {
    const int node = tree.nodeOfBody[static_cast<std::size_t>(points[k].body)];
    if (node < 0) continue;
    const double r0[3] = {pr[3 * k].v, pr[3 * k + 1].v, pr[3 * k + 2].v};
    for (int j = 0; j < tree.nz; ++j) {
      if (!tree.movesWith(points[k].body, nodeOf[static_cast<std::size_t>(j)])) continue;
      double sv[3], sw[3];
      column(j, sv, sw);
      const double col[3] = {sv[0] + sw[1] * r0[2] - sw[2] * r0[1], sv[1] + sw[2] * r0[0] - sw[0] * r0[2], sv[2] + sw[0] * r0[1] - sw[1] * r0[0]};
      for (int i = 0; i < 3; ++i)
        for (int l = 0; l < num::kChunk; ++l) pa[3 * k + static_cast<std::size_t>(i)].g[l] += col[i] * dzdd(j, l);
    }
  }
}

using D = num::Dual8;
using J = kin::BasicJet<D>;
constexpr int L = num::kChunk;

// rows' part (0 value, 1 rate, 2 second) lanes, rows × L
Eigen::MatrixXd rowLanes(const std::vector<J>& rows, int part) {
  Eigen::MatrixXd out(static_cast<Eigen::Index>(rows.size()), L);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const D& x = part == 0 ? rows[i].v : part == 1 ? rows[i].d : rows[i].dd;
    for (int l = 0; l < L; ++l) out(static_cast<Eigen::Index>(i), l) = x.g[l];
  }
  return out;
}
Eigen::MatrixXd gradientsOf(const VectorOn<D>& v) {
  Eigen::MatrixXd out(v.size(), L);
  for (Eigen::Index i = 0; i < v.size(); ++i)
    for (int l = 0; l < L; ++l) out(i, l) = v[i].g[l];
  return out;
}
template <class Value>
VectorOn<D> withLanes(const Value& value, const Eigen::MatrixXd& g) {
  VectorOn<D> v(value.size());
  for (Eigen::Index i = 0; i < value.size(); ++i) {
    v[i] = D(value[i]);
    for (int l = 0; l < L; ++l) v[i].g[l] = g(i, l);
  }
  return v;
}
template <class Value>
VectorOn<D> constant(const Value& value) {
  VectorOn<D> v(value.size());
  for (Eigen::Index i = 0; i < value.size(); ++i) v[i] = D(value[i]);
  return v;
}

// The wrench W_b = −∂(λᵀΦ_c)/∂ξ_b on body b (one of the joint's two; ξ_b its twist about the
// origin) of a cut joint whose loaded rows are its points' difference x(P₁) − x(P₀) alone (a pin,
// a spherical joint, a revolute whose axis rows carry no multiplier), in closed form with the
// frames' lanes: a force f = −s λ at the joint's point, s = +1 on body(1), −1 on body(0). False
// for the others: their rows on jets along the six twists.
bool cutJointWrench(const RecursiveModel& tree, const TreeNumbers<D>& p, const std::vector<detail::Frame<D>>& frames, const LoopConstraint& c, int b,
                    const std::vector<double>& lambdaByRow, detail::Motion6<D>& W) {
  if (c.kind != LoopConstraint::Kind::CutJoint) return false;
  const auto& jt = tree.mechanism->joints[static_cast<std::size_t>(c.index)];
  const auto lambda = [&](int r) { return lambdaByRow[static_cast<std::size_t>(c.row + r)]; };
  const bool points = jt.type == JointType::Pin || jt.type == JointType::Spherical ||
                      (jt.type == JointType::Revolute && lambda(3) == 0 && lambda(4) == 0);
  if (!points) return false;
  const int side = b == jt.body(1) ? 1 : 0;
  const double s = side == 1 ? 1.0 : -1.0;
  detail::V3<D> f = detail::zero3<D>();
  for (int r = 0; r < (jt.type == JointType::Pin ? 2 : 3); ++r) f[r] = D(-s * lambda(r));
  W.v = f;
  W.w = detail::cross(detail::jointPoint(tree, p, frames, c.index, side), f);
  return true;
}

}  // namespace

struct MatrixRTangent::Work {
  const MatrixRModel* m = nullptr;
  std::vector<Dof> dofs;
  std::vector<ItemIndex> points;
  double t = 0;
  Eigen::VectorXd z, zd, zdd, lambda;
  Eigen::MatrixXd R, Md;
  Eigen::PartialPivLU<Eigen::MatrixXd> ownTheta;
  Eigen::LLT<Eigen::MatrixXd> ownMbar;
  const Eigen::PartialPivLU<Eigen::MatrixXd>* theta = nullptr;  // ownTheta, or the pipeline's
  const Eigen::LLT<Eigen::MatrixXd>* mbar = nullptr;
  std::vector<char> read;  // by body: what the rows and the points read (their frames' jets alone)
  bool products = false;   // stateJacobians covers the model (loopJacobianRates' rows, τ's joints)
  RecursiveData data;  // the mass matrix's and Jacobians' buffers, kept between points
  Eigen::MatrixXd loopJ, pointJ;
  // along's passes' buffers, kept between calls (their dual-number jets are large to clear)
  struct Passes {
    detail::TreeMotion<num::Dual8> motion;
    std::vector<detail::Frame<kin::BasicJet<num::Dual8>>> frames;
    std::vector<kin::BasicJet<num::Dual8>> phi, xyz, rows, zj;
  } passes;
  // along's positions' pass (the numbers' lanes at fixed z): frames and rows on dual numbers
  struct Positions {
    std::vector<detail::Frame<num::Dual8>> frames;
    std::vector<num::Dual8> phi, xyz;
  } positions;
  // along's turn of the multipliers: λ by row of Φ, the frames as jets, the loops' wrenches by node
  struct Turn {
    std::vector<double> lambdaByRow;
    std::vector<detail::Frame<TwistJets>> frames;
    std::vector<TwistJets> phi, zj;
    std::vector<detail::Motion6<num::Dual8>> wrench;
    std::vector<int> bodies;
  } turn;

  // [Φ_sel; h] on jets along the motion of (zs, żs, z̈s) into passes.rows (and passes.motion).
  // samePositions: zs is the last pass's, so its frames and columns stand and only the rates move;
  // secondRates false: a pass that reads the rows' first rates only (the frames' second left zero)
  void rowsAlong(const TreeNumbers<D>& p, const VectorOn<D>& zs, const VectorOn<D>& zds, const VectorOn<D>& zdds, double timeRate, bool samePositions,
                 bool secondRates) {
    const RecursiveModel& tree = m->tree;
    const int nz = tree.nz;
    Passes& b = passes;
    b.phi.resize(static_cast<std::size_t>(tree.nrows));
    b.xyz.resize(3 * points.size());
    b.rows.resize(static_cast<std::size_t>(nz));
    b.zj.resize(static_cast<std::size_t>(nz));
    if (samePositions) detail::treeRates<D>(tree, p, zs.data(), zds.data(), zdds.data(), b.motion);
    else detail::treeMotion<D>(tree, p, zs.data(), zds.data(), zdds.data(), b.motion);
    detail::jetFramesFrom<D>(tree, b.motion, b.frames, secondRates, &read);
    for (int i = 0; i < nz; ++i) b.zj[static_cast<std::size_t>(i)] = J(zs[i], zds[i], zdds[i]);
    kinematicsOnFrames<J, D>(tree, p, b.frames, b.zj.data(), J(D(t), D(timeRate), D(0.0)), b.phi.data(), points, b.xyz.data());
    std::size_t r = 0, point = 0;
    for (int row : m->rows) b.rows[r++] = b.phi[static_cast<std::size_t>(row)];
    for (const Dof& f : dofs)
      b.rows[r++] = f.kind == Dof::Kind::Coordinate ? b.zj[static_cast<std::size_t>(f.z)] : b.xyz[3 * point++ + static_cast<std::size_t>(f.component)];
  }

  // the positions' lanes: Θ δz = [−Φ_ρ; δzⁱ − h_ρ] for the lanes of dx and of p's numbers (Φ_ρ,
  // h_ρ from a positions' pass at fixed z where `seeded`: without seeded numbers it has no lanes)
  Eigen::MatrixXd positionLanes(const TreeNumbers<D>& p, bool seeded, const VectorOn<D>& dx) {
    const RecursiveModel& tree = m->tree;
    const int nz = tree.nz, d = static_cast<int>(dofs.size());
    Eigen::MatrixXd rhs = Eigen::MatrixXd::Zero(nz, L);
    if (seeded) {
      const VectorOn<D> z0 = constant(z);
      Positions& q = positions;
      q.phi.resize(static_cast<std::size_t>(tree.nrows));
      q.xyz.resize(3 * points.size());
      detail::computeFrames<D, D>(tree, p, z0.data(), q.frames);
      kinematicsOnFrames<D, D>(tree, p, q.frames, z0.data(), D(t), q.phi.data(), points, q.xyz.data());
      std::size_t r = 0, point = 0;
      for (int row : m->rows) {
        const D& x = q.phi[static_cast<std::size_t>(row)];
        for (int l = 0; l < L; ++l) rhs(static_cast<Eigen::Index>(r), l) = -x.g[l];
        ++r;
      }
      for (const Dof& f : dofs) {
        if (f.kind != Dof::Kind::Coordinate) {  // a coordinate's own row has no lanes at fixed z
          const D& x = q.xyz[3 * point + static_cast<std::size_t>(f.component)];
          for (int l = 0; l < L; ++l) rhs(static_cast<Eigen::Index>(r), l) = -x.g[l];
          ++point;
        }
        ++r;
      }
    }
    rhs.bottomRows(d) += gradientsOf(dx);
    return solvedSmall(*theta, std::move(rhs));
  }

  // z and ż with their lanes: Θ δz = [−Φ_ρ; δzⁱ − h_ρ], then Θ δż = [−δΦ̇; δżⁱ − δḣ] at ż held
  // (the velocities' pass leaves its motion, at z with its lanes, in passes.motion)
  void positionsAndRates(const TreeNumbers<D>& p, bool seeded, const VectorOn<D>& dx, const VectorOn<D>& dv, VectorOn<D>& zOut, VectorOn<D>& zdOut) {
    const int nz = m->tree.nz, d = static_cast<int>(dofs.size());
    zOut = withLanes(z, positionLanes(p, seeded, dx));
    rowsAlong(p, zOut, constant(zd), VectorOn<D>::Zero(nz), 1.0, false, false);
    Eigen::MatrixXd rhs = -rowLanes(passes.rows, 1);
    rhs.bottomRows(d) += gradientsOf(dv);
    zdOut = withLanes(zd, solvedSmall(*theta, std::move(rhs)));
  }
};

MatrixRTangent::MatrixRTangent() : w_(std::make_unique<Work>()) {}
MatrixRTangent::~MatrixRTangent() = default;

Status MatrixRTangent::at(const MatrixRModel& m, const TreeNumbers<double>& values, const std::vector<Dof>& dofs, double t,
                          const MatrixROn<double>& e, const MatrixRData* evaluated) {
  Work& w = *w_;
  const int nz = m.tree.nz;
  if (w.m != &m || w.dofs != dofs || w.read.size() != m.tree.nodeOfBody.size()) {
    // the bodies the rows and the independent points read
    w.read = m.tree.rowBodies;
    w.read.resize(m.tree.nodeOfBody.size(), 1);
    for (const ItemIndex& point : dofPoints(dofs)) w.read[static_cast<std::size_t>(point.body)] = 1;
    w.products = loopJacobianRatesUnsupported(m.tree, m.rows).empty();
  }
  w.m = &m;
  w.dofs = dofs;
  w.points = dofPoints(dofs);
  w.t = t;
  w.z = e.z;
  w.zd = e.zd;
  w.zdd = e.zdd;
  w.R = e.R;
  // the pipeline's factorisations where it evaluated this very point (Θ_z dense there)
  const bool reuse = evaluated && evaluated->thetaFactor() && evaluated->reducedMassFactor() && evaluated->t == t && evaluated->z == e.z &&
                     evaluated->zd == e.zd && evaluated->dofs == dofs;
  w.theta = reuse ? evaluated->thetaFactor() : &w.ownTheta;
  w.mbar = reuse ? evaluated->reducedMassFactor() : &w.ownMbar;
  // Θ_z = [Φ_z (selected rows); B] from the tree's analytic loop and point Jacobians (the model's
  // geometry: `values` differ from it only in the forces' switch states)
  if (!reuse) {
    Eigen::MatrixXd Theta(nz, nz);
    if (nz > 0) {
      loopJacobian(m.tree, w.data, e.z, t, w.loopJ);
      for (std::size_t i = 0; i < m.rows.size(); ++i) Theta.row(static_cast<Eigen::Index>(i)) = w.loopJ.row(m.rows[i]);
      for (std::size_t k = 0; k < dofs.size(); ++k) {
        const Dof& f = dofs[k];
        const auto row = static_cast<Eigen::Index>(m.rows.size() + k);
        if (f.kind == Dof::Kind::Coordinate) {
          Theta.row(row).setZero();
          Theta(row, f.z) = 1;
        } else {
          pointJacobian(m.tree, w.data, f.body, f.point, e.z, w.pointJ);
          Theta.row(row) = w.pointJ.row(f.component);
        }
      }
    }
    w.ownTheta.compute(Theta);
    if (nz > 0 && !(w.ownTheta.rcond() > 1e-13)) return failure(Status::Code::Singular, t, "the loops are singular here (Θ_z)");
    w.ownMbar.compute(e.Mbar);
    if (w.ownMbar.info() != Eigen::Success) return failure(Status::Code::Singular, t, "the reduced mass matrix is singular");
  }
  massMatrix(m.tree, w.data, e.z, w.Md);
  // the loops' multipliers: Θ_zᵀ [λ; μ] = −τ (μ = R^Φᵀ(−τ) = 0 at the solution), τ = M^d z̈ − Q^d
  // (the pipeline's Q^d where it is reused)
  Eigen::VectorXd tau(nz);
  if (reuse) {
    tau.noalias() = w.Md * e.zdd;
    tau -= evaluated->Qd;
  } else {
    inverseDynamicsOn<double>(m.tree, values, e.z.data(), e.zd.data(), e.zdd.data(), t, tau.data());
  }
  w.lambda = Eigen::VectorXd(w.theta->transpose().solve(Eigen::VectorXd(-tau))).head(static_cast<Eigen::Index>(m.rows.size()));
  // a quaternion's unit row carries no force (R(q) is normalised: the dynamics do not see |q|);
  // its multiplier is round-off
  for (std::size_t r = 0; r < m.rows.size(); ++r) {
    const int row = m.rows[r];
    for (const LoopConstraint& c : m.tree.constraints)
      if (c.kind == LoopConstraint::Kind::UnitQuaternion && row >= c.row && row < c.row + c.rows) w.lambda[static_cast<Eigen::Index>(r)] = 0;
  }
  return {};
}

void MatrixRTangent::along(const TreeNumbers<num::Dual8>& p, bool seeded, const VectorOn<num::Dual8>& dx, const VectorOn<num::Dual8>& dv,
                           VectorOn<num::Dual8>& zidd, VectorOn<num::Dual8>& z, VectorOn<num::Dual8>& zd, VectorOn<num::Dual8>& zdd,
                           std::span<const ItemIndex> points, num::Dual8* pr, num::Dual8* pv, num::Dual8* pa) const {
  Work& w = *w_;
  const MatrixRModel& m = *w.m;
  const RecursiveModel& tree = m.tree;
  const int nz = tree.nz, d = static_cast<int>(w.dofs.size()), nc = static_cast<int>(m.rows.size());
  const detail::TreeMotion<D>& motion = w.passes.motion;
  const std::vector<J>& rows = w.passes.rows;
  const VectorOn<D> zeroD = VectorOn<D>::Zero(nz);
  w.positionsAndRates(p, seeded, dx, dv, z, zd);
  // accelerations with δz̈ⁱ = 0: Θ δa = −[δΦ̈; δḧ] at z̈ held; τ's lanes from the same motion
  w.rowsAlong(p, z, zd, constant(w.zdd), 1.0, true, true);
  const Eigen::MatrixXd da = solvedSmall(*w.theta, -rowLanes(rows, 2));
  VectorOn<D> tau(nz);
  detail::inverseDynamicsFrom<D>(tree, p, motion, z.data(), zd.data(), w.t, tau.data());
  // the loops' multipliers turned with Φ_z: λᵀ δΦ_z r_c for every column r_c of R^Φ at once.
  // λᵀΦ_z = −(S_j · F_j)_j (plus the tree joints' drivers' constant rows), F_j the loops' wrenches
  // W_b = −∂(λᵀΦ_c)/∂ξ_b (ξ_b a twist of body b) summed over coordinate j's subtree, so
  // δ(λᵀΦ_z)_j = −δS_j · F_j − S_j · δF_j: the motion's columns at z with their lanes (the pass
  // above: positions alone), and each loaded constraint's rows on jets along its bodies' six unit
  // twists, with the lanes of z and the numbers
  Eigen::MatrixXd turn = Eigen::MatrixXd::Zero(d, L);
  // no multiplier (no loop force: an open tree with a quaternion's row only): no turn
  const bool loaded = w.lambda.size() > 0 && w.lambda.cwiseAbs().maxCoeff() > 0;
  if (loaded) {
    Work::Turn& u = w_->turn;
    using T6 = TwistJets;
    u.lambdaByRow.assign(static_cast<std::size_t>(tree.nrows), 0.0);
    for (int r = 0; r < nc; ++r) u.lambdaByRow[static_cast<std::size_t>(m.rows[static_cast<std::size_t>(r)])] = w.lambda[r];
    const std::size_t nb = motion.frames.size(), nn = tree.nodes.size();
    // the frames, coordinates and rows on jets along the twists: set up at the first constraint
    // without a closed form
    bool jets = false;
    auto setUpJets = [&] {
      u.frames.resize(nb);
      for (std::size_t b = 0; b < nb; ++b) {
        for (int i = 0; i < 9; ++i) u.frames[b].R.a[i] = T6(motion.frames[b].R.a[i]);
        for (int i = 0; i < 3; ++i) u.frames[b].x[i] = T6(motion.frames[b].x[i]);
      }
      u.zj.resize(static_cast<std::size_t>(nz));
      for (int i = 0; i < nz; ++i) u.zj[static_cast<std::size_t>(i)] = T6(z[i]);
      u.phi.assign(static_cast<std::size_t>(tree.nrows), T6(D(0.0)));
      jets = true;
    };
    const T6 tj{D(w.t)};
    u.wrench.assign(nn, detail::Motion6<D>{detail::zero3<D>(), detail::zero3<D>()});
    for (std::size_t ci = 0; ci < tree.constraints.size(); ++ci) {
      const LoopConstraint& c = tree.constraints[ci];
      bool carried = false;
      for (int r = 0; r < c.rows; ++r) carried = carried || u.lambdaByRow[static_cast<std::size_t>(c.row + r)] != 0;
      if (!carried) continue;
      constraintBodies(tree, static_cast<int>(ci), u.bodies);
      std::erase_if(u.bodies, [&](int b) { return tree.nodeOfBody[static_cast<std::size_t>(b)] < 0; });  // the ground turns nothing
      // two moving bodies: a joint's or driver's rows measure one body against the other, so they
      // do not change when both move alike (to first order at the constraint, where the lanes
      // stay): the second body's wrench is the first's reversed (action and reaction)
      const bool pair = u.bodies.size() == 2;
      for (std::size_t bi = 0; bi < (pair ? 1 : u.bodies.size()); ++bi) {
        const int b = u.bodies[bi];
        detail::Motion6<D> W{detail::zero3<D>(), detail::zero3<D>()};
        if (!cutJointWrench(tree, p, motion.frames, c, b, u.lambdaByRow, W)) {
          if (!jets) setUpJets();
          detail::Frame<T6>& F = u.frames[static_cast<std::size_t>(b)];
          detail::seedUnitTwists(F, true);  // body b along its six unit twists at once
          constraintOnFrames<T6, D>(tree, p, u.frames, u.zj.data(), tj, static_cast<int>(ci), u.phi.data());
          for (int e = 0; e < 6; ++e) {
            D power(0.0);
            for (int r = 0; r < c.rows; ++r)
              power = power - u.lambdaByRow[static_cast<std::size_t>(c.row + r)] * u.phi[static_cast<std::size_t>(c.row + r)].d[e];
            (e < 3 ? W.v : W.w)[e % 3] = power;
          }
          detail::seedUnitTwists(F, false);
        }
        auto addTo = [&](int body, double sign) {
          detail::Motion6<D>& to = u.wrench[static_cast<std::size_t>(tree.nodeOfBody[static_cast<std::size_t>(body)])];
          to = {detail::add(to.v, detail::scale(D(sign), W.v)), detail::add(to.w, detail::scale(D(sign), W.w))};
        };
        addTo(b, 1.0);
        if (pair) addTo(u.bodies[1], -1.0);
      }
    }
    for (std::size_t k = nn; k-- > 0;)  // summed over subtrees, leaves first
      for (int ch : tree.children[k]) {
        const auto& Wc = u.wrench[static_cast<std::size_t>(ch)];
        u.wrench[k] = {detail::add(u.wrench[k].v, Wc.v), detail::add(u.wrench[k].w, Wc.w)};
      }
    for (int j = 0; j < nz; ++j) {
      const detail::Motion6<D>& Sj = motion.column[static_cast<std::size_t>(j)];
      const detail::Motion6<D>& Fj = u.wrench[static_cast<std::size_t>(motion.nodeOf[static_cast<std::size_t>(j)])];
      const D g = -(detail::dot(Sj.v, Fj.v) + detail::dot(Sj.w, Fj.w));  // (λᵀΦ_z)_j with its lanes
      for (int l = 0; l < L; ++l)
        if (g.g[l] != 0)
          for (int c = 0; c < d; ++c) turn(c, l) += g.g[l] * w.R(j, c);
    }
  }
  const Eigen::MatrixXd dzidd = -w.mbar->solve(Eigen::MatrixXd(w.R.transpose() * (w.Md * da + gradientsOf(tau)) + turn));
  zidd = withLanes(Eigen::VectorXd::Zero(d), dzidd);
  const Eigen::MatrixXd dzdd = w.R * dzidd + da;
  zdd = withLanes(w.zdd, dzdd);
  if (points.empty()) return;
  // the points on the last pass's motion (z, ż with their lanes, z̈ without): their accelerations
  // then miss Σ_j ∂a/∂z̈_j δz̈_j, ∂a/∂z̈_j = S_j.v + S_j.ω × r for the coordinates that carry them
  detail::pointsFromMotion<D>(tree, p, motion, points, pr, pv, pa);
  addAccelerationLanes(
      tree, motion.nodeOf,
      [&](int j, double* sv, double* sw) {
        const detail::Motion6<D>& Sj = motion.column[static_cast<std::size_t>(j)];
        for (int i = 0; i < 3; ++i) sv[i] = Sj.v[i].v, sw[i] = Sj.w[i].v;
      },
      dzdd, points, pr, pa);
}

void MatrixRTangent::velocitiesAlong(const TreeNumbers<num::Dual8>& p, bool seeded, const VectorOn<num::Dual8>& dx, const VectorOn<num::Dual8>& dv,
                                     VectorOn<num::Dual8>& z, VectorOn<num::Dual8>& zd, MatrixOnDual8& R, MatrixOnDual8& Md) const {
  Work& w = *w_;
  const RecursiveModel& tree = w.m->tree;
  const int nz = tree.nz, d = static_cast<int>(w.dofs.size());
  const std::vector<J>& rows = w.passes.rows;
  const VectorOn<D> zeroD = VectorOn<D>::Zero(nz);
  w.positionsAndRates(p, seeded, dx, dv, z, zd);
  // M^d on the positions' motion (frames and columns with z's lanes), before the rates move
  detail::massMatrixFrom<D>(tree, p, w.passes.motion, Md);
  // R^Φ's columns: ż = R_c at żⁱ = e_c (no time rate), so Θ δR_c = −[δ(Φ_z R_c); δ(h_z R_c)]
  R.resize(nz, d);
  for (int c = 0; c < d; ++c) {
    w.rowsAlong(p, z, constant(w.R.col(c)), zeroD, 0.0, true, false);
    R.col(c) = withLanes(w.R.col(c), solvedSmall(*w.theta, -rowLanes(rows, 1)));
  }
}

void MatrixRTangent::alongInertia(const TreeNumbers<double>& values, const MotionAtState& state, const VectorOn<num::Dual8>& tau,
                                  VectorOn<num::Dual8>& zidd, VectorOn<num::Dual8>& z, VectorOn<num::Dual8>& zd, VectorOn<num::Dual8>& zdd,
                                  std::span<const ItemIndex> points, num::Dual8* pr, num::Dual8* pv, num::Dual8* pa) const {
  const Work& w = *w_;
  const RecursiveModel& tree = w.m->tree;
  const Eigen::MatrixXd dzidd = -w.mbar->solve(Eigen::MatrixXd(w.R.transpose() * gradientsOf(tau)));
  const Eigen::MatrixXd dzdd = w.R * dzidd;
  zidd = withLanes(Eigen::VectorXd::Zero(dzidd.rows()), dzidd);
  z = constant(w.z);
  zd = constant(w.zd);
  zdd = withLanes(w.zdd, dzdd);
  if (points.empty()) return;
  const std::size_t np = 3 * points.size();
  std::vector<double> r(np), v(np), a(np);
  state.points(tree, values, points, r.data(), v.data(), a.data());
  for (std::size_t i = 0; i < np; ++i) {
    pr[i] = D(r[i]);
    pv[i] = D(v[i]);
    pa[i] = D(a[i]);
  }
  const detail::TreeMotion<double>& motion = state.data().motion;
  addAccelerationLanes(
      tree, motion.nodeOf,
      [&](int j, double* sv, double* sw) {
        const detail::Motion6<double>& Sj = motion.column[static_cast<std::size_t>(j)];
        for (int i = 0; i < 3; ++i) sv[i] = Sj.v[i], sw[i] = Sj.w[i];
      },
      dzdd, points, pr, pa);
}

bool MatrixRTangent::stateJacobians(const TreeNumbers<double>& values, const MotionAtState& state, StateJacobians& out) const {
  const Work& w = *w_;
  const MatrixRModel& m = *w.m;
  const RecursiveModel& tree = m.tree;
  if (!w.products) return false;
  Eigen::MatrixXd H;
  Eigen::MatrixXd &Thd = out.rates, &Thdd = out.secondRates, &Tz = out.tauZ, &Tzd = out.tauZd;
  loopJacobianRates(tree, values, state, m.rows, w.dofs, w.lambda, Thd, Thdd, H);
  inverseDynamicsDerivatives(tree, values, state, Tz, Tzd);
  Tz += H;  // τ_z + H
  // with Y = Θ̇ R^Φ: ż by zⁱ is −Θ⁻¹Y, δa by żⁱ is −2Θ⁻¹Y = 2 ż_x; R^Φᵀ M^d, R^Φᵀ(τ_z + H), R^Φᵀ τ_ż
  // once each (d × nz)
  const Eigen::MatrixXd& R = w.R;
  Eigen::MatrixXd Y = Thd * R;
  out.zx = R;
  out.zdx = -solvedSmall(*w.theta, Y);
  out.zdv = R;
  Y.noalias() = Thdd * R;
  Y.noalias() += 2 * (Thd * out.zdx);
  const Eigen::MatrixXd ax = -solvedSmall(*w.theta, Y);
  const Eigen::MatrixXd RtM = R.transpose() * w.Md, RtT = R.transpose() * Tz, RtTd = R.transpose() * Tzd;
  Eigen::MatrixXd rhs = RtM * ax;
  rhs.noalias() += RtT * R;
  rhs.noalias() += RtTd * out.zdx;
  out.fx = -w.mbar->solve(rhs);
  rhs.noalias() = 2 * (RtM * out.zdx);
  rhs.noalias() += RtTd * R;
  out.fv = -w.mbar->solve(rhs);
  out.zddx = ax;
  out.zddx.noalias() += R * out.fx;
  out.zddv = 2 * out.zdx;
  out.zddv.noalias() += R * out.fv;
  return true;
}

bool MatrixRTangent::stateJacobiansCover() const { return w_->products; }

bool MatrixRTangent::alongNumbers(const TreeNumbers<double>& values, const MotionAtState& state, const StateJacobians& parts, const NumbersLanes& lanes,
                                  const TreeNumbers<num::Dual8>& p, std::span<const ItemIndex> extra, NumbersAlong& out) const {
  const Work& w = *w_;
  if (!w.products || parts.rates.size() == 0) return false;
  const MatrixRModel& m = *w.m;
  const RecursiveModel& tree = m.tree;
  const auto nz = static_cast<Eigen::Index>(tree.nz), nc = static_cast<Eigen::Index>(m.rows.size());
  thread_local std::vector<ItemIndex> points;
  thread_local std::vector<RowPoint> rows;
  thread_local std::vector<PointLoad> loads;
  rowPointsOf(m.tree, m.rows, w.dofs, extra, points, rows);
  // the multipliers as forces −s λ e_k at the loops' points: τ's lanes then carry ∂(Φ_zᵀλ)/∂ρ
  loads.clear();
  for (const RowPoint& rp : rows) {
    if (rp.row >= nc || w.lambda[rp.row] == 0) continue;
    PointLoad q{points[static_cast<std::size_t>(rp.point)], Eigen::Vector3d::Zero()};
    q.force[rp.component] = -rp.sign * w.lambda[rp.row];
    loads.push_back(q);
  }
  const std::size_t np = 3 * points.size();
  thread_local std::vector<D> tau, r, v, a;
  tau.resize(static_cast<std::size_t>(nz));
  r.resize(np);
  v.resize(np);
  a.resize(np);
  if (!inverseDynamicsAlongNumbers(tree, values, state, lanes, p, tau.data(), points, r.data(), v.data(), a.data(), loads)) return false;
  // Ψ's explicit lanes, its rate's and its second rate's: the rows' points' r, v, a
  Eigen::MatrixXd P0 = Eigen::MatrixXd::Zero(nz, L), P1 = P0, P2 = P0, T(nz, L);
  for (const RowPoint& rp : rows) {
    const auto i = static_cast<std::size_t>(3 * rp.point + rp.component);
    for (int l = 0; l < L; ++l) {
      P0(rp.row, l) += rp.sign * r[i].g[l];
      P1(rp.row, l) += rp.sign * v[i].g[l];
      P2(rp.row, l) += rp.sign * a[i].g[l];
    }
  }
  for (Eigen::Index i = 0; i < nz; ++i)
    for (int l = 0; l < L; ++l) T(i, l) = tau[static_cast<std::size_t>(i)].g[l];
  // Θ δz = −Ψ_ρ, Θ δż = −(Θ̇ δz + Ψ̇_ρ), Θ δa = −(Θ̈ δz + 2Θ̇ δż + Ψ̈_ρ) (z̈ held);
  // M̄ δz̈ⁱ = −R^Φᵀ(M^d δa + (τ_z + H) δz + τ_ż δż + (τ + Φ_zᵀλ)_ρ), δz̈ = R^Φ δz̈ⁱ + δa
  // lanes that move no row's point (masses, inertias, forces, gravity) leave the positions and
  // rates: δz = δż = δa = 0, and the dense algebra in nz is skipped
  if (P0.isZero(0.0) && P1.isZero(0.0) && P2.isZero(0.0)) {
    out.z.setZero(nz, L);
    out.zd.setZero(nz, L);
    out.zidd = -w.mbar->solve(Eigen::MatrixXd(w.R.transpose() * T));
    out.zdd.noalias() = w.R * out.zidd;
  } else {
    out.z = -solvedSmall(*w.theta, std::move(P0));
    P1.noalias() += parts.rates * out.z;
    out.zd = -solvedSmall(*w.theta, std::move(P1));
    P2.noalias() += parts.secondRates * out.z;
    P2.noalias() += 2 * (parts.rates * out.zd);
    const Eigen::MatrixXd da = -solvedSmall(*w.theta, std::move(P2));
    T.noalias() += w.Md * da;
    T.noalias() += parts.tauZ * out.z;
    T.noalias() += parts.tauZd * out.zd;
    out.zidd = -w.mbar->solve(Eigen::MatrixXd(w.R.transpose() * T));
    out.zdd = da;
    out.zdd.noalias() += w.R * out.zidd;
  }
  // the extra points' own lanes (at the fixed state): r, v, a stacked
  const auto ne = static_cast<Eigen::Index>(3 * extra.size());
  out.points.resize(3 * ne, L);
  for (Eigen::Index i = 0; i < ne; ++i)
    for (int l = 0; l < L; ++l) {
      out.points(i, l) = r[static_cast<std::size_t>(i)].g[l];
      out.points(ne + i, l) = v[static_cast<std::size_t>(i)].g[l];
      out.points(2 * ne + i, l) = a[static_cast<std::size_t>(i)].g[l];
    }
  return true;
}

std::shared_ptr<const MatrixRParameterTranspose> MatrixRTangent::parameterTranspose(StateJacobians&& parts, MotionAtState&& state,
                                                                                   std::span<const ItemIndex> extra) const {
  const Work& w = *w_;
  if (!w.products || parts.rates.size() == 0) return nullptr;
  auto out = std::make_shared<MatrixRParameterTranspose>();
  MatrixRParameterTranspose::Data& d = *out->d_;
  const RecursiveModel& tree = w.m->tree;
  d.tree = &tree;
  d.lambda = w.lambda;
  d.R = w.R;
  d.Md = w.Md;
  d.theta = *w.theta;
  d.mbar = *w.mbar;
  d.rates = std::move(parts.rates);
  d.secondRates = std::move(parts.secondRates);
  d.tauZ = std::move(parts.tauZ);
  d.tauZd = std::move(parts.tauZd);
  d.state = std::make_unique<MotionAtState>(std::move(state));
  d.extra = extra.size();
  rowPointsOf(w.m->tree, w.m->rows, w.dofs, extra, d.points, d.rowPoints);
  return out;
}

}  // namespace lw::dyn
