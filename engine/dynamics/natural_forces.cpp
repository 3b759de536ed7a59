// The force elements on the natural coordinates (NaturalForceElements, natural_dynamics.h): the
// bodies as the natural coordinates place them, the elements' laws of force_elements.h, and their
// forces and torques by virtual work onto each body's origin and directions.
#include <cmath>

#include <Eigen/Geometry>
#include <Eigen/LU>

#include "dynamics/force_elements.h"
#include "dynamics/natural_dynamics.h"

namespace lw::dyn {

using detail::M3;
using detail::V3;

namespace {

// a body as its natural coordinates place it: its origin O (and rate), the turn from its stored
// frame, ω; and what the virtual work reads: planar, its direction d; spatial, the reciprocal basis
// of its frame X = [d, d', w] (the rows of X⁻¹)
struct BodyState {
  Eigen::Vector3d o = Eigen::Vector3d::Zero(), od = Eigen::Vector3d::Zero(), omega = Eigen::Vector3d::Zero();
  Eigen::Matrix3d turn = Eigen::Matrix3d::Identity(), Xinv = Eigen::Matrix3d::Identity();
  Eigen::Vector2d d = Eigen::Vector2d::UnitX();
};

Eigen::Vector3d entityAt(const kin::NaturalModel& m, int e, const Eigen::VectorXd& x, bool rate) {
  const kin::Entity& en = m.entities[static_cast<std::size_t>(e)];
  if (en.fixed()) return rate ? Eigen::Vector3d::Zero() : en.value;
  Eigen::Vector3d v = Eigen::Vector3d::Zero();
  v.head(m.dimension) = x.segment(en.offset, m.dimension);
  return v;
}

// direction d (a − b, or a) at x, and its stored value
Eigen::Vector3d directionAt(const kin::NaturalModel& m, const kin::Direction& d, const Eigen::VectorXd& x, bool rate) {
  Eigen::Vector3d v = entityAt(m, d.a, x, rate);
  if (d.b >= 0) v -= entityAt(m, d.b, x, rate);
  return v;
}

BodyState bodyState(const kin::NaturalModel& m, int b, const Eigen::VectorXd& q, const Eigen::VectorXd& qd) {
  BodyState p;
  if (b == 0) return p;
  const kin::BodyFrame& f = m.bodies[static_cast<std::size_t>(b)];
  p.o = entityAt(m, f.origin, q, false);
  p.od = entityAt(m, f.origin, qd, true);
  if (m.dimension == 2) {
    // d turned from d0 (normalised: a stretched d turns the frame, it does not scale it)
    const Eigen::Vector2d d = directionAt(m, f.d[0], q, false).head<2>(), dd = directionAt(m, f.d[0], qd, true).head<2>();
    const Eigen::Vector2d d0 = f.ownValue(m.entities, f.d[0]).head<2>();  // as the body's stored pose places it
    const double L2 = d.squaredNorm(), scale = 1 / (std::sqrt(L2) * d0.norm());
    const double c = d.dot(d0) * scale, s = (d0.x() * d.y() - d0.y() * d.x()) * scale;
    p.turn.topLeftCorner<2, 2>() << c, -s, s, c;
    p.omega.z() = (d.x() * dd.y() - d.y() * dd.x()) / L2;
    p.d = d;
    return p;
  }
  Eigen::Matrix3d X, Xd, X0;
  for (int i = 0; i < 3; ++i) {
    X.col(i) = directionAt(m, f.d[i], q, false);
    Xd.col(i) = directionAt(m, f.d[i], qd, true);
    X0.col(i) = f.ownValue(m.entities, f.d[i]);
  }
  p.Xinv = X.inverse();
  p.turn = X * X0.inverse();
  const Eigen::Matrix3d W = Xd * p.Xinv;  // [ω]× for a rigid motion
  p.omega = 0.5 * Eigen::Vector3d(W(2, 1) - W(1, 2), W(0, 2) - W(2, 0), W(1, 0) - W(0, 1));
  return p;
}

V3<double> v3(const Eigen::Vector3d& v) { return {{v.x(), v.y(), v.z()}}; }

// what forceElements asks of the bodies, from (q, q̇)
struct Bodies {
  const kin::NaturalModel& m;
  const ResolvedMechanism& mech;
  const Eigen::VectorXd& q;
  const Eigen::VectorXd& qd;
  const std::vector<BodyState>& states;
  void point(const ItemIndex& item, V3<double>& r, V3<double>& v) const {
    Eigen::Vector3d rr, vv;
    kin::pointKinematics(m, item.body, item.index, q, qd, qd, &rr, &vv, nullptr);
    r = v3(rr);
    v = v3(vv);
  }
  M3<double> rotation(int body) const {
    const Eigen::Matrix3d R = body == 0 ? Eigen::Matrix3d::Identity()
                                        : Eigen::Matrix3d(states[static_cast<std::size_t>(body)].turn * mech.bodies[static_cast<std::size_t>(body)].rotation);
    M3<double> out;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) out(i, j) = R(i, j);
    return out;
  }
  V3<double> omega(int body) const { return v3(states[static_cast<std::size_t>(body)].omega); }
  void centre(int body, V3<double>& r, V3<double>& v) const {
    if (body == 0) {
      r = v = {{0.0, 0.0, 0.0}};
      return;
    }
    // the centre's offset from O turns with the body
    const auto& b = mech.bodies[static_cast<std::size_t>(body)];
    const BodyState& p = states[static_cast<std::size_t>(body)];
    const Eigen::Vector3d c =
        p.turn * ((b.position + b.rotation * b.com) - m.bodies[static_cast<std::size_t>(body)].ownValue(m.entities, m.bodies[static_cast<std::size_t>(body)].origin));
    r = v3(p.o + c);
    v = v3(p.od + p.omega.cross(c));
  }
};

}  // namespace

NaturalForceElements::NaturalForceElements(const RecursiveModel& tree, const TreeNumbers<double>& numbers, const kin::NaturalModel& m)
    : tree_(tree), numbers_(numbers), m_(m) {
  empty_ = tree.mechanism->forces.empty();
  near_.assign(tree.mechanism->forces.size(), 0.0);  // the stored configuration's: every angle zero
  measured_ = near_;
}

void NaturalForceElements::accept(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd) {
  if (empty_) return;
  Eigen::VectorXd scratch = Eigen::VectorXd::Zero(m_.nq);
  add(t, q, qd, scratch);
  near_ = measured_;
}

void NaturalForceElements::add(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd, Eigen::VectorXd& Q) const {
  if (empty_) return;
  const int dim = m_.dimension;
  std::vector<BodyState> states(m_.bodies.size());
  for (std::size_t b = 1; b < m_.bodies.size(); ++b) states[b] = bodyState(m_, static_cast<int>(b), q, qd);
  const Bodies bodies{m_, *tree_.mechanism, q, qd, states};
  const detail::TorsionTurns turns{near_.data(), measured_.data()};
  auto addOn = [&](int e, const Eigen::Vector3d& g) {  // fixed entities take nothing
    if (e < 0) return;
    const kin::Entity& en = m_.entities[static_cast<std::size_t>(e)];
    if (!en.fixed()) Q.segment(en.offset, dim) += g.head(dim);
  };
  auto onDirection = [&](int body, int i, const Eigen::Vector3d& g) {
    const kin::Direction& d = m_.bodies[static_cast<std::size_t>(body)].d[i];
    addOn(d.a, g);
    if (d.b >= 0) addOn(d.b, -g);
  };
  detail::forceElements<double>(
      tree_, numbers_, t, bodies,
      [&](int body, const V3<double>& at, const V3<double>& F) {
        if (body == 0) return;
        const BodyState& p = states[static_cast<std::size_t>(body)];
        const Eigen::Vector3d f(F[0], F[1], F[2]), r = Eigen::Vector3d(at[0], at[1], at[2]) - p.o;
        addOn(m_.bodies[static_cast<std::size_t>(body)].origin, f);
        if (dim == 2) {
          // p = O + a d + b R90 d: F on O, a F + b R90ᵀF on d
          const Eigen::Vector2d n(-p.d.y(), p.d.x());
          const double L2 = p.d.squaredNorm(), a = r.head<2>().dot(p.d) / L2, b = r.head<2>().dot(n) / L2;
          onDirection(body, 0, a * f + b * Eigen::Vector3d(f.y(), -f.x(), 0));
        } else {
          const Eigen::Vector3d rho = p.Xinv * r;  // p = O + X ρ: ρ_i F on x_i
          for (int i = 0; i < 3; ++i) onDirection(body, i, rho[i] * f);
        }
      },
      [&](int body, const V3<double>& T) {
        if (body == 0) return;
        const BodyState& p = states[static_cast<std::size_t>(body)];
        const Eigen::Vector3d tq(T[0], T[1], T[2]);
        if (dim == 2) {
          // d's virtual turn δθ = (d × δd)/|d|²: T R90 d / |d|² on d
          onDirection(body, 0, (tq.z() / p.d.squaredNorm()) * Eigen::Vector3d(-p.d.y(), p.d.x(), 0));
        } else {
          // δθ = ½ Σ x̃_i × δx_i (x̃_i the reciprocal basis): ½ T × x̃_i on x_i
          for (int i = 0; i < 3; ++i) onDirection(body, i, 0.5 * tq.cross(Eigen::Vector3d(p.Xinv.row(i).transpose())));
        }
      },
      true, &turns);
}

void appliedForces(const NaturalInertia& inertia, double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd, Eigen::VectorXd& Q) {
  Q = inertia.gravity;
  if (inertia.elements) inertia.elements->add(t, q, qd, Q);
}

}  // namespace lw::dyn
