// The constraint library's residuals, one template per constraint kind, on any scalar T
// (double, Jets over double or over a parameter-seeded scalar) and with the model's constants
// read through a policy K: the model's own (K = ModelConstants: constraints.cpp) or the same
// constants computed again on other numbers (natural_numbers.cpp: the parameters' partials).
// Internal to engine/kinematics: include from .cpp files only.
#pragma once

#include "numeric/jet.h"
#include "kinematics/natural_model.h"

namespace lw::kin::residual_detail {

template <class T>
struct V3 {
  T x{}, y{}, z{};
};
template <class T> V3<T> operator+(const V3<T>& a, const V3<T>& b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
template <class T> V3<T> operator-(const V3<T>& a, const V3<T>& b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
template <class T> V3<T> operator*(const T& s, const V3<T>& a) { return {s * a.x, s * a.y, s * a.z}; }
template <class T> T dot(const V3<T>& a, const V3<T>& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
template <class T> V3<T> cross(const V3<T>& a, const V3<T>& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
template <class T> V3<T> rot90(const V3<T>& a) { return {-a.y, a.x, a.z}; }  // planar, about Z
template <class T> T get(const V3<T>& a, int i) { return i == 0 ? a.x : i == 1 ? a.y : a.z; }

/// The model's own constants (doubles).
struct ModelConstants {
  const NaturalModel& m;
  double c(const Constraint& k, int i) const { return k.c[i]; }
  const Eigen::Vector3d& fixedValue(int e) const { return m.entities[static_cast<std::size_t>(e)].value; }
  const Eigen::Vector3d& coefficients(int body, int point) const {
    return m.bodies[static_cast<std::size_t>(body)].pointCoefficients[static_cast<std::size_t>(point)];
  }
  const Eigen::Vector3d& axis0(int body) const { return m.bodies[static_cast<std::size_t>(body)].axis0; }
  template <class T>
  T time(int driver, const T& t) const;
};
template <>
inline double ModelConstants::time<double>(int driver, const double& t) const {
  return m.drivers[static_cast<std::size_t>(driver)].value(t);
}
template <>
inline Jet ModelConstants::time<Jet>(int driver, const Jet& t) const {
  const TimeFunction& f = m.drivers[static_cast<std::size_t>(driver)];
  const double r = f.rate(t.v);
  return Jet(f.value(t.v), r * t.d, f.acceleration(t.v) * t.d * t.d + r * t.dd);
}

/// Entity values on T: the coordinates q (on doubles, or on the scalar of T's jets) seeded with
/// one unit column (col >= 0) or a direction (dir), or none (T double); fixed entities the
/// constants' values.
template <class T, class K, class Q = Eigen::VectorXd>
struct Gather {
  const NaturalModel& m;
  const K& k;
  const Q& q;
  int col = -1;
  const Q* dir = nullptr;
  T coord(const Entity& en, int i) const {
    if (i >= m.dimension) return T(0.0);
    const int j = en.offset + i;
    if constexpr (std::is_same_v<T, double>) {
      return q[j];
    } else {
      using S = typename Q::Scalar;
      const S d = dir ? S((*dir)[j]) : S(j == col ? 1.0 : 0.0);
      return T(q[j], d, S(0.0));
    }
  }
  V3<T> operator()(int e) const {
    const Entity& en = m.entities[static_cast<std::size_t>(e)];
    if (en.fixed()) {
      const auto& v = k.fixedValue(e);
      return {T(v.x()), T(v.y()), T(v.z())};
    }
    return {coord(en, 0), coord(en, 1), coord(en, 2)};
  }
};

template <class T, class X>
V3<T> direction(const Direction& d, const X& x) {
  return d.b < 0 ? x(d.a) : x(d.a) - x(d.b);
}

// p = O + a d + b R90 d (2D) or O + a d + b d' + c d×d' (3D) for a body point
template <class T, class K, class X>
V3<T> bodyPoint(const NaturalModel& m, const K& k, int body, int point, const X& x) {
  const BodyFrame& f = m.bodies[static_cast<std::size_t>(body)];
  const auto& kp = k.coefficients(body, point);
  const T a(kp.x()), b(kp.y()), cz(kp.z());
  if (f.origin < 0) return {a, b, cz};  // ground: world coordinates
  const V3<T> o = x(f.origin), d = direction<T>(f.d[0], x);
  if (m.dimension == 2) return o + (a * d + b * rot90(d));
  if (f.spinFree) {
    // smallest rotation taking axis0 to the current axis: R v = v + w×v + w×(w×v)/(1 + c)
    using std::sqrt;
    const V3<T> u = (T(1.0) / sqrt(dot(d, d))) * d;
    const auto& axis0 = k.axis0(body);
    const V3<T> a0{T(axis0.x()), T(axis0.y()), T(axis0.z())};
    const V3<T> w = cross(a0, u), v{a, b, cz};
    const T c = dot(a0, u);
    const V3<T> wv = cross(w, v);
    return o + v + wv + (T(1.0) / (T(1.0) + c)) * cross(w, wv);
  }
  const V3<T> d2 = direction<T>(f.d[1], x);
  return o + (a * d + b * d2 + cz * (f.d[2].a >= 0 ? direction<T>(f.d[2], x) : cross(d, d2)));
}

// v = a d + b R90 d (2D) or a d + b d' + c d×d' (3D; linear frames: c w) for a body vector with
// coefficients (a, b, c) — the ground's in world
template <class T, class X>
V3<T> bodyVector(const NaturalModel& m, int body, const T& a, const T& b, const T& cz, const X& x) {
  const BodyFrame& f = m.bodies[static_cast<std::size_t>(body)];
  if (f.origin < 0) return {a, b, cz};
  const V3<T> d = direction<T>(f.d[0], x);
  if (m.dimension == 2) return a * d + b * rot90(d);
  const V3<T> d2 = direction<T>(f.d[1], x);
  return a * d + b * d2 + cz * (f.d[2].a >= 0 ? direction<T>(f.d[2], x) : cross(d, d2));
}

template <class T, class K, class X>
void residual(const NaturalModel& m, const K& k, const Constraint& c, const X& x, const T& t, T* out) {
  using std::cos, std::sin;
  const bool planar = m.dimension == 2;
  switch (c.kind) {
    case ConstraintKind::UnitNorm: {
      const V3<T> u = x(c.e[0]);
      out[0] = dot(u, u) - T(1.0);
      return;
    }
    case ConstraintKind::Distance: {
      const V3<T> d = direction<T>(c.d[0], x);
      out[0] = dot(d, d) - T(k.c(c, 0));
      return;
    }
    case ConstraintKind::DirDot:
      out[0] = dot(direction<T>(c.d[0], x), direction<T>(c.d[1], x)) - T(k.c(c, 0));
      return;
    case ConstraintKind::Combo: {
      const V3<T> d = direction<T>(c.d[0], x);
      V3<T> r = x(c.e[0]);
      if (c.e[1] >= 0) r = r - x(c.e[1]);
      if (planar) {
        r = r - (T(k.c(c, 0)) * d + T(k.c(c, 1)) * rot90(d));
        out[0] = r.x;
        out[1] = r.y;
      } else {
        if (c.d[1].a < 0) {  // a point on the axis of a spin-free body
          r = r - T(k.c(c, 0)) * d;
        } else {
          const V3<T> d2 = direction<T>(c.d[1], x);
          r = r - (T(k.c(c, 0)) * d + T(k.c(c, 1)) * d2 + T(k.c(c, 2)) * (c.d[2].a >= 0 ? direction<T>(c.d[2], x) : cross(d, d2)));
        }
        out[0] = r.x;
        out[1] = r.y;
        out[2] = r.z;
      }
      return;
    }
    case ConstraintKind::Collinear2D: {
      const V3<T> pq = x(c.e[1]) - x(c.e[0]), u = x(c.e[2]);
      out[0] = pq.x * u.y - pq.y * u.x;
      return;
    }
    case ConstraintKind::AxisLine3D: {
      const V3<T> pq = x(c.e[1]) - x(c.e[0]), u = x(c.e[2]), w = x(c.e[3]);
      out[0] = dot(pq, w);
      out[1] = dot(pq, cross(u, w));
      return;
    }
    case ConstraintKind::DriveAngle: {
      const T alpha = T(k.c(c, 0)) + k.template time<T>(c.driver, t);
      const V3<T> d1 = direction<T>(c.d[0], x), d2 = direction<T>(c.d[1], x);
      if (planar) {
        out[0] = cos(alpha) * (d1.x * d2.y - d1.y * d2.x) - sin(alpha) * (d1.x * d2.x + d1.y * d2.y);
      } else {
        const V3<T> n = x(c.e[0]);
        out[0] = cos(alpha) * dot(cross(d1, d2), n) - sin(alpha) * (dot(d1, d2) - dot(d1, n) * dot(d2, n));
      }
      return;
    }
    case ConstraintKind::DriveSlide: {
      const V3<T> pq = x(c.e[1]) - x(c.e[0]);
      out[0] = dot(pq, x(c.e[2])) - (T(k.c(c, 0)) + k.template time<T>(c.driver, t));
      return;
    }
    case ConstraintKind::DriveCoordinate:
      out[0] = get(x(c.e[0]), c.component) - k.template time<T>(c.driver, t);
      return;
    case ConstraintKind::DriveDistance: {
      const V3<T> pq = x(c.e[1]) - x(c.e[0]);
      const T f = k.template time<T>(c.driver, t);
      out[0] = dot(pq, pq) - f * f;
      return;
    }
    case ConstraintKind::PlaneGap: {
      const V3<T> p = bodyPoint<T>(m, k, c.e[0], c.e[1], x), F = bodyPoint<T>(m, k, c.e[2], c.e[3], x);
      const V3<T> n = bodyVector<T>(m, c.component, T(k.c(c, 0)), T(k.c(c, 1)), T(k.c(c, 2)), x);
      out[0] = dot(p - F, n) - T(k.c(c, 3));
      return;
    }
  }
}

}  // namespace lw::kin::residual_detail
