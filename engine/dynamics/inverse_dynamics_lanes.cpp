// τ's and the points' lanes along design parameters (dyn::inverseDynamicsAlongNumbers): the
// forward-mode tangent of the jet-free motion pass and the inverse dynamics on it, written out on
// doubles lane by lane. A parameter that moves geometry displaces whole subtrees by translations
// at the fixed state; one that changes masses changes wrenches. Nodes above everything a lane
// touches are skipped, so a length low in a chain costs only its subtree.
#include <vector>

#include "dynamics/inverse_dynamics_derivatives.h"
#include "dynamics/tree_motion.h"
#include "numeric/dual.h"

namespace lw::dyn {
namespace {

using namespace detail;
using D = num::Dual8;
constexpr int kLanes = num::kChunk;

bool hasLanes(const D& x) {
  for (double g : x.g)
    if (g != 0) return true;
  return false;
}
template <int R, int C>
bool hasLanes(const Eigen::Matrix<D, R, C>& a) {
  for (Eigen::Index i = 0; i < a.size(); ++i)
    if (hasLanes(a.data()[i])) return true;
  return false;
}
template <class M>
V3<double> mulT(const M& A, const V3<double>& x) {  // Aᵀ x
  V3<double> y;
  for (int i = 0; i < 3; ++i) y[i] = A(0, i) * x[0] + A(1, i) * x[1] + A(2, i) * x[2];
  return y;
}

// a joint that turns about its point J: the child's origin is x_p + R_p J + R_p R_m (x0 − J), so
// J's lane translates the node's columns with the subtree, and x0 − J's the subtree alone
bool turnsAboutPoint(NodeKind k) {
  return k == NodeKind::Revolute || k == NodeKind::Cylindrical || k == NodeKind::Universal;
}

Eigen::Vector3d lane3(const Eigen::Matrix<D, 3, 1>& a, int l) { return {a[0].g[l], a[1].g[l], a[2].g[l]}; }
V3<double> v3(const Eigen::Vector3d& a) { return {{a.x(), a.y(), a.z()}}; }

// the active forces are the pass's: none but torsion springs on tree joints
bool forcesCovered(const RecursiveModel& m, const TreeNumbers<D>& p) {
  const auto& forces = m.mechanism->forces;
  for (std::size_t f = 0; f < forces.size(); ++f) {
    if (!p.mech.forces[f].active) continue;
    if (forces[f].type != Force::Type::TorsionSpring || m.treeJointNode[static_cast<std::size_t>(forces[f].joint)] < 0) return false;
  }
  return true;
}

}  // namespace

bool numbersLanesCovered(const RecursiveModel& m, const NumbersLanes& lanes, const TreeNumbers<D>& p) {
  return lanes.uncovered.empty() && (lanes.inertialOnly || forcesCovered(m, p));
}

NumbersLanes inertialLanes(const RecursiveModel& m, const TreeNumbers<D>& p, const std::vector<bool>& keep) {
  NumbersLanes out = numbersLanes(m, p);
  out.uncovered.clear();  // of the lanes left out, perhaps
  out.inertialOnly = true;
  for (const Node& n : m.nodes)
    if (n.kind == NodeKind::Spherical || n.kind == NodeKind::FreeSpatial) out.uncovered = "a quaternion joint (body " + std::to_string(n.body) + ")";
  for (int l = 0; l < kLanes; ++l) {
    NumbersLanes::Lane& lane = out.lanes[static_cast<std::size_t>(l)];
    if (!keep[static_cast<std::size_t>(l)]) {
      lane.first = -1;
      lane.pulls = false;
      lane.gravity.setZero();
      continue;
    }
    for (const NumbersLanes::NodeLane& x : lane.nodes)
      if (x.moves) out.uncovered = "an inertial lane moves geometry";
    if (lane.pulls) out.uncovered = "an inertial lane on gravity";
  }
  return out;
}

NumbersLanes numbersLanes(const RecursiveModel& m, const TreeNumbers<D>& p) {
  NumbersLanes out;
  const auto nn = m.nodes.size();
  for (std::size_t k = 0; k < nn && out.uncovered.empty(); ++k) {
    const NodeKind kind = m.nodes[k].kind;
    if (kind == NodeKind::Spherical || kind == NodeKind::FreeSpatial) out.uncovered = "a quaternion joint (body " + std::to_string(m.nodes[k].body) + ")";
    const auto& g = p.nodes[k];
    if (hasLanes(g.axis) || hasLanes(g.axis2) || hasLanes(g.R0)) out.uncovered = "a lane on a joint axis or stored rotation";
  }
  out.lanes.resize(kLanes);  // sorted out even where uncovered: inertialLanes keeps some of them
  for (int l = 0; l < kLanes; ++l) {
    NumbersLanes::Lane& lane = out.lanes[static_cast<std::size_t>(l)];
    lane.nodes.resize(nn);
    for (std::size_t k = 0; k < nn; ++k) {
      NumbersLanes::NodeLane& x = lane.nodes[k];
      const auto& g = p.nodes[k];
      const auto& B = p.mech.bodies[static_cast<std::size_t>(m.nodes[k].body)];
      x.point = lane3(g.point, l);
      x.offset = lane3(g.x0, l);
      x.com = lane3(B.com, l);
      x.mass = B.mass.g[l];
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) x.inertia(i, j) = B.inertia(i, j).g[l];
      x.moves = !x.point.isZero(0.0) || !x.offset.isZero(0.0);
      x.weighs = !x.com.isZero(0.0) || x.mass != 0 || !x.inertia.isZero(0.0);
      if ((x.moves || x.weighs) && lane.first < 0) lane.first = static_cast<int>(k);
    }
    lane.gravity = lane3(p.mech.gravity, l);
    lane.pulls = !lane.gravity.isZero(0.0);
    if (lane.pulls && nn > 0) lane.first = 0;  // every body's weight
  }
  return out;
}

bool inverseDynamicsAlongNumbers(const RecursiveModel& m, const TreeNumbers<double>& values, const MotionAtState& state,
                                 const NumbersLanes& lanes, const TreeNumbers<D>& p, D* tau, std::span<const ItemIndex> points, D* r, D* v,
                                 D* a) {
  if (!numbersLanesCovered(m, lanes, p)) return false;
  const MotionAtStateData& st = state.data();
  const TreeMotion<double>& motion = st.motion;
  const double* zd = st.zd.data();
  const double* zdd = st.zdd.data();
  thread_local std::vector<Motion6<double>> df;
  thread_local std::vector<V3<double>> dV, dA;          // by node: the lanes of v_O and a_O (a translation turns nothing: ω, α keep)
  thread_local std::vector<V3<double>> dBefore, dBody;  // by node: the translation of its columns, of its body
  thread_local std::vector<char> moved, touched;        // by node: displaced; with a wrench lane
  thread_local std::vector<double> pr, pv, pa;
  const auto nn = m.nodes.size();
  const auto nz = static_cast<std::size_t>(m.nz);
  const bool planar = m.dimension == 2;
  for (std::size_t i = 0; i < nz; ++i) tau[i] = D(st.tau[static_cast<Eigen::Index>(i)]);
  pr.resize(3 * points.size());
  pv.resize(pr.size());
  pa.resize(pr.size());
  pointsFromMotion(m, values, motion, points, pr.data(), pv.data(), pa.data());
  for (std::size_t i = 0; i < pr.size(); ++i) {
    r[i] = D(pr[i]);
    v[i] = D(pv[i]);
    a[i] = D(pa[i]);
  }
  dV.resize(nn);
  dA.resize(nn);
  df.resize(nn);
  dBefore.resize(nn);
  dBody.resize(nn);
  moved.resize(nn);
  touched.resize(nn);
  const V3<double> gravity = v3(values.mech.gravity);
  for (int l = 0; l < kLanes; ++l) {
    const NumbersLanes::Lane& lane = lanes.lanes[static_cast<std::size_t>(l)];
    const bool any = lane.first >= 0;
    std::fill(moved.begin(), moved.end(), 0);
    std::fill(touched.begin(), touched.end(), 0);
    // down the tree from the first node the lane touches: each body's translation and the lanes
    // of its motion and wrench
    for (std::size_t k = any ? static_cast<std::size_t>(lane.first) : nn; k < nn; ++k) {
      const Node& n = m.nodes[k];
      const NumbersLanes::NodeLane& own = lane.nodes[k];
      const auto pk = n.parentNode;
      const bool parentMoved = pk >= 0 && moved[static_cast<std::size_t>(pk)];
      if (!parentMoved && !own.moves && !own.weighs && !lane.pulls) continue;
      touched[k] = 1;
      const M3<double>& Rc = motion.frames[static_cast<std::size_t>(n.body)].R;
      V3<double> d = parentMoved ? dBody[static_cast<std::size_t>(pk)] : zero3<double>();
      V3<double> dVk = zero3<double>(), dAk = zero3<double>();
      if (parentMoved || own.moves) {
        moved[k] = 1;
        V3<double> after = zero3<double>();
        if (own.moves) {
          const M3<double>& Rp = motion.frames[static_cast<std::size_t>(n.parent)].R;
          if (turnsAboutPoint(n.kind)) {
            d = add(d, mul(Rp, own.point));
            after = mul(Rc, mulT(values.nodes[k].R0, v3(own.offset - own.point)));  // R_p R_m = R_c R0ᵀ
          } else {
            d = add(d, mul(Rp, own.offset));  // slides and free bodies: their columns do not see a translation
          }
        }
        dBefore[k] = d;
        dBody[k] = add(d, after);
        // the motion's lanes, as treeMotion builds it: ∂S = d × S = [d × ω_S; 0], so only the
        // translational parts move: ∂V = Σ ∂S ż, ∂A = Σ ∂S z̈ + (∂V × S + V × ∂S) ż
        if (parentMoved) {
          dVk = dV[static_cast<std::size_t>(pk)];
          dAk = dA[static_cast<std::size_t>(pk)];
        }
        for (int q = 0; q < n.nz; ++q) {
          const auto i = static_cast<std::size_t>(n.z + q);
          const Motion6<double>& S = motion.column[i];
          const V3<double> dS = cross(d, S.w);
          dVk = add(dVk, scale(zd[i], dS));
          dAk = add(dAk, add(scale(zdd[i], dS), scale(zd[i], add(cross(dVk, S.w), cross(motion.Vi[i].w, dS)))));
        }
      } else {
        dBefore[k] = dBody[k] = zero3<double>();
      }
      dV[k] = dVk;
      dA[k] = dAk;
      // the wrench I A + V ×* I V − W and its lane: the inertia's (mass, centre, J_c) and the motion's
      const double mass = values.mech.bodies[static_cast<std::size_t>(n.body)].mass, dm = own.mass;
      const V3<double>& c = motion.centre[k];
      const V3<double> dc = add(dBody[k], mul(Rc, own.com));
      auto inertiaLane = [&](const Motion6<double>& x) {  // ∂(I x) at fixed x
        const V3<double> u = add(x.v, cross(x.w, c));
        const V3<double> fv = add(scale(dm, u), scale(mass, cross(x.w, dc)));
        V3<double> Jw = zero3<double>();
        if (own.weighs) {
          const Eigen::Matrix3d& dI = own.inertia;
          if (planar) Jw = {{0.0, 0.0, x.w[2] * dI(2, 2)}};
          else {
            const V3<double> y = mulT(Rc, x.w);
            Jw = mul(Rc, V3<double>{{dI(0, 0) * y[0] + dI(0, 1) * y[1] + dI(0, 2) * y[2], dI(1, 0) * y[0] + dI(1, 1) * y[1] + dI(1, 2) * y[2],
                                     dI(2, 0) * y[0] + dI(2, 1) * y[1] + dI(2, 2) * y[2]}});
          }
        }
        return Motion6<double>{fv, add(add(Jw, cross(dc, scale(mass, u))), cross(c, fv))};
      };
      auto inertiaTimesTranslation = [&](const V3<double>& x) {  // I [x; 0] = [m x; c × m x]
        const V3<double> fv = scale(mass, x);
        return Motion6<double>{fv, cross(c, fv)};
      };
      Motion6<double> f = plus(inertiaLane(motion.A[k]), inertiaTimesTranslation(dAk));
      f.w = add(f.w, cross(dVk, st.IV[k].v));  // [∂v; 0] ×* I V
      f = plus(f, crossForce(motion.V[k], plus(inertiaLane(motion.V[k]), inertiaTimesTranslation(dVk))));
      const V3<double> w = scale(mass, gravity), dw = add(scale(dm, gravity), scale(mass, v3(lane.gravity)));
      f.v = sub(f.v, dw);
      f.w = sub(f.w, add(cross(dc, w), cross(c, dw)));
      df[k] = f;
    }
    // up the tree: the subtrees' wrenches' lanes projected, with the columns' own (∂S·F)
    if (any)
      for (std::size_t k = nn; k-- > 0;) {
        if (!touched[k]) continue;
        const Node& n = m.nodes[k];
        for (int q = 0; q < n.nz; ++q) {
          const auto i = static_cast<std::size_t>(n.z + q);
          const Motion6<double>& S = motion.column[i];
          tau[i].g[l] = dot(S.v, df[k].v) + dot(S.w, df[k].w);
          if (moved[k]) tau[i].g[l] += dot(cross(dBefore[k], S.w), st.F[k].v);
        }
        const int pk = n.parentNode;
        if (pk < 0) continue;
        const auto up = static_cast<std::size_t>(pk);
        df[up] = touched[up] ? plus(df[up], df[k]) : df[k];
        touched[up] = 1;
      }
    // the points: r = x + R p_B moved with their body, v = v_O + ω × r, a = a_O + α × r + ω × v (ω, α keep)
    for (std::size_t j = 0; j < points.size(); ++j) {
      const ItemIndex item = points[j];
      const V3<double> dp = v3(lane3(p.mech.point(item), l));
      const int k = m.nodeOfBody[static_cast<std::size_t>(item.body)];
      V3<double> dr = dp, dv = zero3<double>(), da = zero3<double>();
      if (k >= 0) {
        const auto uk = static_cast<std::size_t>(k);
        dr = mul(motion.frames[static_cast<std::size_t>(item.body)].R, dp);
        if (moved[uk]) {
          dr = add(dr, dBody[uk]);
          dv = dV[uk];
          da = dA[uk];
        }
        const Motion6<double>& V = motion.V[uk];
        dv = add(dv, cross(V.w, dr));
        da = add(add(da, cross(motion.A[uk].w, dr)), cross(V.w, dv));
      }
      for (int i = 0; i < 3; ++i) {
        r[3 * j + static_cast<std::size_t>(i)].g[l] = dr[i];
        v[3 * j + static_cast<std::size_t>(i)].g[l] = dv[i];
        a[3 * j + static_cast<std::size_t>(i)].g[l] = da[i];
      }
    }
  }
  // tree torsion springs: Q = sign · (−k (angle − θ₀) − c rate) on their own coordinate
  forEachTreeTorsionSpring(m, p.mech, [&](const Node& n, const auto& fn) {
    const D angle(st.z[n.z] * n.sign), rate(zd[n.z] * n.sign);
    const D q = ((angle - fn.naturalAngle) * (-fn.stiffness) - rate * fn.damping) * n.sign;
    for (int l = 0; l < kLanes; ++l) tau[n.z].g[l] -= q.g[l];
  });
  return true;
}

// ---- the transpose: weights on τ and the points back to the lanes' fields ----
//
// The forward pass per lane, as a linear map of the fields (zero where a lane touches nothing):
//   down:  d_k = dBody_p + R_p J'  (or R_p x0' for slides and free bodies), after_k = R_c R0ᵀ (x0' − J'),
//          dBefore_k = d_k, dBody_k = d_k + after_k, and over the node's columns
//          dS = d × S_ω, dV += ż dS, dA += z̈ dS + ż (dV × S_ω + V_i,ω × dS);
//   wrench: f_k = I'(A) + I(dA) + [0; dV × (IV)_v] + V ×* (I'(V) + I(dV)) − [m' g; dc × m g + c × m' g],
//          dc = dBody + R_c c';
//   up:    τ_i' = S_i · Σ_subtree f + (dBefore_k × S_i,ω) · F_k,v.
// Transposed: U_k = Σ_{columns i at or above k} wτ_i S_i weighs f_k (root to leaves); each wrench's
// inputs then get U's (and V ×*'s transpose Y = [U_v × V_ω + U_ω × V_v; U_ω × V_ω]); the down
// pass is swept back leaves to root.
void inverseDynamicsNumbersAdjoint(const RecursiveModel& m, const TreeNumbers<double>& values, const MotionAtState& state, const double* wTau,
                                   std::span<const ItemIndex> points, const double* wr, const double* wv, const double* wa,
                                   NumbersAdjoint& out) {
  const MotionAtStateData& st = state.data();
  const TreeMotion<double>& motion = st.motion;
  const double* zd = st.zd.data();
  const double* zdd = st.zdd.data();
  const auto nn = m.nodes.size();
  const bool planar = m.dimension == 2;
  thread_local std::vector<Motion6<double>> U;
  thread_local std::vector<V3<double>> gV, gA, gBody, gBefore;  // by node: the adjoints of dV, dA, dBody, dBefore
  U.resize(nn);
  gV.assign(nn, zero3<double>());
  gA.assign(nn, zero3<double>());
  gBody.assign(nn, zero3<double>());
  gBefore.assign(nn, zero3<double>());
  out.nodes.resize(nn);
  out.points.assign(points.size(), Eigen::Vector3d::Zero());
  out.gravity.setZero();
  auto e3 = [](const V3<double>& x) { return Eigen::Vector3d(x[0], x[1], x[2]); };
  const V3<double> gravity = v3(values.mech.gravity);
  // the columns' weights down the tree, and each wrench's inputs
  for (std::size_t k = 0; k < nn; ++k) {
    const Node& n = m.nodes[k];
    Motion6<double> u = n.parentNode >= 0 ? U[static_cast<std::size_t>(n.parentNode)] : zero6<double>();
    V3<double> before = zero3<double>();
    for (int q = 0; q < n.nz; ++q) {
      const auto i = static_cast<std::size_t>(n.z + q);
      const Motion6<double>& S = motion.column[i];
      u = plus(u, times(S, wTau[i]));
      before = add(before, scale(wTau[i], cross(S.w, st.F[k].v)));
    }
    U[k] = u;
    gBefore[k] = before;
    const Motion6<double>& V = motion.V[k];
    const Motion6<double>& A = motion.A[k];
    const Motion6<double> Y{add(cross(u.v, V.w), cross(u.w, V.v)), cross(u.w, V.w)};  // V ×*'s transpose on U
    const M3<double>& Rc = motion.frames[static_cast<std::size_t>(n.body)].R;
    const double mass = values.mech.bodies[static_cast<std::size_t>(n.body)].mass;
    const V3<double>& c = motion.centre[k];
    NumbersAdjoint::Node& g = out.nodes[k];
    g.mass = 0;
    g.inertia.setZero();
    V3<double> dc = zero3<double>();
    // I'(x) weighed by W: [m' u + m x_ω × dc; J' x_ω + dc × m u + c × (...)], u = x_v + x_ω × c
    auto inertiaLane = [&](const Motion6<double>& W, const Motion6<double>& x) {
      const V3<double> Wv = add(W.v, cross(W.w, c));
      const V3<double> uu = add(x.v, cross(x.w, c));
      g.mass += dot(Wv, uu);
      dc = add(dc, scale(mass, add(cross(Wv, x.w), cross(uu, W.w))));
      if (planar) {
        g.inertia(2, 2) += W.w[2] * x.w[2];
      } else {
        const Eigen::Vector3d a = e3(mulT(Rc, W.w)), b = e3(mulT(Rc, x.w));
        g.inertia += a * b.transpose();
      }
      return Wv;
    };
    const V3<double> Uv = inertiaLane(u, A), Yv = inertiaLane(Y, V);
    gA[k] = scale(mass, Uv);                                             // I(dA) weighed by U
    gV[k] = add(scale(mass, Yv), cross(st.IV[k].v, u.w));                // I(dV) by Y, dV × (IV)_v by U
    g.mass -= dot(gravity, Uv);                                          // −[m' g; c × m' g]
    out.gravity -= mass * e3(Uv);                                        // −[m g'; c × m g']
    dc = sub(dc, scale(mass, cross(gravity, u.w)));                      // −dc × m g
    gBody[k] = dc;
    g.com = e3(mulT(Rc, dc));
  }
  // the points: r = x + R p (+ dBody), v = dV + ω × r, a = dA + α × r + ω × v
  for (std::size_t j = 0; j < points.size(); ++j) {
    const ItemIndex item = points[j];
    const V3<double> wR{{wr ? wr[3 * j] : 0.0, wr ? wr[3 * j + 1] : 0.0, wr ? wr[3 * j + 2] : 0.0}};
    const V3<double> wV{{wv ? wv[3 * j] : 0.0, wv ? wv[3 * j + 1] : 0.0, wv ? wv[3 * j + 2] : 0.0}};
    const V3<double> wA{{wa ? wa[3 * j] : 0.0, wa ? wa[3 * j + 1] : 0.0, wa ? wa[3 * j + 2] : 0.0}};
    const int k = m.nodeOfBody[static_cast<std::size_t>(item.body)];
    if (k < 0) {
      out.points[j] = e3(wR);
      continue;
    }
    const auto uk = static_cast<std::size_t>(k);
    const V3<double>& w = motion.V[uk].w;
    const V3<double> gv = add(wV, cross(wA, w));
    const V3<double> gr = add(add(wR, cross(gv, w)), cross(wA, motion.A[uk].w));
    gV[uk] = add(gV[uk], gv);
    gA[uk] = add(gA[uk], wA);
    gBody[uk] = add(gBody[uk], gr);
    out.points[j] = e3(mulT(motion.frames[static_cast<std::size_t>(item.body)].R, gr));
  }
  // the down pass swept back, leaves to root
  for (std::size_t k = nn; k-- > 0;) {
    const Node& n = m.nodes[k];
    V3<double> gv = gV[k], ga = gA[k], gd = add(gBefore[k], gBody[k]);
    for (int q = n.nz; q-- > 0;) {
      const auto i = static_cast<std::size_t>(n.z + q);
      const V3<double>& Sw = motion.column[i].w;
      gv = add(gv, scale(zd[i], cross(Sw, ga)));
      const V3<double> gS = add(add(scale(zdd[i], ga), scale(zd[i], cross(ga, motion.Vi[i].w))), scale(zd[i], gv));
      gd = add(gd, cross(Sw, gS));
    }
    NumbersAdjoint::Node& g = out.nodes[k];
    const M3<double>& Rp = motion.frames[static_cast<std::size_t>(n.parent)].R;
    const Eigen::Vector3d own = e3(mulT(Rp, gd));
    if (turnsAboutPoint(n.kind)) {
      const M3<double>& Rc = motion.frames[static_cast<std::size_t>(n.body)].R;
      const Eigen::Vector3d after = values.nodes[k].R0 * e3(mulT(Rc, gBody[k]));  // after = R_c R0ᵀ (x0' − J')
      g.point = own - after;
      g.offset = after;
    } else {
      g.point.setZero();
      g.offset = own;
    }
    if (n.parentNode >= 0) {
      const auto pk = static_cast<std::size_t>(n.parentNode);
      gV[pk] = add(gV[pk], gv);
      gA[pk] = add(gA[pk], ga);
      gBody[pk] = add(gBody[pk], gd);
    }
  }
}

bool numbersLanesProducts(const RecursiveModel& m, const MotionAtState& state, const NumbersLanes& lanes, const TreeNumbers<D>& p,
                          const NumbersAdjoint& adjoint, const double* wTau, std::span<const ItemIndex> points, double* products) {
  if (!numbersLanesCovered(m, lanes, p)) return false;
  for (int l = 0; l < kLanes; ++l) {
    const NumbersLanes::Lane& lane = lanes.lanes[static_cast<std::size_t>(l)];
    double sum = 0;
    for (std::size_t k = lane.first >= 0 ? static_cast<std::size_t>(lane.first) : lane.nodes.size(); k < lane.nodes.size(); ++k) {
      const NumbersLanes::NodeLane& x = lane.nodes[k];
      const NumbersAdjoint::Node& g = adjoint.nodes[k];
      if (x.moves) sum += g.point.dot(x.point) + g.offset.dot(x.offset);
      if (x.weighs) sum += g.com.dot(x.com) + g.mass * x.mass + g.inertia.cwiseProduct(x.inertia).sum();
    }
    for (std::size_t j = 0; j < points.size(); ++j) sum += adjoint.points[j].dot(lane3(p.mech.point(points[j]), l));
    sum += adjoint.gravity.dot(lane.gravity);
    products[l] = sum;
  }
  const MotionAtStateData& st = state.data();
  forEachTreeTorsionSpring(m, p.mech, [&](const Node& n, const auto& fn) {
    const D angle(st.z[n.z] * n.sign), rate(st.zd[n.z] * n.sign);
    const D q = ((angle - fn.naturalAngle) * (-fn.stiffness) - rate * fn.damping) * n.sign;
    for (int l = 0; l < kLanes; ++l) products[l] -= wTau[n.z] * q.g[l];
  });
  return true;
}

}  // namespace lw::dyn
