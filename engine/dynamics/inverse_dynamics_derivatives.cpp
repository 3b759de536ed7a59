#include "dynamics/inverse_dynamics_derivatives.h"

#include <Eigen/Geometry>
#include <vector>

#include "dynamics/tree_motion.h"
#include "numeric/dual.h"

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

struct Body {
  Mat6 I;
  Vec6 V, A;  // velocity, acceleration
  Vector3d centre, weight;
};

}  // namespace

std::string inverseDynamicsDerivativesUnsupported(const RecursiveModel& m, const TreeNumbers<double>& p) {
  // a quaternion's columns are not carried rigidly by the frames before them (∂S/∂q ≠ S × S)
  for (const Node& n : m.nodes)
    if (n.kind == NodeKind::Spherical || n.kind == NodeKind::FreeSpatial) return "a quaternion joint (body " + std::to_string(n.body) + ")";
  const auto& mech = *m.mechanism;
  for (std::size_t f = 0; f < mech.forces.size(); ++f) {
    if (!p.mech.forces[f].active) continue;
    const auto& force = mech.forces[f];
    if (force.type == Force::Type::TorsionSpring && m.treeJointNode[static_cast<std::size_t>(force.joint)] >= 0) continue;
    return "force element '" + force.name + "'";
  }
  return {};
}

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
  const int nz = m.nz;
  const auto nn = m.nodes.size();
  tau_z.setZero(nz, nz);
  tau_zd.setZero(nz, nz);
  if (nz == 0) return;
  const detail::TreeMotion<double>& motion = state.data().motion;
  const std::vector<detail::Motion6<double>>& subtree = state.data().F;
  const auto& bodies = p.mech.bodies;
  const bool planar = m.dimension == 2;
  auto vec3 = [](const detail::V3<double>& a) { return Vector3d(a[0], a[1], a[2]); };
  auto vec6 = [&](const detail::Motion6<double>& a) {
    Vec6 r;
    r << vec3(a.v), vec3(a.w);
    return r;
  };
  std::vector<Vec6> S(static_cast<std::size_t>(nz)), Vi(S), Ai(S);
  for (std::size_t i = 0; i < S.size(); ++i) {
    S[i] = vec6(motion.column[i]);
    Vi[i] = vec6(motion.Vi[i]);
    Ai[i] = vec6(motion.Ai[i]);
  }
  const std::vector<int>& nodeOf = motion.nodeOf;
  std::vector<Body> body(nn);
  std::vector<Vec6> F(nn);
  for (std::size_t k = 0; k < nn; ++k) {
    const Node& n = m.nodes[k];
    const auto& B = bodies[static_cast<std::size_t>(n.body)];
    const auto& Rf = motion.frames[static_cast<std::size_t>(n.body)].R;
    const Eigen::Matrix3d R = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(Rf.a);
    Body& bk = body[k];
    bk.centre = vec3(motion.centre[k]);
    bk.V = vec6(motion.V[k]);
    bk.A = vec6(motion.A[k]);
    Eigen::Matrix3d Jc = R * B.inertia * R.transpose();
    if (planar) Jc = B.inertia(2, 2) * Vector3d::UnitZ() * Vector3d::UnitZ().transpose();  // only I_zz acts in the plane
    bk.I = spatialInertia(B.mass, bk.centre, Jc);
    bk.weight = p.mech.gravity * B.mass;
    F[k] = vec6(subtree[k]);
  }

  // coordinate by coordinate: every later body's wrench moved by z_i (and ż_i), summed over subtrees
  auto within = [&](std::size_t k, std::size_t of) {  // node k in node of's subtree
    return m.enter[of] <= m.enter[k] && m.enter[k] < m.leave[of];
  };
  std::vector<Vec6> G(nn), Gd(nn);
  for (int i = 0; i < nz; ++i) {
    const auto ui = static_cast<std::size_t>(i);
    const auto ni = static_cast<std::size_t>(nodeOf[ui]);
    const Vec6& s = S[ui];
    const Vec6 sxVi = crossMotion(s, Vi[ui]);
    const Vec6 dAdot = crossMotion(Vi[ui], s);  // the column's own rate: ∂A/∂ż_i's first term
    for (std::size_t k = nn; k-- > ni;) {
      if (!within(k, ni)) continue;
      const Body& bk = body[k];
      const Vec6 Vr = bk.V - Vi[ui], Ar = bk.A - Ai[ui];
      const Vec6 IV = bk.I * bk.V;
      // ∂/∂z_i: the body moved rigidly by s
      const Vec6 dV = crossMotion(s, Vr);
      const Vec6 dA = crossMotion(s, Ar) - crossMotion(sxVi, Vr);
      auto dI = [&](const Vec6& x) -> Vec6 { return crossForce(s, bk.I * x) - bk.I * crossMotion(s, x); };
      Vec6 g = dI(bk.A) + bk.I * dA + crossForce(dV, IV) + crossForce(bk.V, dI(bk.V) + bk.I * dV);
      const Vector3d dc = s.head<3>() + s.tail<3>().cross(bk.centre);
      g.tail<3>() -= dc.cross(bk.weight);
      // ∂/∂ż_i
      const Vec6 dAd = dAdot + crossMotion(s, Vr);
      Vec6 gd = bk.I * dAd + crossForce(s, IV) + crossForce(bk.V, bk.I * s);
      G[k] = g;
      Gd[k] = gd;
      for (int c : m.children[k]) {
        G[k] += G[static_cast<std::size_t>(c)];
        Gd[k] += Gd[static_cast<std::size_t>(c)];
      }
    }
    // project: columns j in i's subtree see their part of the sum (and their own turn when after
    // i); columns above it see the whole
    for (int j = 0; j < nz; ++j) {
      const auto uj = static_cast<std::size_t>(j);
      const auto nj = static_cast<std::size_t>(nodeOf[uj]);
      if (within(nj, ni)) {
        double v = S[uj].dot(G[nj]);
        if (nj != ni || j > i) v -= S[uj].dot(crossForce(s, F[nj]));
        tau_z(j, i) = v;
        tau_zd(j, i) = S[uj].dot(Gd[nj]);
      } else if (within(ni, nj)) {
        tau_z(j, i) = S[uj].dot(G[ni]);
        tau_zd(j, i) = S[uj].dot(Gd[ni]);
      }
    }
  }

  // torsion springs of tree joints: on their own coordinate (Q = sign · (−k (angle − θ₀) − c rate))
  detail::forEachTreeTorsionSpring(m, p.mech, [&](const Node& n, const auto& fn) {
    tau_z(n.z, n.z) += fn.stiffness;  // sign² = 1
    tau_zd(n.z, n.z) += fn.damping;
  });
}

}  // namespace lw::dyn
