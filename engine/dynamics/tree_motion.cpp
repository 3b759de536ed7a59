#include "dynamics/tree_motion.h"

#include <Eigen/Geometry>
#include <complex>

#include "dynamics/inverse_dynamics_derivatives.h"
#include "dynamics/point_motion.h"
#include "dynamics/force_elements.h"
#include "numeric/scalar.h"

#include "numeric/dual.h"
#include "numeric/jet.h"

namespace lw::dyn::detail {


template <class S>
void treePositions(const RecursiveModel& m, const TreeNumbers<S>& p, const S* z, TreeMotion<S>& out) {
  using J = kin::BasicJet<S>;
  computeFrames<S, S>(m, p, z, out.frames);
  const auto nz = static_cast<std::size_t>(m.nz), nn = m.nodes.size();
  out.column.resize(nz);
  out.nodeOf.resize(nz);
  out.centre.resize(nn);
  QuaternionMotion<S> quaternion{};
  for (std::size_t k = 0; k < nn; ++k) {
    const Node& n = m.nodes[k];
    const auto& g = p.nodes[k];
    const Frame<S>& pf = out.frames[static_cast<std::size_t>(n.parent)];
    out.centre[k] = worldPoint(out.frames[static_cast<std::size_t>(n.body)], p.mech.bodies[static_cast<std::size_t>(n.body)].com);
    for (int q = 0; q < n.nz; ++q) out.nodeOf[static_cast<std::size_t>(n.z + q)] = static_cast<int>(k);
    // the node's motion columns, its parent held
    if (n.kind == NodeKind::Revolute || n.kind == NodeKind::Prismatic || n.kind == NodeKind::Cylindrical) {
      const V3<S> u = scale(S(n.flip ? -1.0 : 1.0), mul(pf.R, g.axis));
      const V3<S> Jw = add(pf.x, mul(pf.R, g.point));
      const auto col = static_cast<std::size_t>(n.z);
      if (n.kind == NodeKind::Prismatic) {
        out.column[col] = {u, zero3<S>()};
      } else {
        out.column[col] = {cross(Jw, u), u};
        if (n.kind == NodeKind::Cylindrical) out.column[col + 1] = {u, zero3<S>()};
      }
    } else if (n.kind == NodeKind::Spherical || n.kind == NodeKind::FreeSpatial) {
      quaternionNodeMotion<S>(n, g, pf, z + n.z, nullptr, nullptr, quaternion);
      for (int q = 0; q < n.nz; ++q) out.column[static_cast<std::size_t>(n.z + q)] = {quaternion.colV[q], quaternion.colW[q]};
    } else {
      for (int q = 0; q < n.nz; ++q) {
        J zl[7];
        for (int r = 0; r < n.nz; ++r) zl[r] = J(z[n.z + r], S(r == q ? 1.0 : 0.0), S(0.0));
        const Frame<J> child = childFrameAlong(n, g, pf, zl);
        const M3<J>& R = child.R;
        const V3<J>& x = child.x;
        auto rowDot = [&](int i, int k2) {  // (Ṙ Rᵀ)(i, k2)
          return R(i, 0).d * R(k2, 0).v + R(i, 1).d * R(k2, 1).v + R(i, 2).d * R(k2, 2).v;
        };
        const V3<S> w{{rowDot(2, 1), rowDot(0, 2), rowDot(1, 0)}};
        const V3<S> xv{{x[0].v, x[1].v, x[2].v}}, xd{{x[0].d, x[1].d, x[2].d}};
        out.column[static_cast<std::size_t>(n.z + q)] = {sub(xd, cross(w, xv)), w};
      }
    }
  }
}

template <class S>
void treeRates(const RecursiveModel& m, const TreeNumbers<S>& p, const S* z, const S* zd, const S* zdd, TreeMotion<S>& out) {
  const auto nz = static_cast<std::size_t>(m.nz), nn = m.nodes.size();
  out.Vi.resize(nz);
  out.Ai.resize(nz);
  out.V.resize(nn);
  out.A.resize(nn);
  QuaternionMotion<S> quaternion{};
  for (std::size_t k = 0; k < nn; ++k) {
    const Node& n = m.nodes[k];
    Motion6<S> V = n.parentNode >= 0 ? out.V[static_cast<std::size_t>(n.parentNode)] : zero6<S>();
    Motion6<S> A = n.parentNode >= 0 ? out.A[static_cast<std::size_t>(n.parentNode)] : zero6<S>();
    if (n.kind == NodeKind::Spherical || n.kind == NodeKind::FreeSpatial) {
      // a quaternion's columns turn with the quaternion itself, not only with the frames before
      // them: the node's own motion relative to its parent (held), A = A_parent + A_rel + V_parent × V_rel
      quaternionNodeMotion(n, p.nodes[k], out.frames[static_cast<std::size_t>(n.parent)], z + n.z, zd + n.z, zdd + n.z, quaternion);
      const Motion6<S> Vrel{quaternion.Vv, quaternion.Vw};
      const Motion6<S> Arel{quaternion.Av, quaternion.Aw};
      A = plus(plus(A, Arel), crossMotion(V, Vrel));
      V = plus(V, Vrel);
      for (int q = 0; q < n.nz; ++q) {
        const auto i = static_cast<std::size_t>(n.z + q);
        out.Vi[i] = V;  // no one-axis sequence inside: the node's own motion as a whole
        out.Ai[i] = A;
      }
      out.V[k] = V;
      out.A[k] = A;
      continue;
    }
    for (int q = 0; q < n.nz; ++q) {
      const auto i = static_cast<std::size_t>(n.z + q);
      V = plus(V, times(out.column[i], zd[i]));
      A = plus(A, plus(times(out.column[i], zdd[i]), times(crossMotion(V, out.column[i]), zd[i])));
      out.Vi[i] = V;
      out.Ai[i] = A;
    }
    out.V[k] = V;
    out.A[k] = A;
  }
}

template <class S>
void treeMotion(const RecursiveModel& m, const TreeNumbers<S>& p, const S* z, const S* zd, const S* zdd, TreeMotion<S>& out) {
  treePositions(m, p, z, out);
  treeRates(m, p, z, zd, zdd, out);
}

namespace {
// a quaternion node's exact column derivatives (ColumnDerivatives): the node alone on dual numbers
// along its coordinates, its parent's frame held; its columns' rates from a
// jet along the motion with the parent's frame held, moved with the parent after (S = X_p S_held:
// Ṡ = V_p × S + Ṡ_held, S̈ = A_p × S + V_p × (V_p × S) + 2 V_p × Ṡ_held + S̈_held)
void quaternionColumns(const RecursiveModel& m, const TreeNumbers<double>& p, const TreeMotion<double>& motion, std::size_t k, const double* zn,
                       const double* zdn, const double* zddn, bool rates, ColumnDerivatives& out) {
  using D = num::Dual<8>;
  const Node& n = m.nodes[k];
  const Frame<double>& pf = motion.frames[static_cast<std::size_t>(n.parent)];
  Frame<D> pfD;
  for (int a = 0; a < 9; ++a) pfD.R.a[a] = D(pf.R.a[a]);
  for (int a = 0; a < 3; ++a) pfD.x[a] = D(pf.x[a]);
  D z[7], zd[7], zdd[7];
  for (int l = 0; l < n.nz; ++l) {
    z[l] = D(zn[l]);
    zd[l] = D(zdn[l]);
    zdd[l] = D(zddn[l]);
    z[l].g[l] = 1;
  }
  QuaternionMotion<D> byZ;
  quaternionNodeMotion<D>(n, p.nodes[k], pfD, z, zd, zdd, byZ);
  auto lane = [](const V3<D>& v, const V3<D>& w, int l) {
    return Motion6<double>{{{v[0].g[l], v[1].g[l], v[2].g[l]}}, {{w[0].g[l], w[1].g[l], w[2].g[l]}}};
  };
  const Motion6<double> Vp = n.parentNode >= 0 ? motion.V[static_cast<std::size_t>(n.parentNode)] : zero6<double>();
  const Motion6<double> Ap = n.parentNode >= 0 ? motion.A[static_cast<std::size_t>(n.parentNode)] : zero6<double>();
  const Motion6<double>&Vk = motion.V[k], &Ak = motion.A[k];
  auto minus = [](const Motion6<double>& a, const Motion6<double>& b) { return plus(a, times(b, -1.0)); };
  for (int l = 0; l < n.nz; ++l) {
    const auto i = static_cast<std::size_t>(n.z + l);
    const Motion6<double>& s = motion.column[i];
    // V_k = V_p + V_rel, A_k = A_p + A_rel + V_p × V_rel with the parent held
    const Motion6<double> dVk = lane(byZ.Vv, byZ.Vw, l);
    const Motion6<double> dAk = plus(lane(byZ.Av, byZ.Aw, l), crossMotion(Vp, dVk));
    ColumnMotion& c = out.columns[i];
    c.dV = minus(dVk, crossMotion(s, Vk));
    c.dA = minus(dAk, crossMotion(s, Ak));
    c.Vref = Vk;
    out.quaternion[i] = 1;
    for (int j = 0; j < n.nz; ++j) out.turn[static_cast<std::size_t>(n.z + j)][static_cast<std::size_t>(l)] = lane(byZ.colV[j], byZ.colW[j], l);
  }
  if (!rates) return;
  using J = kin::BasicJet<double>;
  Frame<J> pfJ;
  for (int a = 0; a < 9; ++a) pfJ.R.a[a] = J(pf.R.a[a]);
  for (int a = 0; a < 3; ++a) pfJ.x[a] = J(pf.x[a]);
  J zj[7];
  for (int l = 0; l < n.nz; ++l) zj[l] = J(zn[l], zdn[l], zddn[l]);
  QuaternionMotion<J> held;
  quaternionNodeMotion<J>(n, p.nodes[k], pfJ, zj, nullptr, nullptr, held);
  for (int j = 0; j < n.nz; ++j) {
    const auto i = static_cast<std::size_t>(n.z + j);
    const Motion6<double>& S = motion.column[i];
    const Motion6<double> d{{{held.colV[j][0].d, held.colV[j][1].d, held.colV[j][2].d}}, {{held.colW[j][0].d, held.colW[j][1].d, held.colW[j][2].d}}};
    const Motion6<double> dd{{{held.colV[j][0].dd, held.colV[j][1].dd, held.colV[j][2].dd}},
                             {{held.colW[j][0].dd, held.colW[j][1].dd, held.colW[j][2].dd}}};
    const Motion6<double> VpS = crossMotion(Vp, S);
    out.rate[i] = plus(VpS, d);
    out.secondRate[i] = plus(plus(crossMotion(Ap, S), crossMotion(Vp, VpS)), plus(times(crossMotion(Vp, d), 2.0), dd));
  }
}
}  // namespace

void columnDerivatives(const RecursiveModel& m, const TreeNumbers<double>& p, const TreeMotion<double>& motion, const double* z,
                       const double* zd, const double* zdd, bool rates, ColumnDerivatives& out) {
  const auto nz = static_cast<std::size_t>(m.nz);
  out.columns.resize(nz);
  out.quaternion.assign(nz, 0);
  out.turn.resize(nz);
  if (rates) {
    out.rate.resize(nz);
    out.secondRate.resize(nz);
  }
  for (std::size_t i = 0; i < nz; ++i) {
    const Motion6<double>&s = motion.column[i], &Vi = motion.Vi[i], &Ai = motion.Ai[i];
    ColumnMotion& c = out.columns[i];
    c.dV = crossMotion(Vi, s);
    c.dA = crossMotion(Ai, s);
    c.Vref = Vi;
    if (!rates) continue;
    out.rate[i] = c.dV;  // Ṡ_i = V_i × S_i, S̈_i = A_i × S_i + V_i × Ṡ_i
    out.secondRate[i] = plus(c.dA, crossMotion(Vi, out.rate[i]));
  }
  for (std::size_t k = 0; k < m.nodes.size(); ++k) {
    const Node& n = m.nodes[k];
    if (n.kind == NodeKind::Spherical || n.kind == NodeKind::FreeSpatial) quaternionColumns(m, p, motion, k, z + n.z, zd + n.z, zdd + n.z, rates, out);
  }
}

template <class S>
void appliedWrenches(const RecursiveModel& m, const TreeNumbers<S>& p, const TreeMotion<S>& motion, double t, std::vector<Motion6<S>>& W) {
  const auto nn = m.nodes.size();
  const MechanismNumbers<S>& nums = p.mech;
  W.assign(nn, zero6<S>());
  for (std::size_t k = 0; k < nn; ++k) {  // gravity at the centres
    const V3<S> weight = cst<S>(Eigen::Matrix<S, 3, 1>(nums.gravity * nums.bodies[static_cast<std::size_t>(m.nodes[k].body)].mass));
    W[k] = {weight, cross(motion.centre[k], weight)};
  }
  // what the force elements read of the bodies: the poses and the bodies' V of the motion
  struct Bodies {
    const RecursiveModel& m;
    const MechanismNumbers<S>& nums;
    const TreeMotion<S>& motion;
    int nodeOf(int body) const { return m.nodeOfBody[static_cast<std::size_t>(body)]; }
    V3<S> velocityAt(int body, const V3<S>& r) const {
      const int k = nodeOf(body);
      return k < 0 ? zero3<S>() : add(motion.V[static_cast<std::size_t>(k)].v, cross(motion.V[static_cast<std::size_t>(k)].w, r));
    }
    void point(ItemIndex item, V3<S>& r, V3<S>& v) const {
      r = worldPoint(motion.frames[static_cast<std::size_t>(item.body)], nums.point(item));
      v = velocityAt(item.body, r);
    }
    const M3<S>& rotation(int body) const { return motion.frames[static_cast<std::size_t>(body)].R; }
    V3<S> omega(int body) const {
      const int k = nodeOf(body);
      return k < 0 ? zero3<S>() : motion.V[static_cast<std::size_t>(k)].w;
    }
    void centre(int body, V3<S>& r, V3<S>& v) const {
      const int k = nodeOf(body);
      r = k < 0 ? zero3<S>() : motion.centre[static_cast<std::size_t>(k)];
      v = velocityAt(body, r);
    }
  };
  const Bodies bodies{m, nums, motion};
  forceElements<S>(
      m, p, t, bodies,
      [&](int body, const V3<S>& at, const V3<S>& f) {
        const int k = bodies.nodeOf(body);
        if (k < 0) return;  // on the ground: not projected
        W[static_cast<std::size_t>(k)].v = add(W[static_cast<std::size_t>(k)].v, f);
        W[static_cast<std::size_t>(k)].w = add(W[static_cast<std::size_t>(k)].w, cross(at, f));
      },
      [&](int body, const V3<S>& tq) {
        const int k = bodies.nodeOf(body);
        if (k >= 0) W[static_cast<std::size_t>(k)].w = add(W[static_cast<std::size_t>(k)].w, tq);
      });
}

template <class S>
void inverseDynamicsFrom(const RecursiveModel& m, const TreeNumbers<S>& p, const TreeMotion<S>& motion, const S* z, const S* zd, double t,
                         S* tau, std::vector<Motion6<S>>* Fout) {
  const auto nn = m.nodes.size();
  const bool planar = m.dimension == 2;
  std::vector<Motion6<S>> own;
  std::vector<Motion6<S>>& F = Fout ? *Fout : own;
  F.resize(nn);
  std::vector<Motion6<S>> applied;
  appliedWrenches(m, p, motion, t, applied);
  for (std::size_t k = 0; k < nn; ++k) {
    const Node& n = m.nodes[k];
    const auto& B = p.mech.bodies[static_cast<std::size_t>(n.body)];
    const auto& R = motion.frames[static_cast<std::size_t>(n.body)].R;
    const V3<S>& c = motion.centre[k];
    const Motion6<S> IV = inertiaTimes(planar, B.mass, c, R, B.inertia, motion.V[k]);
    const Motion6<S> IA = inertiaTimes(planar, B.mass, c, R, B.inertia, motion.A[k]);
    F[k] = plus(IA, crossForce(motion.V[k], IV));
    F[k].v = sub(F[k].v, applied[k].v);
    F[k].w = sub(F[k].w, applied[k].w);
  }
  for (std::size_t k = nn; k-- > 0;) {
    for (int c : m.children[k]) F[k] = plus(F[k], F[static_cast<std::size_t>(c)]);
    const Node& n = m.nodes[k];
    for (int q = 0; q < n.nz; ++q) {
      const auto& s = motion.column[static_cast<std::size_t>(n.z + q)];
      tau[n.z + q] = dot(s.v, F[k].v) + dot(s.w, F[k].w);
    }
  }
  forEachTreeTorsionSpring(m, p.mech, [&](const Node& n, const auto& fn) {
    const S angle = z[n.z] * n.sign, rate = zd[n.z] * n.sign;
    tau[n.z] = tau[n.z] - ((angle - fn.naturalAngle) * (-fn.stiffness) - rate * fn.damping) * n.sign;
  });
}

template <class S>
void jetFramesFrom(const RecursiveModel& m, const TreeMotion<S>& motion, std::vector<Frame<kin::BasicJet<S>>>& f, bool secondRates,
                   const std::vector<char>* read) {
  using J = kin::BasicJet<S>;
  f.resize(motion.frames.size());
  const V3<S> none = zero3<S>();
  for (std::size_t b = 0; b < f.size(); ++b) {
    if (read && b < read->size() && !(*read)[b]) continue;  // (a model without the set: every body)
    const Frame<S>& F = motion.frames[b];
    const int k = m.nodeOfBody[b];
    const Motion6<S> V = k < 0 ? zero6<S>() : motion.V[static_cast<std::size_t>(k)];
    const Motion6<S> A = k < 0 ? zero6<S>() : motion.A[static_cast<std::size_t>(k)];
    for (int c = 0; c < 3; ++c) {
      const V3<S> col{{F.R(0, c), F.R(1, c), F.R(2, c)}};
      const V3<S> d = cross(V.w, col);
      const V3<S> dd = secondRates ? add(cross(A.w, col), cross(V.w, d)) : none;
      for (int r = 0; r < 3; ++r) f[b].R(r, c) = J(col[r], d[r], dd[r]);
    }
    const V3<S> xd = add(V.v, cross(V.w, F.x));
    const V3<S> xdd = secondRates ? add(add(A.v, cross(A.w, F.x)), cross(V.w, xd)) : none;
    for (int r = 0; r < 3; ++r) f[b].x[r] = J(F.x[r], xd[r], xdd[r]);
  }
}

template <class S>
void massMatrixFrom(const RecursiveModel& m, const TreeNumbers<S>& p, const TreeMotion<S>& motion, Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>& M) {
  const auto nz = static_cast<std::size_t>(m.nz);
  const bool planar = m.dimension == 2;
  std::vector<Motion6<S>> H(nz, zero6<S>());
  for (std::size_t k = 0; k < m.nodes.size(); ++k) {
    const int body = m.nodes[k].body;
    const auto& B = p.mech.bodies[static_cast<std::size_t>(body)];
    const M3<S>& R = motion.frames[static_cast<std::size_t>(body)].R;
    for (std::size_t j = 0; j < nz; ++j)
      if (m.movesWith(body, motion.nodeOf[j])) H[j] = plus(H[j], inertiaTimes(planar, B.mass, motion.centre[k], R, B.inertia, motion.column[j]));
  }
  M.resize(m.nz, m.nz);
  for (std::size_t j = 0; j < nz; ++j)
    for (std::size_t i = 0; i <= j; ++i) {
      const int ni = motion.nodeOf[i], nj = motion.nodeOf[j];
      S v(0.0);
      if (m.movesWith(m.nodes[static_cast<std::size_t>(nj)].body, ni))  // i's node is j's or above it
        v = dot(motion.column[i].v, H[j].v) + dot(motion.column[i].w, H[j].w);
      else if (m.movesWith(m.nodes[static_cast<std::size_t>(ni)].body, nj))
        v = dot(motion.column[j].v, H[i].v) + dot(motion.column[j].w, H[i].w);
      M(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = M(static_cast<Eigen::Index>(j), static_cast<Eigen::Index>(i)) = v;
    }
}

template <class S>
void constraintJacobianFrom(const RecursiveModel& m, const TreeNumbers<S>& p, const TreeMotion<S>& motion, const S* z, double t,
                            Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>& J) {
  using T6 = kin::FirstJets<S, 6>;
  J.setZero(m.nrows, m.nz);
  thread_local std::vector<Frame<T6>> f;
  thread_local std::vector<T6> zj, phi;
  thread_local std::vector<int> bodies;
  f.resize(motion.frames.size());
  for (std::size_t b = 0; b < f.size(); ++b) {
    for (int i = 0; i < 9; ++i) f[b].R.a[i] = T6(motion.frames[b].R.a[i]);
    for (int i = 0; i < 3; ++i) f[b].x[i] = T6(motion.frames[b].x[i]);
  }
  zj.resize(static_cast<std::size_t>(m.nz));
  for (int i = 0; i < m.nz; ++i) zj[static_cast<std::size_t>(i)] = T6(z[i]);
  phi.assign(static_cast<std::size_t>(m.nrows), T6(S(0.0)));
  const T6 tj{S(t)};
  for (std::size_t ci = 0; ci < m.constraints.size(); ++ci) {
    const LoopConstraint& c = m.constraints[ci];
    constraintBodies(m, static_cast<int>(ci), bodies);
    for (int b : bodies) {
      if (m.nodeOfBody[static_cast<std::size_t>(b)] < 0) continue;  // the ground does not move
      seedUnitTwists(f[static_cast<std::size_t>(b)], true);
      constraintOnFrames<T6, S>(m, p, f, zj.data(), tj, static_cast<int>(ci), phi.data());
      seedUnitTwists(f[static_cast<std::size_t>(b)], false);
      for (int j = 0; j < m.nz; ++j) {
        if (!m.movesWith(b, motion.nodeOf[static_cast<std::size_t>(j)])) continue;
        const Motion6<S>& s = motion.column[static_cast<std::size_t>(j)];
        for (int r = c.row; r < c.row + c.rows; ++r) {
          const T6& x = phi[static_cast<std::size_t>(r)];
          J(r, j) = J(r, j) + x.d[0] * s.v[0] + x.d[1] * s.v[1] + x.d[2] * s.v[2] + x.d[3] * s.w[0] + x.d[4] * s.w[1] + x.d[5] * s.w[2];
        }
      }
    }
    if (!bodies.empty()) continue;
    for (int first = 0; first < m.nz; first += 6) {  // rows that read coordinates
      for (int k = 0; k < 6 && first + k < m.nz; ++k) zj[static_cast<std::size_t>(first + k)].d[k] = S(1.0);
      constraintOnFrames<T6, S>(m, p, f, zj.data(), tj, static_cast<int>(ci), phi.data());
      for (int k = 0; k < 6 && first + k < m.nz; ++k) {
        zj[static_cast<std::size_t>(first + k)].d[k] = S(0.0);
        for (int r = c.row; r < c.row + c.rows; ++r) J(r, first + k) = phi[static_cast<std::size_t>(r)].d[k];
      }
    }
  }
}

#define LW_TREE_MOTION(S)                                                                                                      \
  template void treeMotion<S>(const RecursiveModel&, const TreeNumbers<S>&, const S*, const S*, const S*, TreeMotion<S>&); \
  template void treeRates<S>(const RecursiveModel&, const TreeNumbers<S>&, const S*, const S*, const S*, TreeMotion<S>&); \
  template void treePositions<S>(const RecursiveModel&, const TreeNumbers<S>&, const S*, TreeMotion<S>&);                     \
  template void inverseDynamicsFrom<S>(const RecursiveModel&, const TreeNumbers<S>&, const TreeMotion<S>&, const S*, const S*, double, \
                                       S*, std::vector<Motion6<S>>*);                                                         \
  template void appliedWrenches<S>(const RecursiveModel&, const TreeNumbers<S>&, const TreeMotion<S>&, double, std::vector<Motion6<S>>&); \
  template void jetFramesFrom<S>(const RecursiveModel&, const TreeMotion<S>&, std::vector<Frame<kin::BasicJet<S>>>&, bool,        \
                                 const std::vector<char>*);                                                                    \
  template void massMatrixFrom<S>(const RecursiveModel&, const TreeNumbers<S>&, const TreeMotion<S>&,                          \
                                  Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>&);                                          \
  template void constraintJacobianFrom<S>(const RecursiveModel&, const TreeNumbers<S>&, const TreeMotion<S>&, const S*, double, \
                                          Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>&);
LW_TREE_MOTION(double)
LW_TREE_MOTION(num::Dual8)
LW_TREE_MOTION(std::complex<double>)
#undef LW_TREE_MOTION

}  // namespace lw::dyn::detail

// ---- body points (point_motion.h) ----

namespace lw::dyn {

namespace {
// a point's world position, velocity and acceleration on its body's motion
template <class S>
void pointOn(const detail::TreeMotion<S>& motion, const TreeNumbers<S>& p, const RecursiveModel& m, ItemIndex item,
             detail::V3<S>& r, detail::V3<S>& v, detail::V3<S>& a) {
  using namespace detail;
  const auto body = static_cast<std::size_t>(item.body);
  r = worldPoint(motion.frames[body], p.mech.point(item));
  const int node = m.nodeOfBody[body];
  if (node < 0) {
    v = a = {{S(0.0), S(0.0), S(0.0)}};
    return;
  }
  const auto& V = motion.V[static_cast<std::size_t>(node)];
  const auto& A = motion.A[static_cast<std::size_t>(node)];
  v = add(V.v, cross(V.w, r));
  a = add(add(A.v, cross(A.w, r)), cross(V.w, v));
}
}  // namespace

namespace detail {
template <class S>
void pointsFromMotion(const RecursiveModel& m, const TreeNumbers<S>& p, const TreeMotion<S>& motion, std::span<const ItemIndex> points, S* r,
                      S* v, S* a) {
  for (std::size_t k = 0; k < points.size(); ++k) {
    detail::V3<S> rk, vk, ak;
    pointOn(motion, p, m, points[k], rk, vk, ak);
    for (int i = 0; i < 3; ++i) {
      if (r) r[3 * k + static_cast<std::size_t>(i)] = rk[i];
      if (v) v[3 * k + static_cast<std::size_t>(i)] = vk[i];
      if (a) a[3 * k + static_cast<std::size_t>(i)] = ak[i];
    }
  }
}
template void pointsFromMotion<double>(const RecursiveModel&, const TreeNumbers<double>&, const TreeMotion<double>&, std::span<const ItemIndex>,
                                       double*, double*, double*);
template void pointsFromMotion<num::Dual8>(const RecursiveModel&, const TreeNumbers<num::Dual8>&, const TreeMotion<num::Dual8>&,
                                           std::span<const ItemIndex>, num::Dual8*, num::Dual8*, num::Dual8*);
}  // namespace detail

template <class S>
void pointMotionOn(const RecursiveModel& m, const TreeNumbers<S>& p, const S* z, const S* zd, const S* zdd,
                   std::span<const ItemIndex> points, S* r, S* v, S* a) {
  if (!v && !a) {  // positions alone: the frames at z
    thread_local std::vector<detail::Frame<S>> frames;
    detail::computeFrames<S, S>(m, p, z, frames);
    for (std::size_t k = 0; k < points.size() && r; ++k) {
      const detail::V3<S> x = detail::worldPoint(frames[static_cast<std::size_t>(points[k].body)], p.mech.point(points[k]));
      for (int i = 0; i < 3; ++i) r[3 * k + static_cast<std::size_t>(i)] = x[i];
    }
    return;
  }
  detail::TreeMotion<S> motion;
  detail::treeMotion(m, p, z, zd, zdd, motion);
  detail::pointsFromMotion(m, p, motion, points, r, v, a);
}
template <class S>
void inverseDynamicsWithPoints(const RecursiveModel& m, const TreeNumbers<S>& p, const S* z, const S* zd, const S* zdd, double t, S* tau,
                               std::span<const ItemIndex> points, S* r, S* v, S* a) {
  thread_local detail::TreeMotion<S> motion;  // kept: a run asks at every point
  detail::treeMotion(m, p, z, zd, zdd, motion);
  detail::inverseDynamicsFrom(m, p, motion, z, zd, t, tau);
  detail::pointsFromMotion(m, p, motion, points, r, v, a);
}
template void inverseDynamicsWithPoints<double>(const RecursiveModel&, const TreeNumbers<double>&, const double*, const double*,
                                                const double*, double, double*, std::span<const ItemIndex>, double*, double*, double*);
template void inverseDynamicsWithPoints<num::Dual8>(const RecursiveModel&, const TreeNumbers<num::Dual8>&, const num::Dual8*,
                                                    const num::Dual8*, const num::Dual8*, double, num::Dual8*, std::span<const ItemIndex>,
                                                    num::Dual8*, num::Dual8*, num::Dual8*);
template void pointMotionOn<double>(const RecursiveModel&, const TreeNumbers<double>&, const double*, const double*, const double*,
                                    std::span<const ItemIndex>, double*, double*, double*);
template void pointMotionOn<num::Dual8>(const RecursiveModel&, const TreeNumbers<num::Dual8>&, const num::Dual8*, const num::Dual8*,
                                        const num::Dual8*, std::span<const ItemIndex>, num::Dual8*, num::Dual8*, num::Dual8*);

namespace {
void pointMotionDerivativesOn(const RecursiveModel& m, const TreeNumbers<double>& p, const detail::TreeMotion<double>& motion, const double* z,
                              const double* zd, const double* zdd, std::span<const ItemIndex> points, PointMotionPartials& out);
}  // namespace

void pointMotionDerivatives(const RecursiveModel& m, const TreeNumbers<double>& p, const Eigen::VectorXd& z, const Eigen::VectorXd& zd,
                            const Eigen::VectorXd& zdd, std::span<const ItemIndex> points, PointMotionPartials& out) {
  detail::TreeMotion<double> motion;
  detail::treeMotion(m, p, z.data(), zd.data(), zdd.data(), motion);
  pointMotionDerivativesOn(m, p, motion, z.data(), zd.data(), zdd.data(), points, out);
}

void pointMotionDerivatives(const RecursiveModel& m, const TreeNumbers<double>& p, const MotionAtState& state, std::span<const ItemIndex> points,
                            PointMotionPartials& out) {
  const detail::MotionAtStateData& d = state.data();
  pointMotionDerivativesOn(m, p, d.motion, d.z.data(), d.zd.data(), d.zdd.data(), points, out);
}

namespace {
void pointMotionDerivativesOn(const RecursiveModel& m, const TreeNumbers<double>& p, const detail::TreeMotion<double>& motion, const double* z,
                              const double* zd, const double* zdd, std::span<const ItemIndex> points, PointMotionPartials& out) {
  using Eigen::Vector3d;
  using detail::crossMotion;
  using detail::plus;
  const int nz = m.nz;
  const auto rows = static_cast<Eigen::Index>(3 * points.size());
  out.J.setZero(rows, nz);
  out.v_z.setZero(rows, nz);
  out.a_z.setZero(rows, nz);
  out.a_zd.setZero(rows, nz);
  auto vec = [](const detail::V3<double>& x) { return Vector3d(x[0], x[1], x[2]); };
  thread_local detail::ColumnDerivatives columns;
  if (!points.empty()) detail::columnDerivatives(m, p, motion, z, zd, zdd, false, columns);
  for (std::size_t k = 0; k < points.size(); ++k) {
    const int node = m.nodeOfBody[static_cast<std::size_t>(points[k].body)];
    if (node < 0) continue;  // on the ground
    detail::V3<double> r3, v3, a3;
    pointOn(motion, p, m, points[k], r3, v3, a3);
    const Vector3d r = vec(r3), v = vec(v3);
    const auto& Vb = motion.V[static_cast<std::size_t>(node)];
    const auto& Ab = motion.A[static_cast<std::size_t>(node)];
    const Vector3d w = vec(Vb.w), alpha = vec(Ab.w);
    const auto row = static_cast<Eigen::Index>(3 * k);
    for (int i = 0; i < nz; ++i) {
      const auto ni = static_cast<std::size_t>(motion.nodeOf[static_cast<std::size_t>(i)]);
      const auto nk = static_cast<std::size_t>(node);
      if (!(m.enter[ni] <= m.enter[nk] && m.enter[nk] < m.leave[ni])) continue;  // i does not move the point
      // the body's ∂V, ∂A by z_i and ∂A by ż_i (ColumnMotion): s × V + dV, s × A + dA + dV × (V − Vref),
      // s × V + 2 dV
      const detail::Motion6<double>& s = motion.column[static_cast<std::size_t>(i)];
      const detail::ColumnMotion& c = columns.columns[static_cast<std::size_t>(i)];
      const detail::Motion6<double> dV = plus(crossMotion(s, Vb), c.dV);
      const detail::Motion6<double> dA = plus(plus(crossMotion(s, Ab), c.dA), crossMotion(c.dV, plus(Vb, detail::times(c.Vref, -1.0))));
      const detail::Motion6<double> dAd = plus(crossMotion(s, Vb), detail::times(c.dV, 2.0));
      const Vector3d sv = vec(s.v), sw = vec(s.w), dVv = vec(dV.v), dVw = vec(dV.w), dAv = vec(dA.v), dAw = vec(dA.w);
      const Vector3d dAdv = vec(dAd.v), dAdw = vec(dAd.w);
      const Vector3d dr = sv + sw.cross(r);
      const Vector3d dv = dVv + dVw.cross(r) + w.cross(dr);
      const Vector3d da = dAv + dAw.cross(r) + alpha.cross(dr) + dVw.cross(v) + w.cross(dv);
      const Vector3d dad = dAdv + dAdw.cross(r) + sw.cross(v) + w.cross(dr);
      out.J.block<3, 1>(row, i) = dr;
      out.v_z.block<3, 1>(row, i) = dv;
      out.a_z.block<3, 1>(row, i) = da;
      out.a_zd.block<3, 1>(row, i) = dad;
    }
  }
}

}  // namespace

}  // namespace lw::dyn
