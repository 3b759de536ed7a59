// The force elements on the natural coordinates (NaturalForceElements, natural_dynamics.h): the
// bodies as the natural coordinates place them, the elements' laws of force_elements.h, and their
// forces and torques by virtual work onto each body's origin and directions.
#include <cmath>
#include <span>

#include <Eigen/Geometry>
#include <Eigen/LU>

#include "dynamics/force_elements.h"
#include "dynamics/natural_dynamics.h"
#include "kinematics/natural_numbers.h"
#include "numeric/dual_eigen.h"
#include "numeric/scalar.h"

namespace lw::dyn {

using detail::M3;
using detail::V3;

namespace {

template <class P>
using Vec3 = Eigen::Matrix<P, 3, 1>;
template <class P>
using Mat3 = Eigen::Matrix<P, 3, 3>;

// a body as its natural coordinates place it: its origin O (and rate), the turn from its stored
// frame, ω; and what the virtual work reads: planar, its direction d; spatial, the reciprocal basis
// of its frame X = [d, d', w] (the rows of X⁻¹)
template <class P>
struct BodyState {
  Vec3<P> o = Vec3<P>::Zero(), od = Vec3<P>::Zero(), omega = Vec3<P>::Zero();
  Mat3<P> turn = Mat3<P>::Identity(), Xinv = Mat3<P>::Identity();
  Eigen::Matrix<P, 2, 1> d = Eigen::Matrix<P, 2, 1>::UnitX();
  Vec3<P> axis = Vec3<P>::UnitX();  // a rod's (spin-free) direction d
  bool rod = false;
};

// x·y and x·x of planar vectors without conjugation (a complex step's; on doubles Eigen's own)
template <class V>
auto dot2(const V& x, const V& y) {
  return x[0] * y[0] + x[1] * y[1];
}


template <class P, class Shape, class Xs>
Vec3<P> entityAt(const kin::NaturalModel& m, const Shape& shape, int e, const Xs& x, bool rate) {
  const kin::Entity& en = m.entities[static_cast<std::size_t>(e)];
  if (en.fixed()) return rate ? Vec3<P>::Zero() : Vec3<P>(shape.fixed(e));
  Vec3<P> v = Vec3<P>::Zero();
  for (int i = 0; i < m.dimension; ++i) v[i] = x[en.offset + i];
  return v;
}

// direction d (a − b, or a) at x
template <class P, class Shape, class Xs>
Vec3<P> directionAt(const kin::NaturalModel& m, const Shape& shape, const kin::Direction& d, const Xs& x, bool rate) {
  Vec3<P> v = entityAt<P>(m, shape, d.a, x, rate);
  if (d.b >= 0) v -= entityAt<P>(m, shape, d.b, x, rate);
  return v;
}

template <class P, class Shape, class Xs>
BodyState<P> bodyState(const kin::NaturalModel& m, const Shape& shape, int b, const Xs& q, const Xs& qd) {
  using std::sqrt;
  using Vec2 = Eigen::Matrix<P, 2, 1>;
  BodyState<P> p;
  if (b == 0) return p;
  const kin::BodyFrame& f = m.bodies[static_cast<std::size_t>(b)];
  p.o = entityAt<P>(m, shape, f.origin, q, false);
  p.od = entityAt<P>(m, shape, f.origin, qd, true);
  if (m.dimension == 2) {
    // d turned from d0 (normalised: a stretched d turns the frame, it does not scale it)
    const Vec2 d = directionAt<P>(m, shape, f.d[0], q, false).template head<2>(), dd = directionAt<P>(m, shape, f.d[0], qd, true).template head<2>();
    const Vec2 d0 = shape.own(b, f.d[0]).template head<2>();  // as the body's stored pose places it
    const P L2 = dot2(d, d), scale = 1.0 / (sqrt(L2) * sqrt(dot2(d0, d0)));
    const P c = dot2(d, d0) * scale, s = (d0.x() * d.y() - d0.y() * d.x()) * scale;
    p.turn.template topLeftCorner<2, 2>() << c, -s, s, c;
    p.omega.z() = (d.x() * dd.y() - d.y() * dd.x()) / L2;
    p.d = d;
    return p;
  }
  if (f.spinFree) {
    // a rod between ball joints: turned by the smallest rotation from its stored axis (its points'
    // placing), no spin: ω = d × ḋ / |d|²
    const Vec3<P> d = directionAt<P>(m, shape, f.d[0], q, false), dd = directionAt<P>(m, shape, f.d[0], qd, true);
    const P L2 = dot3(d, d);
    const Vec3<P> a = d / P(sqrt(L2)), a0 = shape.axis0(b), w = a0.cross(a);
    Mat3<P> W;
    W << P(0.0), -w.z(), w.y(), w.z(), P(0.0), -w.x(), -w.y(), w.x(), P(0.0);
    p.turn = Mat3<P>::Identity() + W + (P(1.0) / (P(1.0) + dot3(a0, a))) * (W * W);
    p.omega = d.cross(dd) / L2;
    p.axis = d;
    p.rod = true;
    return p;
  }
  Mat3<P> X, Xd, X0;
  for (int i = 0; i < 3; ++i) {
    X.col(i) = directionAt<P>(m, shape, f.d[i], q, false);
    Xd.col(i) = directionAt<P>(m, shape, f.d[i], qd, true);
    X0.col(i) = shape.own(b, f.d[i]);
  }
  p.Xinv = X.inverse();
  p.turn = X * X0.inverse();
  const Mat3<P> W = Xd * p.Xinv;  // [ω]× for a rigid motion
  p.omega = 0.5 * Vec3<P>(W(2, 1) - W(1, 2), W(0, 2) - W(2, 0), W(1, 0) - W(0, 1));
  return p;
}

template <class P>
V3<P> v3(const Vec3<P>& v) {
  return {{v.x(), v.y(), v.z()}};
}

// what forceElements asks of the bodies, from (q, q̇)
template <class P, class Shape, class Xs>
struct Bodies {
  const kin::NaturalModel& m;
  const Shape& shape;
  const MechanismNumbers<P>& mech;
  const Xs& q;
  const Xs& qd;
  const std::vector<BodyState<P>>& states;
  void point(const ItemIndex& item, V3<P>& r, V3<P>& v) const {
    Vec3<P> rr, vv;
    shape.point(item.body, item.index, q, qd, rr, vv);
    r = v3<P>(rr);
    v = v3<P>(vv);
  }
  M3<P> rotation(int body) const {
    const Mat3<P> R = body == 0 ? Mat3<P>::Identity()
                                : Mat3<P>(states[static_cast<std::size_t>(body)].turn * mech.bodies[static_cast<std::size_t>(body)].rotation);
    M3<P> out;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) out(i, j) = R(i, j);
    return out;
  }
  V3<P> omega(int body) const { return v3<P>(states[static_cast<std::size_t>(body)].omega); }
  void centre(int body, V3<P>& r, V3<P>& v) const {
    if (body == 0) {
      r = v = {{P(0.0), P(0.0), P(0.0)}};
      return;
    }
    // the centre's offset from O turns with the body
    const auto& b = mech.bodies[static_cast<std::size_t>(body)];
    const BodyState<P>& p = states[static_cast<std::size_t>(body)];
    const Vec3<P> c = p.turn * ((b.position + b.rotation * b.com) - shape.own(body, m.bodies[static_cast<std::size_t>(body)].origin));
    r = v3<P>(p.o + c);
    v = v3<P>(p.od + p.omega.cross(c));
  }
};

// Q += the elements' generalized forces on P with the shape `shape`
template <class P, class Shape, class Xs>
void addForces(const RecursiveModel& tree, const TreeNumbers<P>& numbers, const kin::NaturalModel& m, const Shape& shape, double t, const Xs& q,
               const Xs& qd, const detail::TorsionTurns& turns, Eigen::Matrix<P, Eigen::Dynamic, 1>& Q) {
  const int dim = m.dimension;
  std::vector<BodyState<P>> states(m.bodies.size());
  for (std::size_t b = 1; b < m.bodies.size(); ++b) states[b] = bodyState<P>(m, shape, static_cast<int>(b), q, qd);
  const Bodies<P, Shape, Xs> bodies{m, shape, numbers.mech, q, qd, states};
  auto addOn = [&](int e, const Vec3<P>& g) {  // fixed entities take nothing
    if (e < 0) return;
    const kin::Entity& en = m.entities[static_cast<std::size_t>(e)];
    if (!en.fixed()) Q.segment(en.offset, dim) += g.head(dim);
  };
  auto onDirection = [&](int body, int i, const Vec3<P>& g) {
    const kin::Direction& d = m.bodies[static_cast<std::size_t>(body)].d[i];
    addOn(d.a, g);
    if (d.b >= 0) addOn(d.b, -g);
  };
  detail::forceElements<P>(
      tree, numbers, t, bodies,
      [&](int body, const V3<P>& at, const V3<P>& F) {
        if (body == 0) return;
        const BodyState<P>& p = states[static_cast<std::size_t>(body)];
        const Vec3<P> f(F[0], F[1], F[2]), r = Vec3<P>(at[0], at[1], at[2]) - p.o;
        addOn(m.bodies[static_cast<std::size_t>(body)].origin, f);
        if (dim == 2) {
          // p = O + a d + b R90 d: F on O, a F + b R90ᵀF on d
          const Eigen::Matrix<P, 2, 1> n(-p.d.y(), p.d.x());
          const Eigen::Matrix<P, 2, 1> r2 = r.template head<2>();
          const P L2 = dot2(p.d, p.d), a = dot2(r2, p.d) / L2, b = dot2(r2, n) / L2;
          onDirection(body, 0, a * f + b * Vec3<P>(f.y(), -f.x(), P(0.0)));
        } else if (p.rod) {
          // r = a d + r⊥: a F on d, and r⊥ turned with the rod, δθ = d × δd/|d|²
          const P L2 = dot3(p.axis, p.axis), a = dot3(r, p.axis) / L2;
          const Vec3<P> perp = r - a * p.axis;
          onDirection(body, 0, a * f + perp.cross(f).cross(p.axis) / L2);
        } else {
          const Vec3<P> rho = p.Xinv * r;  // p = O + X ρ: ρ_i F on x_i
          for (int i = 0; i < 3; ++i) onDirection(body, i, rho[i] * f);
        }
      },
      [&](int body, const V3<P>& T) {
        if (body == 0) return;
        const BodyState<P>& p = states[static_cast<std::size_t>(body)];
        const Vec3<P> tq(T[0], T[1], T[2]);
        if (dim == 2) {
          // d's virtual turn δθ = (d × δd)/|d|²: T R90 d / |d|² on d
          onDirection(body, 0, (tq.z() / dot2(p.d, p.d)) * Vec3<P>(-p.d.y(), p.d.x(), P(0.0)));
        } else if (p.rod) {
          onDirection(body, 0, tq.cross(p.axis) / dot3(p.axis, p.axis));  // δθ = d × δd/|d|²
        } else {
          // δθ = ½ Σ x̃_i × δx_i (x̃_i the reciprocal basis): ½ T × x̃_i on x_i
          for (int i = 0; i < 3; ++i) onDirection(body, i, 0.5 * tq.cross(Vec3<P>(p.Xinv.row(i).transpose())));
        }
      },
      true, &turns);
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

void NaturalForceElements::continueFrom(const Eigen::VectorXd& z) {
  if (empty_) return;
  const auto& forces = tree_.mechanism->forces;
  for (std::size_t fi = 0; fi < forces.size(); ++fi) {
    if (forces[fi].type != Force::Type::TorsionSpring) continue;
    const int joint = forces[fi].joint;
    double q = 0;
    if (jointCoordinatesOn<double, double>(tree_, numbers_, z.data(), std::span<const int>(&joint, 1), &q))
      near_[fi] = q - storedJointCoordinate<double>(tree_, numbers_, joint);
  }
}

void NaturalForceElements::add(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd, Eigen::VectorXd& Q) const {
  if (empty_) return;
  const detail::TorsionTurns turns{near_.data(), measured_.data()};
  addForces<double>(tree_, numbers_, m_, kin::StoredShape<double>{m_}, t, q, qd, turns, Q);
}

template <class P>
void NaturalForceElements::addOn(const TreeNumbers<P>& numbers, const kin::NaturalNumbers<P>& shape, double t, const kin::CoordinatesOn<P>& q,
                                 const kin::CoordinatesOn<P>& qd, kin::CoordinatesOn<P>& Q) const {
  if (empty_) return;
  std::vector<double> measured(near_.size());  // the run's turns are not this evaluation's to move
  const detail::TorsionTurns turns{near_.data(), measured.data()};
  addForces<P>(tree_, numbers, m_, kin::StoredShape<P>{m_, &shape}, t, q, qd, turns, Q);
}
#define LW_FORCES_ON(P)                                                                                                                     \
  template void NaturalForceElements::addOn<P>(const TreeNumbers<P>&, const kin::NaturalNumbers<P>&, double, const kin::CoordinatesOn<P>&, \
                                               const kin::CoordinatesOn<P>&, kin::CoordinatesOn<P>&) const;
LW_FORCES_ON(num::Dual8)
LW_FORCES_ON(std::complex<double>)
#undef LW_FORCES_ON

void appliedForces(const NaturalInertia& inertia, double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd, Eigen::VectorXd& Q) {
  Q = inertia.gravity;
  if (inertia.elements) inertia.elements->add(t, q, qd, Q);
}

}  // namespace lw::dyn
