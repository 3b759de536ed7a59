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

template <class P>
V3<double> laneOf(const Eigen::Matrix<P, 3, 1>& a, int l) {
  return {{a[0].g[l], a[1].g[l], a[2].g[l]}};
}
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
bool isZero(const V3<double>& a) { return a[0] == 0 && a[1] == 0 && a[2] == 0; }
template <class M>
V3<double> mulT(const M& A, const V3<double>& x) {  // Aᵀ x
  V3<double> y;
  for (int i = 0; i < 3; ++i) y[i] = A(0, i) * x[0] + A(1, i) * x[1] + A(2, i) * x[2];
  return y;
}

// what the pass covers: lanes on joint points, stored offsets, masses, centres, inertias, body
// points and tree torsion springs' numbers only; no quaternion node; no other active force
bool covered(const RecursiveModel& m, const TreeNumbers<D>& p) {
  if (hasLanes(p.mech.gravity)) return false;
  for (std::size_t k = 0; k < m.nodes.size(); ++k) {
    const NodeKind kind = m.nodes[k].kind;
    if (kind == NodeKind::Spherical || kind == NodeKind::FreeSpatial) return false;
    const auto& g = p.nodes[k];
    if (hasLanes(g.axis) || hasLanes(g.axis2) || hasLanes(g.R0)) return false;
  }
  const auto& forces = m.mechanism->forces;
  for (std::size_t f = 0; f < forces.size(); ++f) {
    if (!p.mech.forces[f].active) continue;
    if (forces[f].type != Force::Type::TorsionSpring || m.treeJointNode[static_cast<std::size_t>(forces[f].joint)] < 0) return false;
  }
  return true;
}

// a joint that turns about its point J: the child's origin is x_p + R_p J + R_p R_m (x0 − J), so
// J's lane translates the node's columns with the subtree, and x0 − J's the subtree alone
bool turnsAboutPoint(NodeKind k) {
  return k == NodeKind::Revolute || k == NodeKind::Cylindrical || k == NodeKind::Universal;
}

}  // namespace

bool inverseDynamicsAlongNumbers(const RecursiveModel& m, const TreeNumbers<double>& values, const TreeNumbers<D>& p, const double* z,
                                 const double* zd, const double* zdd, double t, D* tau, std::span<const ItemIndex> points, D* r, D* v,
                                 D* a) {
  if (!covered(m, p)) return false;
  thread_local TreeMotion<double> motion;  // kept: a run asks at every point
  thread_local std::vector<Motion6<double>> F, IV, IA, df;
  thread_local std::vector<V3<double>> dV, dA;  // by node: the lanes of v_O and a_O (a translation turns nothing: ω, α keep)
  thread_local std::vector<V3<double>> dBefore, dBody;  // by node: the translation of its columns, of its body
  thread_local std::vector<char> touched;
  thread_local std::vector<double> tau0, pr, pv, pa;
  const auto nn = m.nodes.size();
  const auto nz = static_cast<std::size_t>(m.nz);
  const bool planar = m.dimension == 2;
  treeMotion(m, values, z, zd, zdd, motion);
  tau0.resize(nz);
  inverseDynamicsFrom(m, values, motion, z, zd, t, tau0.data(), &F);
  for (std::size_t i = 0; i < nz; ++i) tau[i] = D(tau0[i]);
  pr.resize(3 * points.size());
  pv.resize(pr.size());
  pa.resize(pr.size());
  pointsFromMotion(m, values, motion, points, pr.data(), pv.data(), pa.data());
  for (std::size_t i = 0; i < pr.size(); ++i) {
    r[i] = D(pr[i]);
    v[i] = D(pv[i]);
    a[i] = D(pa[i]);
  }
  IV.resize(nn);
  IA.resize(nn);
  for (std::size_t k = 0; k < nn; ++k) {
    const auto& B = values.mech.bodies[static_cast<std::size_t>(m.nodes[k].body)];
    const M3<double>& R = motion.frames[static_cast<std::size_t>(m.nodes[k].body)].R;
    IV[k] = inertiaTimes(planar, B.mass, motion.centre[k], R, B.inertia, motion.V[k]);
    IA[k] = inertiaTimes(planar, B.mass, motion.centre[k], R, B.inertia, motion.A[k]);
  }
  dV.resize(nn);
  dA.resize(nn);
  df.resize(nn);
  dBefore.resize(nn);
  dBody.resize(nn);
  touched.resize(nn);
  const V3<double> gravity{{values.mech.gravity.x(), values.mech.gravity.y(), values.mech.gravity.z()}};
  for (int l = 0; l < kLanes; ++l) {
    bool any = false;
    // down the tree: each body's translation and the lanes of its motion and wrench
    for (std::size_t k = 0; k < nn; ++k) {
      const Node& n = m.nodes[k];
      const auto pk = n.parentNode;
      const bool parentTouched = pk >= 0 && touched[static_cast<std::size_t>(pk)];
      const auto& g = p.nodes[k];
      const auto& B = p.mech.bodies[static_cast<std::size_t>(n.body)];
      const V3<double> dJ = laneOf(g.point, l), dx0 = laneOf(g.x0, l), dcom = laneOf(B.com, l);
      const double dm = B.mass.g[l];
      Eigen::Matrix3d dI;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) dI(i, j) = B.inertia(i, j).g[l];
      if (!parentTouched && isZero(dJ) && isZero(dx0) && isZero(dcom) && dm == 0 && dI.isZero(0.0)) {
        touched[k] = 0;
        df[k] = zero6<double>();
        dV[k] = dA[k] = dBefore[k] = dBody[k] = zero3<double>();
        continue;
      }
      touched[k] = 1;
      any = true;
      const M3<double>& Rp = motion.frames[static_cast<std::size_t>(n.parent)].R;
      const M3<double>& Rc = motion.frames[static_cast<std::size_t>(n.body)].R;
      V3<double> d = parentTouched ? dBody[static_cast<std::size_t>(pk)] : zero3<double>();
      V3<double> after = zero3<double>();
      if (turnsAboutPoint(n.kind)) {
        d = add(d, mul(Rp, dJ));
        after = mul(Rc, mulT(values.nodes[k].R0, sub(dx0, dJ)));  // R_p R_m = R_c R0ᵀ
      } else {
        d = add(d, mul(Rp, dx0));  // slides and free bodies: their columns do not see a translation
      }
      dBefore[k] = d;
      dBody[k] = add(d, after);
      // the motion's lanes, as treeMotion builds it: ∂S = d × S = [d × ω_S; 0], so only the
      // translational parts move: ∂V = Σ ∂S ż, ∂A = Σ ∂S z̈ + (∂V × S + V × ∂S) ż
      V3<double> dVk = parentTouched ? dV[static_cast<std::size_t>(pk)] : zero3<double>();
      V3<double> dAk = parentTouched ? dA[static_cast<std::size_t>(pk)] : zero3<double>();
      for (int q = 0; q < n.nz; ++q) {
        const auto i = static_cast<std::size_t>(n.z + q);
        const Motion6<double>& S = motion.column[i];
        const V3<double> dS = cross(d, S.w);
        dVk = add(dVk, scale(zd[i], dS));
        dAk = add(dAk, add(scale(zdd[i], dS), scale(zd[i], add(cross(dVk, S.w), cross(motion.Vi[i].w, dS)))));
      }
      dV[k] = dVk;
      dA[k] = dAk;
      // the wrench I A + V ×* I V − W and its lane: the inertia's (mass, centre, J_c) and the motion's
      const double mass = values.mech.bodies[static_cast<std::size_t>(n.body)].mass;
      const V3<double>& c = motion.centre[k];
      const V3<double> dc = add(dBody[k], mul(Rc, dcom));
      auto inertiaLane = [&](const Motion6<double>& x) {  // ∂(I x) at fixed x
        const V3<double> u = add(x.v, cross(x.w, c));
        const V3<double> fv = add(scale(dm, u), scale(mass, cross(x.w, dc)));
        V3<double> Jw;
        if (planar) Jw = {{0.0, 0.0, x.w[2] * dI(2, 2)}};
        else {
          const V3<double> y = mulT(Rc, x.w);
          Jw = mul(Rc, V3<double>{{dI(0, 0) * y[0] + dI(0, 1) * y[1] + dI(0, 2) * y[2], dI(1, 0) * y[0] + dI(1, 1) * y[1] + dI(1, 2) * y[2],
                                   dI(2, 0) * y[0] + dI(2, 1) * y[1] + dI(2, 2) * y[2]}});
        }
        return Motion6<double>{fv, add(add(Jw, cross(dc, scale(mass, u))), cross(c, fv))};
      };
      auto inertiaTimesTranslation = [&](const V3<double>& x) {  // I [x; 0] = [m x; c × m x]
        const V3<double> fv = scale(mass, x);
        return Motion6<double>{fv, cross(c, fv)};
      };
      Motion6<double> f = plus(inertiaLane(motion.A[k]), inertiaTimesTranslation(dAk));
      f.w = add(f.w, cross(dVk, IV[k].v));  // [∂v; 0] ×* I V
      f = plus(f, crossForce(motion.V[k], plus(inertiaLane(motion.V[k]), inertiaTimesTranslation(dVk))));
      const V3<double> w = scale(mass, gravity), dw = scale(dm, gravity);
      f.v = sub(f.v, dw);
      f.w = sub(f.w, add(cross(dc, w), cross(c, dw)));
      df[k] = f;
    }
    if (!any) continue;
    // up the tree: the subtrees' wrenches' lanes projected, with the columns' own (∂S·F)
    for (std::size_t k = nn; k-- > 0;) {
      for (int c : m.children[k])
        if (touched[static_cast<std::size_t>(c)]) {
          df[k] = plus(df[k], df[static_cast<std::size_t>(c)]);
          touched[k] = 1;
        }
      if (!touched[k]) continue;
      const Node& n = m.nodes[k];
      for (int q = 0; q < n.nz; ++q) {
        const auto i = static_cast<std::size_t>(n.z + q);
        const Motion6<double>& S = motion.column[i];
        tau[i].g[l] = dot(cross(dBefore[k], S.w), F[k].v) + dot(S.v, df[k].v) + dot(S.w, df[k].w);
      }
    }
    // the points: r = x + R p_B moved with their body, v = v_O + ω × r, a = a_O + α × r + ω × v (ω, α keep)
    for (std::size_t j = 0; j < points.size(); ++j) {
      const ItemIndex item = points[j];
      const V3<double> dp = laneOf(p.mech.point(item), l);
      const int k = m.nodeOfBody[static_cast<std::size_t>(item.body)];
      double* rl[3] = {&r[3 * j].g[l], &r[3 * j + 1].g[l], &r[3 * j + 2].g[l]};
      if (k < 0) {
        for (int i = 0; i < 3; ++i) *rl[i] = dp[i];
        continue;
      }
      const auto uk = static_cast<std::size_t>(k);
      const V3<double> dr = add(dBody[uk], mul(motion.frames[static_cast<std::size_t>(item.body)].R, dp));
      const Motion6<double>& V = motion.V[uk];
      const Motion6<double>& A = motion.A[uk];
      const V3<double> dv = add(dV[uk], cross(V.w, dr));
      const V3<double> da = add(add(dA[uk], cross(A.w, dr)), cross(V.w, dv));
      for (int i = 0; i < 3; ++i) {
        *rl[i] = dr[i];
        v[3 * j + static_cast<std::size_t>(i)].g[l] = dv[i];
        a[3 * j + static_cast<std::size_t>(i)].g[l] = da[i];
      }
    }
  }
  // tree torsion springs: Q = sign · (−k (angle − θ₀) − c rate) on their own coordinate
  forEachTreeTorsionSpring(m, p.mech, [&](const Node& n, const auto& fn) {
    const D angle(z[n.z] * n.sign), rate(zd[n.z] * n.sign);
    const D q = ((angle - fn.naturalAngle) * (-fn.stiffness) - rate * fn.damping) * n.sign;
    for (int l = 0; l < kLanes; ++l) tau[n.z].g[l] -= q.g[l];
  });
  return true;
}

}  // namespace lw::dyn
