// The force elements on the planar natural coordinates (NaturalForceElements, natural_dynamics.h):
// the bodies as the natural coordinates place them, the elements' laws of force_elements.h, and
// their forces and torques by virtual work onto each body's origin and direction.
#include <cmath>

#include <Eigen/Geometry>
#include <Eigen/LU>

#include "dynamics/force_elements.h"
#include "dynamics/natural_dynamics.h"

namespace lw::dyn {

using detail::M3;
using detail::V3;

namespace {

// a planar body as its natural coordinates place it: origin O, direction d (and their rates)
struct PlanarBody {
  Eigen::Vector2d o = Eigen::Vector2d::Zero(), od = Eigen::Vector2d::Zero(), d = Eigen::Vector2d::UnitX(), dd = Eigen::Vector2d::Zero();
  double omega = 0;
  double turnC = 1, turnS = 0;  // the turn from the stored frame
};

Eigen::Vector2d entityAt(const kin::NaturalModel& m, int e, const Eigen::VectorXd& x, bool rate) {
  const kin::Entity& en = m.entities[static_cast<std::size_t>(e)];
  if (en.fixed()) return rate ? Eigen::Vector2d::Zero() : Eigen::Vector2d(en.value.head<2>());
  return x.segment<2>(en.offset);
}

PlanarBody planarBody(const kin::NaturalModel& m, int b, const Eigen::VectorXd& q, const Eigen::VectorXd& qd) {
  PlanarBody p;
  if (b == 0) return p;
  const kin::BodyFrame& f = m.bodies[static_cast<std::size_t>(b)];
  p.o = entityAt(m, f.origin, q, false);
  p.od = entityAt(m, f.origin, qd, true);
  p.d = entityAt(m, f.d[0].a, q, false);
  p.dd = entityAt(m, f.d[0].a, qd, true);
  Eigen::Vector2d d0 = m.entities[static_cast<std::size_t>(f.d[0].a)].value.head<2>();
  if (f.d[0].b >= 0) {
    p.d -= entityAt(m, f.d[0].b, q, false);
    p.dd -= entityAt(m, f.d[0].b, qd, true);
    d0 -= m.entities[static_cast<std::size_t>(f.d[0].b)].value.head<2>();
  }
  const double L2 = p.d.squaredNorm();
  p.omega = (p.d.x() * p.dd.y() - p.d.y() * p.dd.x()) / L2;
  const double scale = 1 / (std::sqrt(L2) * d0.norm());
  p.turnC = p.d.dot(d0) * scale;
  p.turnS = (d0.x() * p.d.y() - d0.y() * p.d.x()) * scale;
  return p;
}

V3<double> v3(const Eigen::Vector3d& v) { return {{v.x(), v.y(), v.z()}}; }

// a spatial body with a linear frame: its basis X = [d, d', w] and rate, the reciprocal basis
// (rows of X⁻¹: what a torque acts on), the turn X X0⁻¹ from the stored frame, ω from Ẋ = ω × X
struct SpatialBody {
  Eigen::Vector3d o = Eigen::Vector3d::Zero(), od = Eigen::Vector3d::Zero(), omega = Eigen::Vector3d::Zero();
  Eigen::Matrix3d X = Eigen::Matrix3d::Identity(), Xinv = Eigen::Matrix3d::Identity(), turn = Eigen::Matrix3d::Identity();
};

Eigen::Vector3d entity3(const kin::NaturalModel& m, int e, const Eigen::VectorXd& x, bool rate) {
  const kin::Entity& en = m.entities[static_cast<std::size_t>(e)];
  if (en.fixed()) return rate ? Eigen::Vector3d::Zero() : en.value;
  return x.segment<3>(en.offset);
}

SpatialBody spatialBody(const kin::NaturalModel& m, int b, const Eigen::VectorXd& q, const Eigen::VectorXd& qd) {
  SpatialBody p;
  if (b == 0) return p;
  const kin::BodyFrame& f = m.bodies[static_cast<std::size_t>(b)];
  Eigen::Matrix3d Xd, X0;
  for (int i = 0; i < 3; ++i) {
    const kin::Direction& d = f.d[i];
    p.X.col(i) = entity3(m, d.a, q, false);
    Xd.col(i) = entity3(m, d.a, qd, true);
    X0.col(i) = m.entities[static_cast<std::size_t>(d.a)].value;
    if (d.b >= 0) {
      p.X.col(i) -= entity3(m, d.b, q, false);
      Xd.col(i) -= entity3(m, d.b, qd, true);
      X0.col(i) -= m.entities[static_cast<std::size_t>(d.b)].value;
    }
  }
  p.o = entity3(m, f.origin, q, false);
  p.od = entity3(m, f.origin, qd, true);
  p.Xinv = p.X.inverse();
  p.turn = p.X * X0.inverse();
  const Eigen::Matrix3d W = Xd * p.Xinv;  // [ω]× for a rigid motion
  p.omega = 0.5 * Eigen::Vector3d(W(2, 1) - W(1, 2), W(0, 2) - W(2, 0), W(1, 0) - W(0, 1));
  return p;
}

// what forceElements asks of spatial bodies, from (q, q̇)
struct SpatialBodies {
  const kin::NaturalModel& m;
  const ResolvedMechanism& mech;
  const Eigen::VectorXd& q;
  const Eigen::VectorXd& qd;
  const std::vector<SpatialBody>& bodies;
  void point(const ItemIndex& item, V3<double>& r, V3<double>& v) const {
    Eigen::Vector3d rr, vv;
    kin::pointKinematics(m, item.body, item.index, q, qd, qd, &rr, &vv, nullptr);
    r = v3(rr);
    v = v3(vv);
  }
  M3<double> rotation(int body) const {
    const Eigen::Matrix3d R = body == 0 ? Eigen::Matrix3d::Identity()
                                        : Eigen::Matrix3d(bodies[static_cast<std::size_t>(body)].turn * mech.bodies[static_cast<std::size_t>(body)].rotation);
    M3<double> out;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) out(i, j) = R(i, j);
    return out;
  }
  V3<double> omega(int body) const { return v3(bodies[static_cast<std::size_t>(body)].omega); }
  void centre(int body, V3<double>& r, V3<double>& v) const {
    if (body == 0) {
      r = v = {{0.0, 0.0, 0.0}};
      return;
    }
    const auto& b = mech.bodies[static_cast<std::size_t>(body)];
    const SpatialBody& p = bodies[static_cast<std::size_t>(body)];
    const kin::BodyFrame& f = m.bodies[static_cast<std::size_t>(body)];
    const Eigen::Vector3d c = p.turn * ((b.position + b.rotation * b.com) - m.entities[static_cast<std::size_t>(f.origin)].value);
    r = v3(p.o + c);
    v = v3(p.od + p.omega.cross(c));
  }
};

// what forceElements asks of the bodies, from (q, q̇)
struct Bodies {
  const kin::NaturalModel& m;
  const ResolvedMechanism& mech;
  const Eigen::VectorXd& q;
  const Eigen::VectorXd& qd;
  const std::vector<PlanarBody>& planar;
  void point(const ItemIndex& item, V3<double>& r, V3<double>& v) const {
    Eigen::Vector3d rr, vv;
    kin::pointKinematics(m, item.body, item.index, q, qd, qd, &rr, &vv, nullptr);
    r = v3(rr);
    v = v3(vv);
  }
  M3<double> rotation(int body) const {
    const PlanarBody& p = planar[static_cast<std::size_t>(body)];
    M3<double> turn = detail::identity<double>();
    turn(0, 0) = p.turnC, turn(0, 1) = -p.turnS, turn(1, 0) = p.turnS, turn(1, 1) = p.turnC;
    return body == 0 ? turn : detail::mul(turn, mech.bodies[static_cast<std::size_t>(body)].rotation);
  }
  V3<double> omega(int body) const { return {{0.0, 0.0, planar[static_cast<std::size_t>(body)].omega}}; }
  void centre(int body, V3<double>& r, V3<double>& v) const {
    if (body == 0) {
      r = v = {{0.0, 0.0, 0.0}};
      return;
    }
    const auto& b = mech.bodies[static_cast<std::size_t>(body)];
    const PlanarBody& p = planar[static_cast<std::size_t>(body)];
    const kin::BodyFrame& f = m.bodies[static_cast<std::size_t>(body)];
    // the centre's offset from O turns with the body
    const Eigen::Vector2d c0 = (b.position + b.rotation * b.com).head<2>() - m.entities[static_cast<std::size_t>(f.origin)].value.head<2>();
    const Eigen::Vector2d c(p.turnC * c0.x() - p.turnS * c0.y(), p.turnS * c0.x() + p.turnC * c0.y());
    r = {{p.o.x() + c.x(), p.o.y() + c.y(), 0.0}};
    v = {{p.od.x() - p.omega * c.y(), p.od.y() + p.omega * c.x(), 0.0}};
  }
};

// Q's entries of entity e (its two coordinates) += g; fixed entities take nothing
void addOn(const kin::NaturalModel& m, int e, const Eigen::Vector2d& g, Eigen::VectorXd& Q) {
  if (e < 0) return;
  const kin::Entity& en = m.entities[static_cast<std::size_t>(e)];
  if (!en.fixed()) Q.segment<2>(en.offset) += g;
}

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
  if (m_.dimension == 3) {
    addSpatial(t, q, qd, Q);
    return;
  }
  std::vector<PlanarBody> planar(m_.bodies.size());
  for (std::size_t b = 1; b < m_.bodies.size(); ++b) planar[b] = planarBody(m_, static_cast<int>(b), q, qd);
  const Bodies bodies{m_, *tree_.mechanism, q, qd, planar};
  const detail::TorsionTurns turns{near_.data(), measured_.data()};
  // d's virtual turn: δθ = (d × δd)/|d|², so a torque T does T R90 d / |d|² on d
  auto onDirection = [&](int body, const Eigen::Vector2d& g) {
    const kin::BodyFrame& f = m_.bodies[static_cast<std::size_t>(body)];
    addOn(m_, f.d[0].a, g, Q);
    if (f.d[0].b >= 0) addOn(m_, f.d[0].b, -g, Q);
  };
  detail::forceElements<double>(
      tree_, numbers_, t, bodies,
      [&](int body, const V3<double>& at, const V3<double>& F) {
        if (body == 0) return;
        const PlanarBody& p = planar[static_cast<std::size_t>(body)];
        const Eigen::Vector2d r = Eigen::Vector2d(at[0], at[1]) - p.o, f(F[0], F[1]), n(-p.d.y(), p.d.x());  // n = R90 d
        const double L2 = p.d.squaredNorm(), a = r.dot(p.d) / L2, b = r.dot(n) / L2;
        addOn(m_, m_.bodies[static_cast<std::size_t>(body)].origin, f, Q);
        onDirection(body, a * f + b * Eigen::Vector2d(f.y(), -f.x()));  // a F + b R90ᵀ F
      },
      [&](int body, const V3<double>& T) {
        if (body == 0) return;
        const PlanarBody& p = planar[static_cast<std::size_t>(body)];
        onDirection(body, (T[2] / p.d.squaredNorm()) * Eigen::Vector2d(-p.d.y(), p.d.x()));
      },
      true, &turns);
}

void NaturalForceElements::addSpatial(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd, Eigen::VectorXd& Q) const {
  std::vector<SpatialBody> bodies(m_.bodies.size());
  for (std::size_t b = 1; b < m_.bodies.size(); ++b) bodies[b] = spatialBody(m_, static_cast<int>(b), q, qd);
  const SpatialBodies view{m_, *tree_.mechanism, q, qd, bodies};
  const detail::TorsionTurns turns{near_.data(), measured_.data()};
  auto addOn3 = [&](int e, const Eigen::Vector3d& g) {
    if (e < 0) return;
    const kin::Entity& en = m_.entities[static_cast<std::size_t>(e)];
    if (!en.fixed()) Q.segment<3>(en.offset) += g;
  };
  // on the basis column i: its direction's entities
  auto onColumn = [&](int body, int i, const Eigen::Vector3d& g) {
    const kin::Direction& d = m_.bodies[static_cast<std::size_t>(body)].d[i];
    addOn3(d.a, g);
    if (d.b >= 0) addOn3(d.b, -g);
  };
  detail::forceElements<double>(
      tree_, numbers_, t, view,
      [&](int body, const V3<double>& at, const V3<double>& F) {
        if (body == 0) return;
        const SpatialBody& p = bodies[static_cast<std::size_t>(body)];
        const Eigen::Vector3d f(F[0], F[1], F[2]);
        const Eigen::Vector3d rho = p.Xinv * (Eigen::Vector3d(at[0], at[1], at[2]) - p.o);  // δr = δO + δX ρ
        addOn3(m_.bodies[static_cast<std::size_t>(body)].origin, f);
        for (int i = 0; i < 3; ++i) onColumn(body, i, rho[i] * f);
      },
      [&](int body, const V3<double>& T) {
        if (body == 0) return;
        // δθ = ½ Σ x̃_i × δx_i (x̃_i the reciprocal basis): T·δθ puts ½ T × x̃_i on x_i
        const SpatialBody& p = bodies[static_cast<std::size_t>(body)];
        const Eigen::Vector3d tq(T[0], T[1], T[2]);
        for (int i = 0; i < 3; ++i) onColumn(body, i, 0.5 * tq.cross(Eigen::Vector3d(p.Xinv.row(i).transpose())));
      },
      true, &turns);
}

void appliedForces(const NaturalInertia& inertia, double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd, Eigen::VectorXd& Q) {
  Q = inertia.gravity;
  if (inertia.elements) inertia.elements->add(t, q, qd, Q);
}

}  // namespace lw::dyn
