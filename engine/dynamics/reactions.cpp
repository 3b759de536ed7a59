#include "dynamics/reactions.h"

#include <Eigen/Cholesky>

#include "dynamics/tree_motion.h"
#include "numeric/dual.h"
#include "numeric/jet.h"
#include "numeric/scalar.h"
#include "numeric/solve_on.h"

namespace lw::dyn {

using namespace detail;

template <class S>
struct ReactionsOn<S>::Work {
  const RecursiveModel* m = nullptr;
  std::vector<int> rows;                 // independent rows of Φ
  const TreeNumbers<S>* p = nullptr;     // of the last compute
  TreeMotion<S> motion;
  std::vector<Motion6<S>> F;             // by node: the subtree's wrench I A + V ×* I V − applied
  std::vector<S> tau, lambdaByRow;       // τ; λ by row of Φ (0 off the independent rows)
  // by constraint: its bodies and the wrench it applies on each (about the origin)
  std::vector<std::vector<std::pair<int, Motion6<S>>>> wrenches;
  std::vector<Motion6<S>> loopsOnSubtree;  // by node: the loops' wrenches on the bodies of its subtree
  std::vector<Motion6<S>> jointWrench;     // by node: what the joint passes to its child, actuators removed
  // buffers kept between calls (a run asks at every row)
  std::vector<Frame<kin::BasicJet<S>>> fj;
  std::vector<kin::BasicJet<S>> zj, phi;
  // on doubles: eight directions a pass (dual lanes) instead of a jet pass each
  std::vector<Frame<num::Dual8>> fl;
  std::vector<num::Dual8> zl, phil;
  std::vector<char> used;  // constraints a chunk of coordinates changes
  Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic> A, N, rhs, lambda;
  Eigen::Matrix<S, Eigen::Dynamic, 1> tauVec;
};

namespace {
template <class S> Motion6<S> minus(const Motion6<S>& a, const Motion6<S>& b) { return {sub(a.v, b.v), sub(a.w, b.w)}; }
template <class S> S pair(const Motion6<S>& m, const Motion6<S>& f) { return dot(m.v, f.v) + dot(m.w, f.w); }
}  // namespace

template <class S>
ReactionsOn<S>::ReactionsOn(const RecursiveModel& m, std::vector<int> rows) : w_(std::make_unique<Work>()) {
  w_->m = &m;
  w_->rows = std::move(rows);
}
template <class S> ReactionsOn<S>::~ReactionsOn() = default;
template <class S> ReactionsOn<S>::ReactionsOn(ReactionsOn&&) noexcept = default;

template <class S>
bool ReactionsOn<S>::compute(const TreeNumbers<S>& p, const S* z, const S* zd, const S* zdd, double t) {
  using J = kin::BasicJet<S>;
  Work& w = *w_;
  const RecursiveModel& m = *w.m;
  const int nz = m.nz, nc = static_cast<int>(w.rows.size());
  const auto nn = m.nodes.size();
  w.p = &p;
  treeMotion<S>(m, p, z, zd, zdd, w.motion);
  w.tau.assign(static_cast<std::size_t>(nz), S(0.0));
  inverseDynamicsFrom<S>(m, p, w.motion, z, zd, t, w.tau.data(), &w.F);
  // on doubles the derivatives below take eight lanes a pass (dual numbers), on the other scalars
  // a jet pass each
  constexpr bool lanes = std::is_same_v<S, double>;
  // frames as jets with nothing moving; a coordinate's or a body's motion seeded into them
  auto& fj = w.fj;
  auto& zj = w.zj;
  auto& phi = w.phi;
  if constexpr (!lanes) {
    fj.resize(w.motion.frames.size());
    for (std::size_t b = 0; b < fj.size(); ++b) {
      for (int i = 0; i < 9; ++i) fj[b].R.a[i] = J(w.motion.frames[b].R.a[i]);
      for (int i = 0; i < 3; ++i) fj[b].x[i] = J(w.motion.frames[b].x[i]);
    }
    zj.resize(static_cast<std::size_t>(nz));
    phi.assign(static_cast<std::size_t>(m.nrows), J(S(0.0)));
    for (int i = 0; i < nz; ++i) zj[static_cast<std::size_t>(i)] = J(z[i]);
  }
  const J tj(S(t), S(0.0), S(0.0));
  // body b moved by the twist (v, ω) about the origin (null: at rest)
  auto seedBody = [&](std::size_t b, const V3<S>* v, const V3<S>* om) {
    const Frame<S>& F = w.motion.frames[b];
    for (int c = 0; c < 3; ++c) {
      const V3<S> col{{F.R(0, c), F.R(1, c), F.R(2, c)}};
      const V3<S> d = om ? cross(*om, col) : zero3<S>();
      for (int r = 0; r < 3; ++r) fj[b].R(r, c).d = d[r];
    }
    const V3<S> xd = v ? add(*v, cross(*om, F.x)) : zero3<S>();
    for (int r = 0; r < 3; ++r) fj[b].x[r].d = xd[r];
  };
  // the lanes: body b's frame moved along lane l by the twist (v, ω) about the origin
  using L = num::Dual8;
  auto& fl = w.fl;
  auto& zl = w.zl;
  auto& phil = w.phil;
  if constexpr (lanes) {
    if (nc > 0) {  // (an open chain has no loop rows: nothing to differentiate)
      fl.resize(w.motion.frames.size());
      for (std::size_t b = 0; b < fl.size(); ++b) {
        for (int i = 0; i < 9; ++i) fl[b].R.a[i] = L(w.motion.frames[b].R.a[i]);
        for (int i = 0; i < 3; ++i) fl[b].x[i] = L(w.motion.frames[b].x[i]);
      }
      zl.resize(static_cast<std::size_t>(nz));
      for (int i = 0; i < nz; ++i) zl[static_cast<std::size_t>(i)] = L(z[i]);
      phil.assign(static_cast<std::size_t>(m.nrows), L(0.0));
    }
  }
  const L tl(t);
  auto seedLane = [&](std::size_t b, int l, const V3<S>& v, const V3<S>& om) {
    if constexpr (lanes) {
      const Frame<S>& F = w.motion.frames[b];
      for (int c = 0; c < 3; ++c) {
        const V3<S> col{{F.R(0, c), F.R(1, c), F.R(2, c)}};
        const V3<S> d = cross(om, col);
        for (int r = 0; r < 3; ++r) fl[b].R(r, c).g[l] = d[r];
      }
      const V3<S> xd = add(v, cross(om, F.x));
      for (int r = 0; r < 3; ++r) fl[b].x[r].g[l] = xd[r];
    }
  };
  auto clearLanes = [&](std::size_t b) {
    if constexpr (lanes) {
      for (auto& e : fl[b].R.a) e = L(e.v);
      for (int i = 0; i < 3; ++i) fl[b].x[i] = L(fl[b].x[i].v);
    }
  };
  // Φ_sel (independent rows × nz): a column per coordinate, its subtree moved by S_j; only the
  // constraints its coordinates can change (the others' column entries are zero)
  auto& A = w.A;
  A.setZero(nc, nz);
  if constexpr (lanes) {
    w.used.assign(m.constraints.size(), 0);
    for (int first = 0; first < nz && nc > 0; first += num::kChunk) {
      const int last = std::min(nz, first + num::kChunk);
      for (int j = first; j < last; ++j) {
        const int k = w.motion.nodeOf[static_cast<std::size_t>(j)];
        const Motion6<S>& s = w.motion.column[static_cast<std::size_t>(j)];
        for (int b : m.subtree[static_cast<std::size_t>(k)]) seedLane(static_cast<std::size_t>(b), j - first, s.v, s.w);
        zl[static_cast<std::size_t>(j)].g[j - first] = 1.0;
        for (int ci : m.affected[static_cast<std::size_t>(k)]) w.used[static_cast<std::size_t>(ci)] = 1;
      }
      for (std::size_t ci = 0; ci < m.constraints.size(); ++ci)
        if (w.used[ci]) constraintOnFrames<L, double>(m, p, fl, zl.data(), tl, static_cast<int>(ci), phil.data());
      for (int j = first; j < last; ++j)
        for (int r = 0; r < nc; ++r) A(r, j) = phil[static_cast<std::size_t>(w.rows[static_cast<std::size_t>(r)])].g[j - first];
      for (std::size_t ci = 0; ci < m.constraints.size(); ++ci) {
        if (!w.used[ci]) continue;
        const LoopConstraint& c = m.constraints[ci];
        for (int r = 0; r < c.rows; ++r) phil[static_cast<std::size_t>(c.row + r)] = L(0.0);
        w.used[ci] = 0;
      }
      for (int j = first; j < last; ++j) {
        for (int b : m.subtree[static_cast<std::size_t>(w.motion.nodeOf[static_cast<std::size_t>(j)])]) clearLanes(static_cast<std::size_t>(b));
        zl[static_cast<std::size_t>(j)] = L(z[j]);
      }
    }
  }
  for (int j = 0; j < nz && nc > 0 && !lanes; ++j) {
    const int k = w.motion.nodeOf[static_cast<std::size_t>(j)];
    const Motion6<S>& s = w.motion.column[static_cast<std::size_t>(j)];
    for (int b : m.subtree[static_cast<std::size_t>(k)]) seedBody(static_cast<std::size_t>(b), &s.v, &s.w);
    zj[static_cast<std::size_t>(j)].d = S(1.0);
    for (int ci : m.affected[static_cast<std::size_t>(k)]) constraintOnFrames<J, S>(m, p, fj, zj.data(), tj, ci, phi.data());
    for (int r = 0; r < nc; ++r) A(r, j) = phi[static_cast<std::size_t>(w.rows[static_cast<std::size_t>(r)])].d;
    for (int ci : m.affected[static_cast<std::size_t>(k)]) {
      const LoopConstraint& c = m.constraints[static_cast<std::size_t>(ci)];
      for (int r = 0; r < c.rows; ++r) phi[static_cast<std::size_t>(c.row + r)] = J(S(0.0));
    }
    zj[static_cast<std::size_t>(j)].d = S(0.0);
    for (int b : m.subtree[static_cast<std::size_t>(k)]) seedBody(static_cast<std::size_t>(b), nullptr, nullptr);
  }
  // λ: Φ_sel Φ_selᵀ λ = −Φ_sel τ
  w.lambdaByRow.assign(static_cast<std::size_t>(m.nrows), S(0.0));
  if (nc > 0) {
    w.tauVec.resize(nz);
    for (int i = 0; i < nz; ++i) w.tauVec[i] = w.tau[static_cast<std::size_t>(i)];
    w.N.noalias() = A * A.transpose();
    w.rhs.noalias() = -(A * w.tauVec);
    if constexpr (std::is_same_v<S, double>) {
      // symmetric positive definite on independent rows: Cholesky, without the LU's condition
      // estimate (which cost more than the solve: 7 % of a run that records reactions)
      const Eigen::LLT<Eigen::MatrixXd> llt(w.N);
      if (llt.info() != Eigen::Success) return false;
      w.lambda = llt.solve(w.rhs);
    } else if (!num::solveOn(w.N, w.rhs, w.lambda)) {
      return false;
    }
    for (int r = 0; r < nc; ++r) w.lambdaByRow[static_cast<std::size_t>(w.rows[static_cast<std::size_t>(r)])] = w.lambda(r, 0);
  }
  // each constraint's wrench on its bodies (the frames' rows: cut joints, and drivers of cut
  // joints, points and distances; a tree joint's driver and a quaternion's unit row act on z)
  w.wrenches.resize(m.constraints.size());
  for (auto& list : w.wrenches) list.clear();
  std::vector<int> bodies;
  bodies.reserve(2);
  for (std::size_t ci = 0; ci < m.constraints.size(); ++ci) {
    const LoopConstraint& c = m.constraints[ci];
    constraintBodies(m, static_cast<int>(ci), bodies);
    if (bodies.empty()) continue;
    bool loaded = false;
    for (int r = 0; r < c.rows; ++r) loaded = loaded || num::value(w.lambdaByRow[static_cast<std::size_t>(c.row + r)]) != 0;
    for (const int b : bodies) {
      if (b == 0) continue;
      Motion6<S> W = zero6<S>();
      if constexpr (lanes) {
        if (loaded) {  // the six unit twists of the body in six lanes of one pass
          for (int e = 0; e < 6; ++e) {
            V3<S> v = zero3<S>(), om = zero3<S>();
            (e < 3 ? v : om)[e % 3] = S(1.0);
            seedLane(static_cast<std::size_t>(b), e, v, om);
          }
          constraintOnFrames<L, double>(m, p, fl, zl.data(), tl, static_cast<int>(ci), phil.data());
          clearLanes(static_cast<std::size_t>(b));
          for (int e = 0; e < 6; ++e) {
            S value(0.0);
            for (int r = 0; r < c.rows; ++r)
              value = value - w.lambdaByRow[static_cast<std::size_t>(c.row + r)] * phil[static_cast<std::size_t>(c.row + r)].g[e];
            (e < 3 ? W.v : W.w)[e % 3] = value;
          }
        }
        w.wrenches[ci].emplace_back(b, W);
        continue;
      }
      for (int e = 0; e < 6 && loaded; ++e) {
        V3<S> v = zero3<S>(), om = zero3<S>();
        (e < 3 ? v : om)[e % 3] = S(1.0);
        seedBody(static_cast<std::size_t>(b), &v, &om);
        constraintOnFrames<J, S>(m, p, fj, zj.data(), tj, static_cast<int>(ci), phi.data());
        seedBody(static_cast<std::size_t>(b), nullptr, nullptr);
        S value(0.0);
        for (int r = 0; r < c.rows; ++r) value = value - w.lambdaByRow[static_cast<std::size_t>(c.row + r)] * phi[static_cast<std::size_t>(c.row + r)].d;
        (e < 3 ? W.v : W.w)[e % 3] = value;
      }
      w.wrenches[ci].emplace_back(b, W);
    }
  }
  // up the tree: the loops' wrenches on each subtree; the joint's own wrench, its actuators removed
  w.loopsOnSubtree.assign(nn, zero6<S>());
  for (const auto& list : w.wrenches)
    for (const auto& [b, W] : list) {
      const int k = m.nodeOfBody[static_cast<std::size_t>(b)];
      if (k >= 0) w.loopsOnSubtree[static_cast<std::size_t>(k)] = plus(w.loopsOnSubtree[static_cast<std::size_t>(k)], W);
    }
  for (std::size_t k = nn; k-- > 0;)
    for (int c : m.children[k]) w.loopsOnSubtree[k] = plus(w.loopsOnSubtree[k], w.loopsOnSubtree[static_cast<std::size_t>(c)]);
  w.jointWrench.assign(nn, zero6<S>());
  for (std::size_t k = 0; k < nn; ++k) {
    const Node& n = m.nodes[k];
    Motion6<S> W = minus(w.F[k], w.loopsOnSubtree[k]);
    if (n.kind == NodeKind::Revolute || n.kind == NodeKind::Prismatic || n.kind == NodeKind::Cylindrical) {
      // what its coordinates carry (a driver's or torsion spring's couple about the axis, force
      // along it) is not the joint's reaction
      for (int q = 0; q < n.nz; ++q) {
        const Motion6<S>& s = w.motion.column[static_cast<std::size_t>(n.z + q)];
        const S along = pair(s, W);
        const bool turning = num::value(dot(s.w, s.w)) > 0;
        // the dual of the column: a unit couple about a turning axis, a unit force along a sliding one
        const V3<S> u = turning ? s.w : s.v;
        Motion6<S> D;
        if (turning) {
          D = {zero3<S>(), u};
        } else {
          const Frame<S>& pf = w.motion.frames[static_cast<std::size_t>(n.parent)];
          const V3<S> Jw = add(pf.x, mul(pf.R, p.nodes[k].point));
          D = {u, cross(Jw, u)};
        }
        W = minus(W, Motion6<S>{scale(along, D.v), scale(along, D.w)});
      }
    }
    w.jointWrench[k] = W;
  }
  return true;
}

template <class S>
void ReactionsOn<S>::jointReaction(int joint, int body, S* out) const {
  const Work& w = *w_;
  const RecursiveModel& m = *w.m;
  const auto& jt = m.mechanism->joints[static_cast<std::size_t>(joint)];
  Motion6<S> W = zero6<S>();
  const int node = m.treeJointNode[static_cast<std::size_t>(joint)];
  if (node >= 0) {
    W = w.jointWrench[static_cast<std::size_t>(node)];  // on the child
    if (body != m.nodes[static_cast<std::size_t>(node)].body) W = {scale(S(-1.0), W.v), scale(S(-1.0), W.w)};
  } else {
    for (std::size_t ci = 0; ci < m.constraints.size(); ++ci) {
      const LoopConstraint& c = m.constraints[ci];
      if (c.kind != LoopConstraint::Kind::CutJoint || c.index != joint) continue;
      const int other = jt.body(0) == body ? jt.body(1) : jt.body(0);
      for (const auto& [b, Wb] : w.wrenches[ci]) {
        if (b == body) W = plus(W, Wb);
        if (b == other && body == 0) W = minus(W, Wb);  // on the ground: the other side's, opposed
      }
    }
  }
  // about the joint's point on that body
  const int side = jt.body(0) == body ? 0 : 1;
  const V3<S> P = worldPoint(w.motion.frames[static_cast<std::size_t>(body)], w.p->mech.point(jt.points[side]));
  const V3<S> moment = sub(W.w, cross(P, W.v));
  for (int i = 0; i < 3; ++i) {
    out[i] = W.v[i];
    out[3 + i] = moment[i];
  }
}

template <class S>
S ReactionsOn<S>::driverEffort(int driver) const {
  const Work& w = *w_;
  const RecursiveModel& m = *w.m;
  for (const LoopConstraint& c : m.constraints) {
    if (c.kind != LoopConstraint::Kind::Driver || c.index != driver) continue;
    const S lambda = w.lambdaByRow[static_cast<std::size_t>(c.row)];
    const auto& dv = m.mechanism->drivers[static_cast<std::size_t>(driver)];
    if (dv.type != lw::Driver::Type::Distance) return -lambda;  // ∂Φ/∂(driven quantity) = 1
    // Φ = |d|² − f²: ∂Φ/∂|d| = 2|d|
    using std::sqrt;
    const V3<S> a = worldPoint(w.motion.frames[static_cast<std::size_t>(dv.points[0].body)], w.p->mech.point(dv.points[0]));
    const V3<S> b = worldPoint(w.motion.frames[static_cast<std::size_t>(dv.points[1].body)], w.p->mech.point(dv.points[1]));
    const V3<S> d = sub(b, a);
    return -(lambda * S(2.0) * sqrt(dot(d, d)));
  }
  return S(0.0);
}

template class ReactionsOn<double>;
template class ReactionsOn<num::Dual8>;
template class ReactionsOn<std::complex<double>>;

}  // namespace lw::dyn
