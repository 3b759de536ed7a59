#include "dynamics/generalized_forces.h"

#include "dynamics/tree_kernels.h"
#include "dynamics/force_elements.h"
#include "numeric/jet.h"
#include "numeric/scalar.h"

#include <stdexcept>
#include <type_traits>

namespace lw::dyn {

using namespace detail;

template <class S, class P>
struct GeneralizedForces<S, P>::Work {
  using J = kin::BasicJet<S>;
  std::vector<J> zj;                 // z + s ż: the frames' first derivatives are velocities
  std::vector<Frame<J>> own;         // by body, when not the shared frames of the state
  const std::vector<Frame<J>>* frames = &own;
  std::vector<V3<S>> r, v, a0, w, wd0;  // by body: centre of mass, its velocity and acceleration (z̈ = 0), ω, ω̇ (z̈ = 0)
  std::vector<M3<S>> R;              // by body
  std::vector<V3<S>> force, torque;  // by body, at the centre of mass
  std::vector<V3<S>> bv, bw;         // by coordinate: partial velocity of the node's centre and ω
  std::vector<V3<S>> Fbar, Mbar;     // by node: the subtree's force and its moment about the node's centre
  std::vector<V3<S>> acc, alpha;     // by body: massTimes' accelerations of the centre of mass, angular
};

namespace {

template <class S> V3<S> valueOf(const V3<kin::BasicJet<S>>& a) { return {{a[0].v, a[1].v, a[2].v}}; }
template <class S> V3<S> rateOf(const V3<kin::BasicJet<S>>& a) { return {{a[0].d, a[1].d, a[2].d}}; }

// ω from Ṙ Rᵀ = ω̃ and ω̇ from (R̈ − ω̃Ṙ) Rᵀ = ω̇̃, read off the entries below the diagonal as
// omegaOf/omegaDotOf and the partial velocities do, so that off the unit sphere of a quaternion
// (where R(q) is not a rotation) the inertia forces stay consistent with M^d
template <class S>
void angularRates(const M3<kin::BasicJet<S>>& Rj, V3<S>& w, V3<S>* wd) {
  M3<S> R, Rd, Rdd;
  for (int i = 0; i < 9; ++i) {
    R.a[i] = Rj.a[i].v;
    Rd.a[i] = Rj.a[i].d;
    Rdd.a[i] = Rj.a[i].dd;
  }
  auto rowDot = [](const M3<S>& A, int i, const M3<S>& B, int k) {  // (A Bᵀ)(i, k)
    return A(i, 0) * B(k, 0) + A(i, 1) * B(k, 1) + A(i, 2) * B(k, 2);
  };
  w = {{rowDot(Rd, 2, R, 1), rowDot(Rd, 0, R, 2), rowDot(Rd, 1, R, 0)}};
  if (!wd) return;
  M3<S> A;  // R̈ − ω̃ Ṙ, column by column
  for (int j = 0; j < 3; ++j) {
    const V3<S> c = cross(w, V3<S>{{Rd(0, j), Rd(1, j), Rd(2, j)}});
    for (int i = 0; i < 3; ++i) A(i, j) = Rdd(i, j) - c[i];
  }
  *wd = {{rowDot(A, 2, R, 1), rowDot(A, 0, R, 2), rowDot(A, 1, R, 0)}};
}

// J v with J = R I Rᵀ (world inertia about the centre of mass)
template <class S, class P>
V3<S> inertiaTimes(const M3<S>& R, const Eigen::Matrix<P, 3, 3>& I, const V3<S>& x) {
  V3<S> y;  // Rᵀ x
  for (int i = 0; i < 3; ++i) y[i] = R(0, i) * x[0] + R(1, i) * x[1] + R(2, i) * x[2];
  V3<S> Iy;
  for (int i = 0; i < 3; ++i) Iy[i] = y[0] * I(i, 0) + y[1] * I(i, 1) + y[2] * I(i, 2);
  return mul(R, Iy);
}

}  // namespace

template <class S, class P>
GeneralizedForces<S, P>::GeneralizedForces(const RecursiveModel& m) : GeneralizedForces(m, [&]() -> const TreeNumbers<P>& {
    if constexpr (std::is_same_v<P, double>) return m.numbers;
    else throw std::logic_error("GeneralizedForces: numbers on another scalar must be given");
  }()) {}

template <class S, class P>
GeneralizedForces<S, P>::GeneralizedForces(const RecursiveModel& m, const TreeNumbers<P>& numbers)
    : m_(&m), p_(&numbers), w_(std::make_unique<Work>()) {
  const std::size_t nb = numbers.mech.bodies.size(), nz = static_cast<std::size_t>(m.nz), nn = m.nodes.size();
  w_->zj.resize(nz);
  w_->own.resize(nb);
  for (auto* v : {&w_->r, &w_->v, &w_->a0, &w_->w, &w_->wd0, &w_->force, &w_->torque, &w_->acc, &w_->alpha}) v->resize(nb);
  w_->R.resize(nb);
  w_->bv.resize(nz);
  w_->bw.resize(nz);
  w_->Fbar.resize(nn);
  w_->Mbar.resize(nn);
}
template <class S, class P> GeneralizedForces<S, P>::~GeneralizedForces() = default;
template <class S, class P> GeneralizedForces<S, P>::GeneralizedForces(GeneralizedForces&&) noexcept = default;

// positions, velocities and accelerations (z̈ = 0) of every body, and the partial velocities
template <class S, class P>
void GeneralizedForces<S, P>::kinematics(const S* z, const S* zd, const S* zdd) {
  using J = kin::BasicJet<S>;
  const RecursiveModel& m = *m_;
  const TreeNumbers<P>& p = *p_;
  Work& w = *w_;
  // z + s ż + s²/2 z̈: second derivatives are accelerations (those of z̈ = 0 without zdd)
  if constexpr (std::is_same_v<S, double> && std::is_same_v<P, double>) {
    if (!zdd && shared_) {
      // the plain forces of a state with the model's geometry: its frames are shared with the
      // loop rates and outputs (other numbers, e.g. a semi-analytical partial's moved ones, have
      // frames of their own and share none)
      w.frames = &jetFramesAlong(m, *shared_, z, zd);
    } else {
      for (int i = 0; i < m.nz; ++i) w.zj[static_cast<std::size_t>(i)] = J(z[i], zd[i], zdd ? zdd[i] : 0.0);
      computeFrames<J>(m, p, w.zj.data(), w.own);
      w.frames = &w.own;
    }
  } else {
    for (int i = 0; i < m.nz; ++i) w.zj[static_cast<std::size_t>(i)] = J(z[i], zd[i], zdd ? zdd[i] : S(0.0));
    computeFrames<J>(m, p, w.zj.data(), w.own);
  }
  const auto& bodies = p.mech.bodies;
  // the ground: at rest (forces on it, e.g. a tyre's reaction, are simply not projected)
  w.r[0] = w.v[0] = w.a0[0] = w.w[0] = w.wd0[0] = zero3<S>();
  w.R[0] = identity<S>();
  for (std::size_t b = 1; b < bodies.size(); ++b) {
    const Frame<J>& F = (*w.frames)[b];
    const V3<J> c = worldPoint(F, bodies[b].com);
    for (int i = 0; i < 3; ++i) {
      w.r[b][i] = c[i].v;
      w.v[b][i] = c[i].d;
      w.a0[b][i] = c[i].dd;
    }
    for (int i = 0; i < 9; ++i) w.R[b].a[i] = F.R.a[i].v;
    angularRates(F.R, w.w[b], &w.wd0[b]);
  }
  // b_k: the node's own coordinates moving at unit rate, its parent at rest
  for (std::size_t k = 0; k < m.nodes.size(); ++k) {
    const Node& n = m.nodes[k];
    const auto& g = p.nodes[k];
    const Frame<J>& pj = (*w.frames)[static_cast<std::size_t>(n.parent)];
    M3<S> Rp;
    for (int i = 0; i < 9; ++i) Rp.a[i] = pj.R.a[i].v;
    const auto body = static_cast<std::size_t>(n.body);
    if (n.kind == NodeKind::Revolute || n.kind == NodeKind::Prismatic || n.kind == NodeKind::Cylindrical) {
      // one fixed axis u (turned by the parent): rotation gives ω = ±u and v = ω × (r − J),
      // sliding gives v = ±u; no differentiation needed
      const double sign = n.flip ? -1.0 : 1.0;
      const V3<S> u = scale(S(sign), mul(Rp, g.axis));
      V3<S> Jw;  // the joint point in the world
      for (int a = 0; a < 3; ++a) Jw[a] = pj.x[a].v;
      Jw = add(Jw, mul(Rp, g.point));
      const auto col = static_cast<std::size_t>(n.z);
      if (n.kind == NodeKind::Prismatic) {
        w.bv[col] = u;
        w.bw[col] = zero3<S>();
        continue;
      }
      w.bw[col] = u;
      w.bv[col] = cross(u, sub(w.r[body], Jw));
      if (n.kind == NodeKind::Cylindrical) {
        w.bv[col + 1] = u;
        w.bw[col + 1] = zero3<S>();
      }
      continue;
    }
    // other joints: differentiate the child's frame with the parent's held still (quaternions
    // in closed form: the centre's velocity v_O + ω × r per column)
    Frame<S> pf;
    pf.R = Rp;
    for (int i = 0; i < 3; ++i) pf.x[i] = pj.x[i].v;
    if (n.kind == NodeKind::Spherical || n.kind == NodeKind::FreeSpatial) {
      QuaternionMotion<S> q{};
      quaternionNodeMotion<S>(n, g, pf, z + n.z, nullptr, nullptr, q);
      for (int i = 0; i < n.nz; ++i) {
        const auto col = static_cast<std::size_t>(n.z + i);
        w.bv[col] = add(q.colV[i], cross(q.colW[i], w.r[body]));
        w.bw[col] = q.colW[i];
      }
      continue;
    }
    for (int i = 0; i < n.nz; ++i) {
      J zl[7];
      for (int q = 0; q < n.nz; ++q) zl[q] = J(z[n.z + q], S(q == i ? 1.0 : 0.0), S(0.0));
      const Frame<J> c = childFrameAlong(n, g, pf, zl);
      const auto col = static_cast<std::size_t>(n.z + i);
      w.bv[col] = rateOf(worldPoint(c, bodies[body].com));
      angularRates<S>(c.R, w.bw[col], nullptr);
    }
  }
}

// gravity, force elements and −ω × Jω as wrenches at the centres of mass
template <class S, class P>
void GeneralizedForces<S, P>::applied(double t) {
  using J = kin::BasicJet<S>;
  const RecursiveModel& m = *m_;
  const auto& mech = *m.mechanism;  // structure: which bodies, points and joints
  const MechanismNumbers<P>& nums = p_->mech;
  Work& w = *w_;
  const bool planar = m.dimension == 2;
  for (std::size_t b = 0; b < mech.bodies.size(); ++b) {
    w.force[b] = zero3<S>();
    w.torque[b] = zero3<S>();
    if (b == 0) continue;
    const auto& body = nums.bodies[b];
    w.force[b] = cst<S>(Eigen::Matrix<P, 3, 1>(nums.gravity * body.mass));
    if (!planar) w.torque[b] = scale(S(-1.0), cross(w.w[b], inertiaTimes(w.R[b], body.inertia, w.w[b])));
  }
  // what the force elements read of the bodies: the frames along ż (jets) and the rates of this state
  struct Bodies {
    const Work& w;
    const MechanismNumbers<P>& nums;
    void point(ItemIndex item, V3<S>& r, V3<S>& v) const {
      const V3<J> x = worldPoint((*w.frames)[static_cast<std::size_t>(item.body)], nums.point(item));
      r = valueOf(x);
      v = rateOf(x);
    }
    const M3<S>& rotation(int b) const { return w.R[static_cast<std::size_t>(b)]; }
    V3<S> omega(int b) const { return w.w[static_cast<std::size_t>(b)]; }
    void centre(int b, V3<S>& r, V3<S>& v) const {
      r = w.r[static_cast<std::size_t>(b)];
      v = w.v[static_cast<std::size_t>(b)];
    }
  };
  forceElements<S>(
      m, *p_, t, Bodies{w, nums},
      [&](int body, const V3<S>& at, const V3<S>& f) {
        if (body == 0) return;  // on the ground: not projected
        const auto b = static_cast<std::size_t>(body);
        w.force[b] = add(w.force[b], f);
        w.torque[b] = add(w.torque[b], cross(sub(at, w.r[b]), f));
      },
      [&](int body, const V3<S>& tq) {
        if (body != 0) w.torque[static_cast<std::size_t>(body)] = add(w.torque[static_cast<std::size_t>(body)], tq);
      });
}

template <class S, class P>
void GeneralizedForces<S, P>::bodyWrenches(const S* z, const S* zd, double t, S* Qv) {
  kinematics(z, zd, nullptr);
  applied(t);
  for (std::size_t b = 0; b < w_->force.size(); ++b)
    for (int i = 0; i < 3; ++i) {
      Qv[6 * b + static_cast<std::size_t>(i)] = w_->force[b][i];
      Qv[6 * b + 3 + static_cast<std::size_t>(i)] = w_->torque[b][i];
    }
}

template <class S, class P>
void GeneralizedForces<S, P>::operator()(const S* z, const S* zd, double t, S* Qd, const S* zdd) {
  const RecursiveModel& m = *m_;
  const MechanismNumbers<P>& nums = p_->mech;
  Work& w = *w_;
  kinematics(z, zd, zdd);
  applied(t);
  // the inertia forces of the accelerations (with z̈ = 0, or the given z̈): −m a, −J ω̇ (planar: only I_zz acts)
  for (std::size_t b = 1; b < nums.bodies.size(); ++b) {
    const auto& body = nums.bodies[b];
    w.force[b] = sub(w.force[b], scale(S(body.mass), w.a0[b]));
    if (m.dimension == 2) w.torque[b][2] = w.torque[b][2] - w.wd0[b][2] * S(body.inertia(2, 2));
    else w.torque[b] = sub(w.torque[b], inertiaTimes(w.R[b], body.inertia, w.wd0[b]));
  }
  project(Qd);
  // torsion springs of tree joints act on their coordinate
  forEachTreeTorsionSpring(m, nums, [&](const Node& n, const auto& fn) {
    const double sign = n.sign;
    const S angle = z[n.z] * sign, rate = zd[n.z] * sign;
    Qd[n.z] = Qd[n.z] + ((angle - S(fn.naturalAngle)) * (-S(fn.stiffness)) - rate * S(fn.damping)) * sign;
  });
}

template <class S, class P>
void GeneralizedForces<S, P>::massTimes(const S* v, S* Mv) {
  const RecursiveModel& m = *m_;
  const MechanismNumbers<P>& nums = p_->mech;
  Work& w = *w_;
  // root to leaves: a body's centre accelerates with its parent's rigid motion (no velocities: no
  // centripetal terms) plus its own coordinates' partial velocities times v
  w.acc[0] = w.alpha[0] = zero3<S>();
  for (const Node& n : m.nodes) {
    const auto body = static_cast<std::size_t>(n.body), parent = static_cast<std::size_t>(n.parent);
    V3<S> alpha = w.alpha[parent];
    V3<S> acc = add(w.acc[parent], cross(w.alpha[parent], sub(w.r[body], w.r[parent])));
    for (int i = 0; i < n.nz; ++i) {
      const auto col = static_cast<std::size_t>(n.z + i);
      alpha = add(alpha, scale(v[col], w.bw[col]));
      acc = add(acc, scale(v[col], w.bv[col]));
    }
    w.alpha[body] = alpha;
    w.acc[body] = acc;
  }
  // the inertia wrenches m a, J α at the centres (planar: only I_zz acts), projected as operator()'s
  for (const Node& n : m.nodes) {
    const auto body = static_cast<std::size_t>(n.body);
    const auto& b = nums.bodies[body];
    w.force[body] = scale(S(b.mass), w.acc[body]);
    if (m.dimension == 2) w.torque[body] = {{S(0.0), S(0.0), w.alpha[body][2] * S(b.inertia(2, 2))}};
    else w.torque[body] = inertiaTimes(w.R[body], b.inertia, w.alpha[body]);
  }
  project(Mv);
}

template <class S, class P>
void GeneralizedForces<S, P>::project(S* Q) {
  const RecursiveModel& m = *m_;
  Work& w = *w_;
  // leaves to root: the subtree's force and moment about the node's centre, then Q = b_vᵀF + b_ωᵀM
  for (std::size_t k = m.nodes.size(); k-- > 0;) {
    const Node& n = m.nodes[k];
    const auto body = static_cast<std::size_t>(n.body);
    V3<S> F = w.force[body], M = w.torque[body];
    for (int c : m.children[k]) {
      const auto cb = static_cast<std::size_t>(m.nodes[static_cast<std::size_t>(c)].body);
      F = add(F, w.Fbar[static_cast<std::size_t>(c)]);
      M = add(M, add(w.Mbar[static_cast<std::size_t>(c)], cross(sub(w.r[cb], w.r[body]), w.Fbar[static_cast<std::size_t>(c)])));
    }
    w.Fbar[k] = F;
    w.Mbar[k] = M;
    for (int i = 0; i < n.nz; ++i) {
      const auto col = static_cast<std::size_t>(n.z + i);
      Q[col] = dot(w.bv[col], F) + dot(w.bw[col], M);
    }
  }
}

template class GeneralizedForces<double>;
template class GeneralizedForces<num::Dual<kForceChunk>>;
template class GeneralizedForces<std::complex<double>>;
template class GeneralizedForces<num::Pattern>;
template class GeneralizedForces<num::Dual<kForceChunk>, num::Dual<kForceChunk>>;
template class GeneralizedForces<std::complex<double>, std::complex<double>>;

}  // namespace lw::dyn
