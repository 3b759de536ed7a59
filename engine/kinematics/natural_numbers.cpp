// The natural model's constants on other numbers (natural_numbers.h): the compiler's formulas
// (natural_model.cpp) again, on P, read from the sources it recorded.
#include "kinematics/natural_numbers.h"

#include <cmath>

#include "kinematics/constraint_residual.h"
#include "numeric/dual_eigen.h"
#include "numeric/scalar.h"

namespace lw::kin {
namespace {

template <class P>
using Vec3 = Eigen::Matrix<P, 3, 1>;

template <class P>
Vec3<P> cross3(const Vec3<P>& a, const Vec3<P>& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

// Eigen's unitOrthogonal (OrthoMethods.h), its branch taken on the values
template <class P>
Vec3<P> unitOrthogonal(const Vec3<P>& s) {
  using std::sqrt, std::abs;
  const double x = num::value(s[0]), y = num::value(s[1]), z = num::value(s[2]);
  const double eps = Eigen::NumTraits<double>::dummy_precision();
  if (!(abs(x) <= abs(z) * eps) || !(abs(y) <= abs(z) * eps)) {
    const P inv = P(1.0) / P(sqrt(s[0] * s[0] + s[1] * s[1]));
    return {-s[1] * inv, s[0] * inv, P(0.0)};
  }
  const P inv = P(1.0) / P(sqrt(s[2] * s[2] + s[1] * s[1]));
  return {P(0.0), -s[2] * inv, s[1] * inv};
}

template <class P>
class Recompute {
 public:
  Recompute(const NaturalModel& m, const MechanismNumbers<P>& n, NaturalNumbers<P>& out) : m_(m), n_(n), out_(out) {}

  void run() {
    const std::size_t ne = m_.entities.size(), nb = m_.bodies.size();
    out_.entity.assign(ne, Vec3<P>::Zero());
    // the linear frames' third vectors last: they are made from their bodies' own frames
    for (std::size_t e = 0; e < ne; ++e)
      if (m_.entities[e].source.kind != WorldSource::Kind::Normal) out_.entity[e] = world(m_.entities[e].source, m_.entities[e].isVector);
    out_.own.assign(nb, {});
    for (std::size_t b = 1; b < nb; ++b)
      for (const WorldSource& s : m_.bodies[b].ownSources) out_.own[b].push_back(world(s, false));
    for (std::size_t b = 1; b < nb; ++b)
      for (std::size_t i = 0; i < m_.bodies[b].own.size(); ++i)
        if (m_.entities[static_cast<std::size_t>(m_.bodies[b].own[i].first)].isVector) out_.own[b][i] = unit3(out_.own[b][i]);
    for (std::size_t e = 0; e < ne; ++e)
      if (m_.entities[e].source.kind == WorldSource::Kind::Normal) {
        const int b = m_.entities[e].source.body;
        const BodyFrame& f = m_.bodies[static_cast<std::size_t>(b)];
        out_.entity[e] = unit3(cross3<P>(out_.ownValue(m_, b, f.d[0]), out_.ownValue(m_, b, f.d[1])));
      }
    out_.constants.assign(m_.constraints.size(), {P(0.0), P(0.0), P(0.0), P(0.0)});
    for (std::size_t k = 0; k < m_.constraints.size(); ++k) constants(m_.constraints[k], out_.constants[k]);
    out_.axis0.assign(nb, Vec3<P>(P(1.0), P(0.0), P(0.0)));
    for (std::size_t b = 1; b < nb; ++b)
      if (m_.bodies[b].spinFree) out_.axis0[b] = unit3(out_.ownValue(m_, static_cast<int>(b), m_.bodies[b].d[0]));
    out_.pointCoefficients.assign(nb, {});
    for (const auto& p : n_.bodies[0].points) out_.pointCoefficients[0].push_back(p);
    for (std::size_t b = 1; b < nb; ++b) {
      const BodyFrame& f = m_.bodies[b];
      const int bi = static_cast<int>(b);
      const Vec3<P> o = out_.ownValue(m_, bi, f.origin);
      for (std::size_t i = 0; i < n_.bodies[b].points.size(); ++i) {
        const Vec3<P> rel = n_.pointWorld({bi, static_cast<int>(i)}) - o;
        out_.pointCoefficients[b].push_back(f.spinFree ? rel : coefficients(bi, rel, f.d[0], f.d[1], f.d[2]));
      }
    }
    out_.drivers = n_.drivers;
    // a held stop's (kin::HeldGap): its value on P less the joint's stored coordinate on P (the
    // tree's: a slide as the driven slide's constant, a planar turn of R1ᵀR2, zero in 3D)
    for (std::size_t d = out_.drivers.size(); d < m_.drivers.size(); ++d) out_.drivers.push_back(TimeFunctionOn<P>::constant(P(m_.drivers[d].value(0))));
    for (std::size_t k = 0; k < m_.constraints.size(); ++k) {
      const Constraint& c = m_.constraints[k];
      if (c.source.kind != ConstraintSource::Kind::Limit) continue;
      const auto& limit = n_.limits[static_cast<std::size_t>(c.source.index)];
      const auto& joint = m_.mechanism->joints[static_cast<std::size_t>(m_.mechanism->limits[static_cast<std::size_t>(c.source.index)].joint)];
      P stored(0.0);
      if (c.kind == ConstraintKind::DriveSlide) {
        stored = out_.constants[k][0];
      } else if (m_.dimension == 2) {
        const auto& R1 = n_.bodies[static_cast<std::size_t>(joint.body(0))].rotation;
        const auto& R2 = n_.bodies[static_cast<std::size_t>(joint.body(1))].rotation;
        stored = num::atan2(R1(0, 1) * R2(0, 0) + R1(1, 1) * R2(1, 0) + R1(2, 1) * R2(2, 0), R1(0, 0) * R2(0, 0) + R1(1, 0) * R2(1, 0) + R1(2, 0) * R2(2, 0));
      }
      out_.drivers[static_cast<std::size_t>(c.driver)] = TimeFunctionOn<P>::constant((c.component ? limit.max : limit.min) - stored);
    }
  }

 private:
  Vec3<P> world(const WorldSource& s, bool unit) const {
    Vec3<P> v = Vec3<P>::Zero();
    switch (s.kind) {
      case WorldSource::Kind::Point: v = n_.pointWorld({s.body, s.index}); break;
      case WorldSource::Kind::Vector: v = unit3(n_.vectorWorld({s.body, s.index})); break;
      case WorldSource::Kind::Position: v = n_.bodies[static_cast<std::size_t>(s.body)].position; break;
      case WorldSource::Kind::Column: v = n_.bodies[static_cast<std::size_t>(s.body)].rotation.col(s.index); break;
      case WorldSource::Kind::Orthogonal: v = unitOrthogonal(unit3(n_.vectorWorld({s.body, s.index}))); break;
      case WorldSource::Kind::Normal: break;  // made after the bodies' own places (run)
      case WorldSource::Kind::Constant: v = s.constant.template cast<P>(); break;
    }
    return unit ? unit3(v) : v;
  }

  // the compiler's coefficients of `rel` in body b's basis, as b places it
  Vec3<P> coefficients(int b, const Vec3<P>& rel, const Direction& d1, const Direction& d2, const Direction& d3) const {
    const Vec3<P> a = out_.ownValue(m_, b, d1);
    if (m_.dimension == 3 && d2.a < 0) return {dot3(rel, a) / dot3(a, a), P(0.0), P(0.0)};
    if (m_.dimension == 2) {
      const Vec3<P> r90(-a[1], a[0], P(0.0));
      return {dot3(rel, a) / dot3(a, a), dot3(rel, r90) / dot3(r90, r90), P(0.0)};
    }
    const Vec3<P> bb = out_.ownValue(m_, b, d2);
    const Vec3<P> c = d3.a >= 0 ? out_.ownValue(m_, b, d3) : cross3<P>(a, bb);
    // Cramer's rule on [a b c] k = rel
    const P det = dot3(a, cross3<P>(bb, c));
    return {dot3(rel, cross3<P>(bb, c)) / det, dot3(a, cross3<P>(rel, c)) / det, dot3(a, cross3<P>(bb, rel)) / det};
  }

  Vec3<P> merged(const Direction& d) const {
    const Vec3<P> a = out_.entity[static_cast<std::size_t>(d.a)];
    return d.b < 0 ? a : Vec3<P>(a - out_.entity[static_cast<std::size_t>(d.b)]);
  }

  void constants(const Constraint& c, std::array<P, 4>& k) const {
    const int b = c.source.index;
    switch (c.kind) {
      case ConstraintKind::Distance: {
        const Vec3<P> d = out_.ownValue(m_, b, c.d[0]);
        k[0] = dot3(d, d);
        return;
      }
      case ConstraintKind::DirDot: {
        if (c.source.kind == ConstraintSource::Kind::Joint) {  // a universal joint's axes (merged places)
          k[0] = dot3(merged(c.d[0]), merged(c.d[1]));
          return;
        }
        const BodyFrame& f = m_.bodies[static_cast<std::size_t>(b)];
        const bool third = f.d[2].a >= 0 && c.d[0].a == f.d[2].a && c.d[0].b == f.d[2].b;
        k[0] = third ? P(0.0) : dot3(out_.ownValue(m_, b, c.d[0]), out_.ownValue(m_, b, c.d[1]));
        return;
      }
      case ConstraintKind::Combo: {
        Vec3<P> rel = out_.ownValue(m_, b, c.e[0]);
        if (c.e[1] >= 0) rel -= out_.ownValue(m_, b, c.e[1]);
        const Vec3<P> x = coefficients(b, rel, c.d[0], c.d[1], c.d[2]);
        k = {x[0], x[1], x[2]};
        return;
      }
      case ConstraintKind::DriveAngle: {
        const Vec3<P> a = merged(c.d[0]), d = merged(c.d[1]);
        const Vec3<P> n = m_.dimension == 2 ? Vec3<P>(P(0.0), P(0.0), P(1.0)) : c.e[0] >= 0 ? out_.entity[static_cast<std::size_t>(c.e[0])] : Vec3<P>::Zero();
        k[0] = num::atan2(dot3(cross3<P>(a, d), n), dot3(a, d) - dot3(a, n) * dot3(d, n));
        return;
      }
      case ConstraintKind::DriveSlide: {
        const auto& e = out_.entity;
        k[0] = dot3(Vec3<P>(e[static_cast<std::size_t>(c.e[1])] - e[static_cast<std::size_t>(c.e[0])]), e[static_cast<std::size_t>(c.e[2])]);
        return;
      }
      case ConstraintKind::PlaneGap: {  // a held contact: its normal's coefficients, its radius
        const auto& contact = m_.mechanism->contacts[static_cast<std::size_t>(c.source.index)];
        const int nb = c.component;
        const Vec3<P> n = unit3(n_.vectorWorld(contact.planeNormal));
        const BodyFrame& f = m_.bodies[static_cast<std::size_t>(nb)];
        const Vec3<P> x = nb > 0 ? coefficients(nb, n, f.d[0], f.d[1], f.d[2]) : n;
        k = {x[0], x[1], x[2], n_.contacts[static_cast<std::size_t>(c.source.index)].radius};
        return;
      }
      default: return;  // no constants
    }
  }

  const NaturalModel& m_;
  const MechanismNumbers<P>& n_;
  NaturalNumbers<P>& out_;
};

// the constants policy of constraint_residual.h on P
template <class P>
struct NumbersConstants {
  const NaturalModel& m;
  const NaturalNumbers<P>& k;
  const P& c(const Constraint& x, int i) const { return k.constants[static_cast<std::size_t>(&x - m.constraints.data())][static_cast<std::size_t>(i)]; }
  const Vec3<P>& fixedValue(int e) const { return k.entity[static_cast<std::size_t>(e)]; }
  const Vec3<P>& coefficients(int body, int point) const {
    return k.pointCoefficients[static_cast<std::size_t>(body)][static_cast<std::size_t>(point)];
  }
  const Vec3<P>& axis0(int body) const { return k.axis0[static_cast<std::size_t>(body)]; }
  template <class T>
  T time(int driver, const T& t) const {
    const TimeFunctionOn<P>& f = k.drivers[static_cast<std::size_t>(driver)];
    const double tv = num::value(num::value(t.v));  // time carries no parameter's derivative
    const P r = f.rate(tv);
    return T(f.value(tv), r * t.d, f.acceleration(tv) * t.d * t.d + r * t.dd);
  }
};

}  // namespace

template <class P>
NaturalNumbers<P> naturalNumbersOn(const NaturalModel& m, const MechanismNumbers<P>& numbers) {
  NaturalNumbers<P> out;
  Recompute<P>(m, numbers, out).run();
  return out;
}

template <class P>
void constraintJetOn(const NaturalModel& m, const NaturalNumbers<P>& k, const Constraint& c, const CoordinatesOn<P>& q,
                     const CoordinatesOn<P>* dir, int col, double t, double dt, BasicJet<P>* out) {
  using T = BasicJet<P>;
  const NumbersConstants<P> kc{m, k};
  const residual_detail::Gather<T, NumbersConstants<P>, CoordinatesOn<P>> x{m, kc, q, dir ? -1 : col, dir};
  residual_detail::residual<T>(m, kc, c, x, T(P(t), P(dt), P(0.0)), out);
}

template <class P>
void pointKinematicsOn(const NaturalModel& m, const NaturalNumbers<P>& k, int body, int point, const CoordinatesOn<P>& q,
                       const CoordinatesOn<P>& qd, Eigen::Matrix<P, 3, 1>& r, Eigen::Matrix<P, 3, 1>& v) {
  using T = BasicJet<P>;
  const NumbersConstants<P> kc{m, k};
  const auto p = residual_detail::bodyPoint<T>(m, kc, body, point, residual_detail::Gather<T, NumbersConstants<P>, CoordinatesOn<P>>{m, kc, q, -1, &qd});
  r = {p.x.v, p.y.v, p.z.v};
  v = {p.x.d, p.y.d, p.z.d};
}

#define LW_NATURAL_NUMBERS_ON(P)                                                                                                       \
  template NaturalNumbers<P> naturalNumbersOn<P>(const NaturalModel&, const MechanismNumbers<P>&);                                    \
  template void constraintJetOn<P>(const NaturalModel&, const NaturalNumbers<P>&, const Constraint&, const CoordinatesOn<P>&,        \
                                   const CoordinatesOn<P>*, int, double, double, BasicJet<P>*);                                      \
  template void pointKinematicsOn<P>(const NaturalModel&, const NaturalNumbers<P>&, int, int, const CoordinatesOn<P>&,               \
                                     const CoordinatesOn<P>&, Eigen::Matrix<P, 3, 1>&, Eigen::Matrix<P, 3, 1>&);
LW_NATURAL_NUMBERS_ON(double)
LW_NATURAL_NUMBERS_ON(num::Dual8)
LW_NATURAL_NUMBERS_ON(std::complex<double>)
#undef LW_NATURAL_NUMBERS_ON

}  // namespace lw::kin
