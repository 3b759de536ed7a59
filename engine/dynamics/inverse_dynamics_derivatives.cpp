#include "dynamics/inverse_dynamics_derivatives.h"

#include <Eigen/Geometry>
#include <vector>

#include "dynamics/force_elements.h"
#include "dynamics/tree_motion.h"
#include "numeric/dual.h"
#include "numeric/first_jets.h"

namespace lw::dyn {
namespace {

using Vec6 = Eigen::Matrix<double, 6, 1>;
using Mat6 = Eigen::Matrix<double, 6, 6>;
using Eigen::Vector3d;

// spatial cross products about the world origin: motions [v; ω], forces [F; n]
Vec6 crossMotion(const Vec6& m, const Vec6& x) {
  Vec6 r;
  r.head<3>() = m.tail<3>().cross(x.head<3>()) + m.head<3>().cross(x.tail<3>());
  r.tail<3>() = m.tail<3>().cross(x.tail<3>());
  return r;
}
Vec6 crossForce(const Vec6& m, const Vec6& f) {
  Vec6 r;
  r.head<3>() = m.tail<3>().cross(f.head<3>());
  r.tail<3>() = m.tail<3>().cross(f.tail<3>()) + m.head<3>().cross(f.head<3>());
  return r;
}
Vector3d vec3(const detail::V3<double>& a) { return Vector3d(a[0], a[1], a[2]); }
Vec6 vec6(const detail::Motion6<double>& a) {
  Vec6 r;
  r << a.v[0], a.v[1], a.v[2], a.w[0], a.w[1], a.w[2];
  return r;
}
Eigen::Matrix3d skew(const Vector3d& a) {
  Eigen::Matrix3d s;
  s << 0, -a.z(), a.y(), a.z(), 0, -a.x(), -a.y(), a.x(), 0;
  return s;
}

// a body's spatial inertia about the world origin: I [a; b] = [m (a + b × c); J_c b + c × m (a + b × c)]
Mat6 spatialInertia(double mass, const Vector3d& c, const Eigen::Matrix3d& Jc) {
  const Eigen::Matrix3d C = skew(c);
  Mat6 I;
  I.topLeftCorner<3, 3>() = mass * Eigen::Matrix3d::Identity();
  I.topRightCorner<3, 3>() = -mass * C;
  I.bottomLeftCorner<3, 3>() = mass * C;
  I.bottomRightCorner<3, 3>() = Jc - mass * C * C;
  return I;
}

// A force element's bodies on first-order jets (force_elements.h's Bodies): slot s's body moved
// along its six pose twists about the origin (directions 12 s … 12 s + 5: δx = δv + δω × x,
// δR = δω̃ R, its twist V held) and along six velocity twists (12 s + 6 … 12 s + 11: δV)
using ElementJet = kin::FirstJets<double, 24>;
struct ElementBodies {
  using J = ElementJet;
  const RecursiveModel& m;
  const MechanismNumbers<double>& nums;
  const detail::TreeMotion<double>& motion;
  int slot[2] = {-1, -1};  // the bodies seeded (moving ones), −1 none
  int nodeOf(int body) const { return m.nodeOfBody[static_cast<std::size_t>(body)]; }
  int slotOf(int body) const { return body < 0 ? -1 : body == slot[0] ? 0 : body == slot[1] ? 1 : -1; }
  void jets(int body, const detail::V3<double>& r, detail::V3<J>& rj, detail::V3<J>& vj) const {
    const int k = nodeOf(body);
    detail::V3<double> v{{0.0, 0.0, 0.0}}, w{{0.0, 0.0, 0.0}};
    if (k >= 0) {
      w = motion.V[static_cast<std::size_t>(k)].w;
      v = detail::add(motion.V[static_cast<std::size_t>(k)].v, detail::cross(w, r));
    }
    for (int i = 0; i < 3; ++i) {
      rj[i] = J(r[i]);
      vj[i] = J(v[i]);
    }
    const int s = slotOf(body);
    if (k < 0 || s < 0) return;
    for (int e = 0; e < 6; ++e) {
      detail::V3<double> dv{{0.0, 0.0, 0.0}}, dw{{0.0, 0.0, 0.0}};
      (e < 3 ? dv : dw)[e % 3] = 1;
      const detail::V3<double> dr = detail::add(dv, detail::cross(dw, r));  // a twist at r
      const detail::V3<double> dvel = detail::cross(w, dr);                // the pose moved, V held
      for (int i = 0; i < 3; ++i) {
        rj[i].d[12 * s + e] = dr[i];
        vj[i].d[12 * s + e] = dvel[i];
        vj[i].d[12 * s + 6 + e] = dr[i];  // the velocity twist at r
      }
    }
  }
  void point(ItemIndex item, detail::V3<J>& r, detail::V3<J>& v) const {
    jets(item.body, detail::worldPoint(motion.frames[static_cast<std::size_t>(item.body)], nums.point(item)), r, v);
  }
  void centre(int body, detail::V3<J>& r, detail::V3<J>& v) const {
    const int k = nodeOf(body);
    jets(body, k < 0 ? detail::zero3<double>() : motion.centre[static_cast<std::size_t>(k)], r, v);
  }
  detail::M3<J> rotation(int body) const {
    const detail::M3<double>& R = motion.frames[static_cast<std::size_t>(body)].R;
    detail::M3<J> out;
    for (int i = 0; i < 9; ++i) out.a[i] = J(R.a[i]);
    const int s = slotOf(body);
    if (nodeOf(body) < 0 || s < 0) return out;
    for (int e = 0; e < 3; ++e)  // δR = ẽ R
      for (int i = 0; i < 3; ++i)
        for (int c = 0; c < 3; ++c) {
          const int i1 = (i + 1) % 3, i2 = (i + 2) % 3;  // (e × R_col)_i
          const double ei1 = e == i1 ? 1.0 : 0.0, ei2 = e == i2 ? 1.0 : 0.0;
          out(i, c).d[12 * s + 3 + e] = ei1 * R(i2, c) - ei2 * R(i1, c);
        }
    return out;
  }
  detail::V3<J> omega(int body) const {
    const int k = nodeOf(body);
    detail::V3<J> out;
    for (int i = 0; i < 3; ++i) out[i] = J(k < 0 ? 0.0 : motion.V[static_cast<std::size_t>(k)].w[i]);
    const int s = slotOf(body);
    if (k >= 0 && s >= 0)
      for (int i = 0; i < 3; ++i) out[i].d[12 * s + 9 + i] = 1;
    return out;
  }
};

// the bodies a force element acts on and reads (tree torsion springs act on their coordinate: none)
std::array<int, 2> elementBodies(const RecursiveModel& m, std::size_t fi) {
  const auto& f = m.mechanism->forces[fi];
  switch (f.type) {
    case Force::Type::Spring: return {f.points[0].body, f.points[1].body};
    case Force::Type::PointForce: return {f.point.body, -1};
    case Force::Type::Torque: return {f.body, -1};
    case Force::Type::TorsionSpring: {
      if (m.treeJointNode[static_cast<std::size_t>(f.joint)] >= 0) return {-1, -1};
      const auto& jt = m.mechanism->joints[static_cast<std::size_t>(f.joint)];
      return {jt.body(0), jt.body(1)};
    }
    case Force::Type::Tyre: return {f.point.body, f.planePoint.body};
  }
  return {-1, -1};
}

// The force elements' part of τ_z and τ_ż (τ_j −= S_j · W_b over the bodies b that coordinate j
// moves): each element's wrenches W_b about the origin by its law on ElementJet, then
//   ∂W_b/∂z_i = Σ_c [i moves c] (∂W_b/∂ξ_c S_i + ∂W_b/∂V_c (S_i × V_c + dV_i)),
//   ∂W_b/∂ż_i = Σ_c [i moves c] ∂W_b/∂V_c S_i
// (dV_i: the column's ColumnMotion, V_i × S_i for a one-axis column; the columns' own turn,
// ∂S_j/∂z_i · W_b, is the subtree wrench's, read with the others')
template <class Within>
void addForceElementDerivatives(const RecursiveModel& m, const TreeNumbers<double>& p, const detail::TreeMotion<double>& motion, double t,
                                const std::vector<Vec6>& S, const std::vector<Vec6>& dV, Within&& within, Eigen::MatrixXd& tau_z,
                                Eigen::MatrixXd& tau_zd) {
  using J = ElementJet;
  const int nz = m.nz;
  const std::vector<int>& nodeOf = motion.nodeOf;
  for (std::size_t fi = 0; fi < m.mechanism->forces.size(); ++fi) {
    if (!p.mech.forces[fi].active) continue;
    const std::array<int, 2> bodies = elementBodies(m, fi);
    ElementBodies eb{m, p.mech, motion, {-1, -1}};
    for (int s = 0; s < 2; ++s)
      if (bodies[static_cast<std::size_t>(s)] >= 0 && m.nodeOfBody[static_cast<std::size_t>(bodies[static_cast<std::size_t>(s)])] >= 0 &&
          (s == 0 || bodies[1] != bodies[0]))
        eb.slot[s] = bodies[static_cast<std::size_t>(s)];
    if (eb.slot[0] < 0 && eb.slot[1] < 0) continue;
    // the wrenches on the seeded bodies, as jets
    detail::V3<J> W[2][2];  // [slot][force, moment about the origin]
    for (auto& w : W) w[0] = w[1] = detail::zero3<J>();
    detail::forceElements<J>(
        m, p, t, eb,
        [&](int body, const detail::V3<J>& at, const detail::V3<J>& F) {
          const int s = eb.slotOf(body);
          if (s < 0) return;
          W[s][0] = detail::add(W[s][0], F);
          W[s][1] = detail::add(W[s][1], detail::cross(at, F));
        },
        [&](int body, const detail::V3<J>& T) {
          const int s = eb.slotOf(body);
          if (s >= 0) W[s][1] = detail::add(W[s][1], T);
        },
        false, nullptr, static_cast<std::ptrdiff_t>(fi));
    // ∂W_b/∂ξ_c, ∂W_b/∂V_c (6 × 6 each) by slot pair
    Eigen::Matrix<double, 6, 6> A[2][2], B[2][2];
    for (int b = 0; b < 2; ++b)
      for (int c = 0; c < 2; ++c)
        for (int r = 0; r < 6; ++r)
          for (int e = 0; e < 6; ++e) {
            A[b][c](r, e) = W[b][r / 3][r % 3].d[12 * c + e];
            B[b][c](r, e) = W[b][r / 3][r % 3].d[12 * c + 6 + e];
          }
    for (int i = 0; i < nz; ++i) {
      const auto ui = static_cast<std::size_t>(i);
      const auto ni = static_cast<std::size_t>(nodeOf[ui]);
      const Vec6& s = S[ui];
      Vec6 dW[2] = {Vec6::Zero(), Vec6::Zero()}, dWd[2] = {Vec6::Zero(), Vec6::Zero()};
      bool any = false;
      for (int c = 0; c < 2; ++c) {
        if (eb.slot[c] < 0) continue;
        const auto nc = static_cast<std::size_t>(m.nodeOfBody[static_cast<std::size_t>(eb.slot[c])]);
        if (!within(nc, ni)) continue;  // z_i does not move body c
        any = true;
        const Vec6 turned = crossMotion(s, vec6(motion.V[nc])) + dV[ui];
        for (int b = 0; b < 2; ++b) {
          if (eb.slot[b] < 0) continue;
          dW[b] += A[b][c] * s + B[b][c] * turned;
          dWd[b] += B[b][c] * s;
        }
      }
      if (!any) continue;
      for (int b = 0; b < 2; ++b) {
        if (eb.slot[b] < 0) continue;
        const auto nb = static_cast<std::size_t>(m.nodeOfBody[static_cast<std::size_t>(eb.slot[b])]);
        for (int j = 0; j < nz; ++j) {
          if (!within(nb, static_cast<std::size_t>(nodeOf[static_cast<std::size_t>(j)]))) continue;  // z_j does not move body b
          tau_z(j, i) -= S[static_cast<std::size_t>(j)].dot(dW[b]);
          tau_zd(j, i) -= S[static_cast<std::size_t>(j)].dot(dWd[b]);
        }
      }
    }
  }
}

}  // namespace

template <class S>
void inverseDynamicsOn(const RecursiveModel& m, const TreeNumbers<S>& p, const S* z, const S* zd, const S* zdd, double t, S* tau) {
  detail::TreeMotion<S> motion;
  detail::treeMotion(m, p, z, zd, zdd, motion);
  detail::inverseDynamicsFrom(m, p, motion, z, zd, t, tau);
}
template void inverseDynamicsOn<double>(const RecursiveModel&, const TreeNumbers<double>&, const double*, const double*, const double*,
                                        double, double*);
template void inverseDynamicsOn<num::Dual8>(const RecursiveModel&, const TreeNumbers<num::Dual8>&, const num::Dual8*, const num::Dual8*,
                                            const num::Dual8*, double, num::Dual8*);

MotionAtState::MotionAtState() : data_(std::make_unique<detail::MotionAtStateData>()) {}
MotionAtState::~MotionAtState() = default;
MotionAtState::MotionAtState(MotionAtState&&) noexcept = default;
MotionAtState& MotionAtState::operator=(MotionAtState&&) noexcept = default;
const Eigen::VectorXd& MotionAtState::tau() const { return data_->tau; }
void MotionAtState::points(const RecursiveModel& m, const TreeNumbers<double>& p, std::span<const ItemIndex> items, double* r, double* v,
                           double* a) const {
  detail::pointsFromMotion(m, p, data_->motion, items, r, v, a);
}
void MotionAtState::massMatrix(const RecursiveModel& m, const TreeNumbers<double>& p, Eigen::MatrixXd& M) const {
  detail::massMatrixFrom(m, p, data_->motion, M);
}

namespace {
void bodyMomenta(const RecursiveModel& m, const TreeNumbers<double>& p, detail::MotionAtStateData& d, bool velocities) {
  const bool planar = m.dimension == 2;
  const auto nn = m.nodes.size();
  d.IV.resize(nn);
  d.IA.resize(nn);
  for (std::size_t k = 0; k < nn; ++k) {
    const auto& B = p.mech.bodies[static_cast<std::size_t>(m.nodes[k].body)];
    const auto& R = d.motion.frames[static_cast<std::size_t>(m.nodes[k].body)].R;
    if (velocities) d.IV[k] = detail::inertiaTimes(planar, B.mass, d.motion.centre[k], R, B.inertia, d.motion.V[k]);
    d.IA[k] = detail::inertiaTimes(planar, B.mass, d.motion.centre[k], R, B.inertia, d.motion.A[k]);
  }
}
}  // namespace

void MotionAtState::compute(const RecursiveModel& m, const TreeNumbers<double>& p, const double* z, const double* zd, const double* zdd,
                            double t) {
  detail::MotionAtStateData& d = *data_;
  d.z = Eigen::Map<const Eigen::VectorXd>(z, m.nz);
  d.zd = Eigen::Map<const Eigen::VectorXd>(zd, m.nz);
  d.zdd = Eigen::Map<const Eigen::VectorXd>(zdd, m.nz);
  d.t = t;
  d.tau.resize(m.nz);
  detail::treeMotion(m, p, z, zd, zdd, d.motion);
  detail::inverseDynamicsFrom(m, p, d.motion, z, zd, t, d.tau.data(), &d.F);
  bodyMomenta(m, p, d, true);
}

void MotionAtState::setAccelerations(const RecursiveModel& m, const TreeNumbers<double>& p, const double* zdd) {
  detail::MotionAtStateData& d = *data_;
  auto& mo = d.motion;
  thread_local std::vector<detail::Motion6<double>> shift;  // by node: how much its A moves
  shift.resize(m.nodes.size());
  for (std::size_t k = 0; k < m.nodes.size(); ++k) {
    const Node& n = m.nodes[k];
    detail::Motion6<double> s = n.parentNode >= 0 ? shift[static_cast<std::size_t>(n.parentNode)] : detail::zero6<double>();
    const bool quaternion = n.kind == NodeKind::Spherical || n.kind == NodeKind::FreeSpatial;
    for (int q = 0; q < n.nz; ++q) {
      const auto i = static_cast<std::size_t>(n.z + q);
      s = detail::plus(s, detail::times(mo.column[i], zdd[i] - d.zdd[static_cast<Eigen::Index>(i)]));
      if (!quaternion) mo.Ai[i] = detail::plus(mo.Ai[i], s);
    }
    if (quaternion)  // its columns' frame is the node's whole motion
      for (int q = 0; q < n.nz; ++q) mo.Ai[static_cast<std::size_t>(n.z + q)] = detail::plus(mo.A[k], s);
    mo.A[k] = detail::plus(mo.A[k], s);
    shift[k] = s;
  }
  d.zdd = Eigen::Map<const Eigen::VectorXd>(zdd, m.nz);
  detail::inverseDynamicsFrom(m, p, mo, d.z.data(), d.zd.data(), d.t, d.tau.data(), &d.F);
  bodyMomenta(m, p, d, false);
}

void inverseDynamicsDerivatives(const RecursiveModel& m, const TreeNumbers<double>& p, const Eigen::VectorXd& z,
                                const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd, double t, Eigen::VectorXd& tau,
                                Eigen::MatrixXd& tau_z, Eigen::MatrixXd& tau_zd) {
  MotionAtState state;
  state.compute(m, p, z.data(), zd.data(), zdd.data(), t);
  tau = state.tau();
  inverseDynamicsDerivatives(m, p, state, tau_z, tau_zd);
}

void inverseDynamicsDerivatives(const RecursiveModel& m, const TreeNumbers<double>& p, const MotionAtState& state, Eigen::MatrixXd& tau_z,
                                Eigen::MatrixXd& tau_zd) {
  inverseDynamicsDerivatives(m, p, state, tau_z, &tau_zd, false);
}

void inertiaProductDerivatives(const RecursiveModel& m, const TreeNumbers<double>& p, const MotionAtState& state, Eigen::MatrixXd& out) {
  inverseDynamicsDerivatives(m, p, state, out, nullptr, true);
}

void inverseDynamicsDerivatives(const RecursiveModel& m, const TreeNumbers<double>& p, const MotionAtState& state, Eigen::MatrixXd& tau_z,
                                Eigen::MatrixXd* tau_zd_out, bool inertial) {
  const int nz = m.nz;
  const auto nn = m.nodes.size();
  thread_local Eigen::MatrixXd unused;
  Eigen::MatrixXd& tau_zd = tau_zd_out ? *tau_zd_out : unused;
  tau_z.setZero(nz, nz);
  tau_zd.setZero(nz, nz);
  if (nz == 0) return;
  const detail::MotionAtStateData& st = state.data();
  const detail::TreeMotion<double>& motion = st.motion;
  const bool planar = m.dimension == 2;
  // the inertial part alone, ∂(M^d e)/∂z at a state at rest (ż = 0, z̈ = e): no weight, no force
  // element, and the subtrees' wrenches their I A alone
  const Vector3d g = inertial ? Vector3d::Zero() : Vector3d(p.mech.gravity);

  // Per subtree (node n and everything after it), sums over its bodies k that make every
  // coordinate's column of ∂(subtree wrench) a few products with the coordinate's own s, b = s × V_i
  // and e = b × V_i − s × A_i (V_i, A_i: the frame that carries s). Body k's part of ∂/∂z_i is
  //   s ×* I A + I (e − b × V) + (s × V − b) ×* I V + V ×* (s ×* I V − I b) − [0; (s_v + s_ω × c) × m g],
  // and of ∂/∂ż_i  I (s × V − 2b) + s ×* I V + V ×* I s, so with crm(V) x = V × x,
  // crf(V) f = V ×* f and Bf(f) x = x ×* f:
  //   G  = Bf(ΣIA) s + Ic e + X s + Y b − Bf(ΣIV) b − [0; s_v × M g + (s_ω × H) × g],
  //   Gd = −Y s − 2 Ic b + Bf(ΣIV) s,
  // X = Σ crf(V) Bf(IV) − Bf(IV) crm(V), Y = Σ I crm(V) − crf(V) I, Ic = Σ I, M = Σ m, H = Σ m c.
  // By V ×* (s ×* f) − (V × s) ×* f = s ×* (V ×* f), X = Bf(Σ V ×* I V): a 6-vector's sum; and
  // crf(V) = −crm(V)ᵀ with I symmetric makes Y = I crm(V) + (I crm(V))ᵀ.
  struct Subtree {
    Mat6 Y, Ic;
    Vec6 IA, IV, F, X;  // X: Σ V ×* I V, with ΣIA what s ×* pairs with
    double mass;
    Vector3d moment;  // Σ m c
  };
  thread_local std::vector<Subtree> sub;
  sub.resize(nn);
  auto crm = [](const Vec6& v) {
    Mat6 c = Mat6::Zero();
    c.topLeftCorner<3, 3>() = c.bottomRightCorner<3, 3>() = skew(v.tail<3>());
    c.topRightCorner<3, 3>() = skew(v.head<3>());
    return c;
  };
  auto forceCross = [](const Vec6& f) {  // Bf(f): x ↦ x ×* f
    Mat6 c = Mat6::Zero();
    c.topRightCorner<3, 3>() = c.bottomLeftCorner<3, 3>() = -skew(f.head<3>());
    c.bottomRightCorner<3, 3>() = -skew(f.tail<3>());
    return c;
  };
  for (std::size_t k = 0; k < nn; ++k) {
    const Node& n = m.nodes[k];
    const auto& B = p.mech.bodies[static_cast<std::size_t>(n.body)];
    const auto& Rf = motion.frames[static_cast<std::size_t>(n.body)].R;
    const Eigen::Matrix3d R = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(Rf.a);
    const Vector3d c = vec3(motion.centre[k]);
    Eigen::Matrix3d Jc = R * B.inertia * R.transpose();
    if (planar) Jc = B.inertia(2, 2) * Vector3d::UnitZ() * Vector3d::UnitZ().transpose();  // only I_zz acts in the plane
    Subtree& t = sub[k];
    t.Ic = spatialInertia(B.mass, c, Jc);
    t.IV = vec6(st.IV[k]);
    t.IA = vec6(st.IA[k]);
    t.F = vec6(st.F[k]);
    const Vec6 V = vec6(motion.V[k]);
    t.X = crossForce(V, t.IV);
    t.Y.noalias() = t.Ic * crm(V);
    t.Y += t.Y.transpose().eval();
    t.mass = B.mass;
    t.moment = B.mass * c;
  }
  for (std::size_t k = nn; k-- > 0;)
    for (int c : m.children[k]) {
      Subtree& t = sub[k];
      const Subtree& u = sub[static_cast<std::size_t>(c)];
      t.X += u.X;
      t.Y += u.Y;
      t.Ic += u.Ic;
      t.IA += u.IA;
      t.IV += u.IV;
      t.mass += u.mass;
      t.moment += u.moment;
    }  // F is the subtree's already
  if (inertial)
    for (std::size_t k = 0; k < nn; ++k) sub[k].F = sub[k].IA;  // at rest: I A, no V ×* I V

  // per column j at node n: what S_j · G and S_j · Gd read of n's subtree, as vectors to pair with
  // s, b and e (Bf(f)ᵀ = −Bf(f)); uc pairs with s for the turn of a column carried by z_i
  struct Reads {
    Vec6 us, ub, ue, uc;
  };
  thread_local std::vector<Reads> reads;
  thread_local std::vector<Vec6> S, dV;
  thread_local detail::ColumnDerivatives columns;
  detail::columnDerivatives(m, p, motion, st.z.data(), st.zd.data(), st.zdd.data(), false, columns);
  reads.resize(static_cast<std::size_t>(nz));
  S.resize(static_cast<std::size_t>(nz));
  dV.resize(static_cast<std::size_t>(nz));
  const std::vector<int>& nodeOf = motion.nodeOf;
  for (std::size_t j = 0; j < S.size(); ++j) {
    S[j] = vec6(motion.column[j]);
    dV[j] = vec6(columns.columns[j].dV);
    const Subtree& t = sub[static_cast<std::size_t>(nodeOf[j])];
    Reads& r = reads[j];
    const Vector3d a = S[j].tail<3>();
    r.us = -crossForce(S[j], t.X + t.IA);  // Bf(f)ᵀ S = −S ×* f
    r.us.head<3>() -= (t.mass * g).cross(a);
    r.us.tail<3>() -= t.moment.cross(g.cross(a));
    r.ub = t.Y.transpose() * S[j] + crossForce(S[j], t.IV);
    r.ue = t.Ic * S[j];
    r.uc = -crossForce(S[j], t.F);
  }
  auto within = [&](std::size_t k, std::size_t of) { return m.inSubtree(k, of); };
  for (int i = 0; i < nz; ++i) {
    const auto ui = static_cast<std::size_t>(i);
    const auto ni = static_cast<std::size_t>(nodeOf[ui]);
    const Vec6& s = S[ui];
    // the body k after i moves by ∂V_k = s × V_k − b, ∂A_k = s × A_k − b × V_k + e and
    // ∂A_k/∂ż_i = s × V_k − 2b (one-axis columns: b = s × V_i, e = b × V_i − s × A_i)
    const detail::ColumnMotion& cm = columns.columns[ui];
    const Vec6 b = -dV[ui];
    const Vec6 e = vec6(cm.dA) - crossMotion(dV[ui], vec6(cm.Vref));
    const bool quaternion = columns.quaternion[ui] != 0;
    bool above = false;  // a column above i's node: G of i's whole subtree
    for (int j = 0; j < nz; ++j) {
      const auto uj = static_cast<std::size_t>(j);
      const auto nj = static_cast<std::size_t>(nodeOf[uj]);
      if (within(nj, ni)) {
        const Reads& r = reads[uj];
        double v = r.us.dot(s) + r.ub.dot(b) + r.ue.dot(e);
        // the column's turn, F · ∂S_j/∂z_i: s × S_j where i carries S_j, exact inside a quaternion node
        if (quaternion && nj == ni) v += sub[nj].F.dot(vec6(columns.turn[uj][static_cast<std::size_t>(i - m.nodes[ni].z)]));
        else if (nj != ni || j > i) v -= r.uc.dot(s);
        tau_z(j, i) = v;
        if (!inertial) tau_zd(j, i) = -r.ub.dot(s) - 2 * r.ue.dot(b);
      } else if (within(ni, nj)) {
        above = true;
      }
    }
    if (!above) continue;
    const Subtree& t = sub[ni];
    const Mat6 Bv = forceCross(t.IV);
    Vec6 G = crossForce(s, t.IA + t.X) + t.Ic * e + t.Y * b - Bv * b;
    G.tail<3>() -= s.head<3>().cross(t.mass * g) + s.tail<3>().cross(t.moment).cross(g);
    const Vec6 Gd = inertial ? Vec6::Zero().eval() : Vec6(-(t.Y * s) - 2 * (t.Ic * b) + Bv * s);  // ∂/∂ż (none at rest)
    for (int j = 0; j < nz; ++j) {
      const auto uj = static_cast<std::size_t>(j);
      const auto nj = static_cast<std::size_t>(nodeOf[uj]);
      if (nj == ni || !within(ni, nj)) continue;
      tau_z(j, i) = S[uj].dot(G);
      tau_zd(j, i) = S[uj].dot(Gd);
    }
  }

  if (inertial) return;
  // torsion springs of tree joints: on their own coordinate (Q = sign · (−k (angle − θ₀) − c rate))
  detail::forEachTreeTorsionSpring(m, p.mech, [&](const Node& n, const auto& fn) {
    tau_z(n.z, n.z) += fn.stiffness;  // sign² = 1
    tau_zd(n.z, n.z) += fn.damping;
  });
  // every other force element by its law along its bodies' twists
  addForceElementDerivatives(m, p, motion, st.t, S, dV, within, tau_z, tau_zd);
}

}  // namespace lw::dyn
