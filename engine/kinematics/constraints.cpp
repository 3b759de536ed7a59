// The constraint library: one templated residual per constraint kind, evaluated on double for Φ
// and on Jets for Φ_q columns, Φ_t and γ (derivatives exact to round-off; tests compare them with
// finite differences).
#include "numeric/jet.h"
#include "kinematics/natural_model.h"

namespace lw::kin {
namespace {

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

// Entity values on scalar T. `seed(i)` gives (d, dd) for coordinate i.
template <class T> struct Gather;

template <>
struct Gather<double> {
  const NaturalModel& m;
  const Eigen::VectorXd& q;
  V3<double> operator()(int e) const {
    const Entity& en = m.entities[static_cast<std::size_t>(e)];
    if (en.fixed()) return {en.value.x(), en.value.y(), en.value.z()};
    const double* p = q.data() + en.offset;
    return {p[0], p[1], m.dimension == 3 ? p[2] : 0.0};
  }
};

// Jets seeded with one unit column (col >= 0) or with a direction vector (dir != nullptr)
template <>
struct Gather<Jet> {
  const NaturalModel& m;
  const Eigen::VectorXd& q;
  int col = -1;
  const Eigen::VectorXd* dir = nullptr;
  Jet coord(const Entity& en, int k) const {
    if (k >= m.dimension) return Jet(0.0);
    const int i = en.offset + k;
    const double d = dir ? (*dir)[i] : (i == col ? 1.0 : 0.0);
    return Jet(q[i], d, 0.0);
  }
  V3<Jet> operator()(int e) const {
    const Entity& en = m.entities[static_cast<std::size_t>(e)];
    if (en.fixed()) return {Jet(en.value.x()), Jet(en.value.y()), Jet(en.value.z())};
    return {coord(en, 0), coord(en, 1), coord(en, 2)};
  }
};

template <class T>
T timeValue(const TimeFunction& f, const T& t);
template <>
double timeValue<double>(const TimeFunction& f, const double& t) {
  return f.value(t);
}
template <>
Jet timeValue<Jet>(const TimeFunction& f, const Jet& t) {
  const double r = f.rate(t.v);
  return Jet(f.value(t.v), r * t.d, f.acceleration(t.v) * t.d * t.d + r * t.dd);
}

template <class T, class X>
V3<T> direction(const Direction& d, const X& x) {
  return d.b < 0 ? x(d.a) : x(d.a) - x(d.b);
}

template <class T, class X>
void residual(const NaturalModel& m, const Constraint& c, const X& x, const T& t, T* out) {
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
      out[0] = dot(d, d) - T(c.c[0]);
      return;
    }
    case ConstraintKind::DirDot:
      out[0] = dot(direction<T>(c.d[0], x), direction<T>(c.d[1], x)) - T(c.c[0]);
      return;
    case ConstraintKind::Combo: {
      const V3<T> d = direction<T>(c.d[0], x);
      V3<T> r = x(c.e[0]);
      if (c.e[1] >= 0) r = r - x(c.e[1]);
      if (planar) {
        r = r - (T(c.c[0]) * d + T(c.c[1]) * rot90(d));
        out[0] = r.x;
        out[1] = r.y;
      } else {
        if (c.d[1].a < 0) {  // a point on the axis of a spin-free body
          r = r - T(c.c[0]) * d;
        } else {
          const V3<T> d2 = direction<T>(c.d[1], x);
          r = r - (T(c.c[0]) * d + T(c.c[1]) * d2 + T(c.c[2]) * (c.d[2].a >= 0 ? direction<T>(c.d[2], x) : cross(d, d2)));
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
      const T alpha = T(c.c[0]) + timeValue<T>(m.drivers[static_cast<std::size_t>(c.driver)], t);
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
      out[0] = dot(pq, x(c.e[2])) - (T(c.c[0]) + timeValue<T>(m.drivers[static_cast<std::size_t>(c.driver)], t));
      return;
    }
    case ConstraintKind::DriveCoordinate:
      out[0] = get(x(c.e[0]), c.component) - timeValue<T>(m.drivers[static_cast<std::size_t>(c.driver)], t);
      return;
    case ConstraintKind::DriveDistance: {
      const V3<T> pq = x(c.e[1]) - x(c.e[0]);
      const T f = timeValue<T>(m.drivers[static_cast<std::size_t>(c.driver)], t);
      out[0] = dot(pq, pq) - f * f;
      return;
    }
  }
}

// p = O + a d + b R90 d (2D) or O + a d + b d' + c d×d' (3D) for a body point
template <class T, class X>
V3<T> bodyPoint(const NaturalModel& m, int body, int point, const X& x) {
  const BodyFrame& f = m.bodies[static_cast<std::size_t>(body)];
  const Eigen::Vector3d& k = f.pointCoefficients[static_cast<std::size_t>(point)];
  if (f.origin < 0) return {T(k.x()), T(k.y()), T(k.z())};  // ground: world coordinates
  const V3<T> o = x(f.origin), d = direction<T>(f.d[0], x);
  if (m.dimension == 2) return o + (T(k.x()) * d + T(k.y()) * rot90(d));
  if (f.spinFree) {
    // smallest rotation taking axis0 to the current axis: R v = v + w×v + w×(w×v)/(1 + c)
    using std::sqrt;
    const V3<T> a = (T(1.0) / sqrt(dot(d, d))) * d;
    const V3<T> a0{T(f.axis0.x()), T(f.axis0.y()), T(f.axis0.z())};
    const V3<T> w = cross(a0, a), v{T(k.x()), T(k.y()), T(k.z())};
    const T c = dot(a0, a);
    const V3<T> wv = cross(w, v);
    return o + v + wv + (T(1.0) / (T(1.0) + c)) * cross(w, wv);
  }
  const V3<T> d2 = direction<T>(f.d[1], x);
  return o + (T(k.x()) * d + T(k.y()) * d2 + T(k.z()) * (f.d[2].a >= 0 ? direction<T>(f.d[2], x) : cross(d, d2)));
}

}  // namespace

void evaluateConstraints(const NaturalModel& m, const Eigen::VectorXd& q, double t, Eigen::VectorXd& phi) {
  const Gather<double> x{m, q};
  for (const Constraint& c : m.constraints) residual<double>(m, c, x, t, phi.data() + c.row);
}

void constraintValue(const NaturalModel& m, const Constraint& c, const Eigen::VectorXd& q, double t, double* out) {
  residual<double>(m, c, Gather<double>{m, q}, t, out);
}

void constraintJet(const NaturalModel& m, const Constraint& c, const Eigen::VectorXd& q, const Eigen::VectorXd* dir,
                   int col, double t, double dt, Jet* out) {
  residual<Jet>(m, c, Gather<Jet>{m, q, dir ? -1 : col, dir}, Jet(t, dt, 0), out);
}

namespace detail {
void constraintColumn(const NaturalModel& m, const Constraint& c, const Eigen::VectorXd& q, double t,
                      int col, double* out) {
  Gather<Jet> x{m, q, col, nullptr};
  Jet r[3];
  residual<Jet>(m, c, x, Jet(t), r);
  for (int i = 0; i < c.rows; ++i) out[i] = r[i].d;
}
}  // namespace detail

void evaluatePhiT(const NaturalModel& m, const Eigen::VectorXd& q, double t, Eigen::VectorXd& phiT) {
  Gather<Jet> x{m, q, -1, nullptr};
  Jet r[3];
  for (const Constraint& c : m.constraints) {
    residual<Jet>(m, c, x, Jet(t, 1, 0), r);
    for (int i = 0; i < c.rows; ++i) phiT[c.row + i] = r[i].d;
  }
}

void evaluateGamma(const NaturalModel& m, const Eigen::VectorXd& q, const Eigen::VectorXd& qd, double t,
                   Eigen::VectorXd& gamma) {
  Gather<Jet> x{m, q, -1, &qd};
  Jet r[3];
  for (const Constraint& c : m.constraints) {
    residual<Jet>(m, c, x, Jet(t, 1, 0), r);
    for (int i = 0; i < c.rows; ++i) gamma[c.row + i] = r[i].dd;
  }
}

void evaluateJacobianDense(const NaturalModel& m, const Eigen::VectorXd& q, double t, Eigen::MatrixXd& J) {
  J.setZero(m.nrows, m.nq);
  evaluateJacobian(m, q, t, [&](int r, int c, double v) { J(r, c) += v; });
}

void pointKinematics(const NaturalModel& m, int body, int point, const Eigen::VectorXd& q,
                     const Eigen::VectorXd& qd, const Eigen::VectorXd& qdd, Eigen::Vector3d* r,
                     Eigen::Vector3d* v, Eigen::Vector3d* a) {
  const V3<Jet> pv = bodyPoint<Jet>(m, body, point, Gather<Jet>{m, q, -1, &qd});
  if (r) *r = {pv.x.v, pv.y.v, pv.z.v};
  if (v) *v = {pv.x.d, pv.y.d, pv.z.d};
  if (a) {
    const V3<Jet> pa = bodyPoint<Jet>(m, body, point, Gather<Jet>{m, q, -1, &qdd});
    *a = {pa.x.d + pv.x.dd, pa.y.d + pv.y.dd, pa.z.d + pv.z.dd};
  }
}

}  // namespace lw::kin
