#include "dynamics/natural_tree_map.h"

#include <cmath>

#include <Eigen/Geometry>
#include <Eigen/LU>
#include <numbers>

#include "dynamics/tree_kernels.h"
#include "kinematics/natural_numbers.h"
#include "numeric/dual_eigen.h"
#include "numeric/scalar.h"

namespace lw::dyn {

using detail::Frame;
using detail::M3;
using detail::V3;
using kin::Jet;

bool compileNaturalTreeMap(const RecursiveModel& tree, const kin::NaturalModel& natural, NaturalTreeMap& out, std::string& why) {
  if (tree.dimension != natural.dimension) {
    why = "the two models are not of one mechanism";
    return false;
  }
  // a spatial body's frame is linear in its coordinates only with its third vector (a rod between
  // ball joints has none: its frame turns with its line by the smallest rotation)
  if (natural.dimension == 3)
    for (std::size_t b = 1; b < natural.bodies.size(); ++b)
      if (!natural.bodies[b].spinFree && natural.bodies[b].d[2].a < 0) {
        why = "body '" + tree.mechanism->bodies[b].name + "' has no linear frame in the natural model";
        return false;
      }
  const ResolvedMechanism& m = *tree.mechanism;
  out.entities.assign(natural.entities.size(), {});
  for (std::size_t e = 0; e < natural.entities.size(); ++e) {
    const kin::Entity& en = natural.entities[e];
    if (en.fixed()) continue;
    auto& c = out.entities[e];
    for (int b : en.bodies)
      if (b > 0) {
        c.body = b;
        break;
      }
    if (c.body < 0) {
      why = "the natural coordinate '" + en.name + "' belongs to no moving body";
      return false;
    }
    const auto& body = m.bodies[static_cast<std::size_t>(c.body)];
    c.isVector = en.isVector;
    // the carrier's own place of it (an unassembled stored configuration: not the merged value)
    const Eigen::Vector3d value = natural.bodies[static_cast<std::size_t>(c.body)].ownValue(natural.entities, static_cast<int>(e));
    c.local = en.isVector ? Eigen::Vector3d(body.rotation.transpose() * value) : Eigen::Vector3d(body.rotation.transpose() * (value - body.position));
  }
  return true;
}

template <class P>
void naturalStateOn(const RecursiveModel& tree, const TreeNumbers<P>& numbers, const kin::NaturalModel& natural, const NaturalTreeMap& map,
                    const kin::NaturalNumbers<P>* shape, const Eigen::Matrix<P, Eigen::Dynamic, 1>& z, const Eigen::Matrix<P, Eigen::Dynamic, 1>& zd,
                    const Eigen::Matrix<P, Eigen::Dynamic, 1>& zdd, Eigen::Matrix<P, Eigen::Dynamic, 1>& q, Eigen::Matrix<P, Eigen::Dynamic, 1>& qd, Eigen::Matrix<P, Eigen::Dynamic, 1>* qdd) {
  using J = kin::BasicJet<P>;
  std::vector<J> zj(static_cast<std::size_t>(tree.nz));
  for (int i = 0; i < tree.nz; ++i) zj[static_cast<std::size_t>(i)] = J(z[i], zd[i], zdd[i]);
  std::vector<Frame<J>> f;
  detail::computeFrames<J, P>(tree, numbers, zj.data(), f);
  q.resize(natural.nq);
  qd.resize(natural.nq);
  if (qdd) qdd->resize(natural.nq);
  for (std::size_t e = 0; e < natural.entities.size(); ++e) {
    const kin::Entity& en = natural.entities[e];
    const auto& c = map.entities[e];
    if (en.fixed() || c.body < 0) continue;
    // the carrier's own place of it in its frame: the map's, or again on the numbers
    Eigen::Matrix<P, 3, 1> local = c.local.cast<P>();
    if (shape) {
      const auto& body = numbers.mech.bodies[static_cast<std::size_t>(c.body)];
      const Eigen::Matrix<P, 3, 1> value = shape->ownValue(natural, c.body, static_cast<int>(e));
      local = c.isVector ? Eigen::Matrix<P, 3, 1>(body.rotation.transpose() * value)
                         : Eigen::Matrix<P, 3, 1>(body.rotation.transpose() * (value - body.position));
    }
    const Frame<J>& frame = f[static_cast<std::size_t>(c.body)];
    const V3<J> w = c.isVector ? detail::mul(frame.R, local) : detail::worldPoint(frame, local);
    for (int k = 0; k < natural.dimension; ++k) {
      q[en.offset + k] = w[k].v;
      qd[en.offset + k] = w[k].d;
      if (qdd) (*qdd)[en.offset + k] = w[k].dd;
    }
  }
}

void naturalStateOf(const RecursiveModel& tree, const kin::NaturalModel& natural, const NaturalTreeMap& map, const Eigen::VectorXd& z,
                    const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd, Eigen::VectorXd& q, Eigen::VectorXd& qd, Eigen::VectorXd* qdd) {
  naturalStateOn<double>(tree, tree.numbers, natural, map, nullptr, z, zd, zdd, q, qd, qdd);
}

namespace {

template <class P>
using Vec3 = Eigen::Matrix<P, 3, 1>;
template <class P>
using Mat3 = Eigen::Matrix<P, 3, 3>;

template <class P>
using Shape = kin::StoredShape<P>;

template <class P>
using StateOn = Eigen::Matrix<P, Eigen::Dynamic, 1>;

template <class P>
V3<kin::BasicJet<P>> entityJet(const Shape<P>& sh, int e, const StateOn<P>& q, const StateOn<P>& qd, const StateOn<P>& qdd) {
  using J = kin::BasicJet<P>;
  const kin::Entity& en = sh.m.entities[static_cast<std::size_t>(e)];
  if (en.fixed()) {
    const Vec3<P> v = sh.fixed(e);
    return {{J(v.x()), J(v.y()), J(v.z())}};
  }
  V3<J> v{{J(0.0), J(0.0), J(0.0)}};
  for (int k = 0; k < sh.m.dimension; ++k) v[k] = J(q[en.offset + k], qd[en.offset + k], qdd[en.offset + k]);
  return v;
}

template <class P>
V3<kin::BasicJet<P>> directionJet(const Shape<P>& sh, const kin::Direction& d, const StateOn<P>& q, const StateOn<P>& qd, const StateOn<P>& qdd) {
  V3<kin::BasicJet<P>> v = entityJet(sh, d.a, q, qd, qdd);
  return d.b >= 0 ? detail::sub(v, entityJet(sh, d.b, q, qd, qdd)) : v;
}

// the frame of a rod between ball joints (kin::BodyFrame::spinFree): its stored frame turned by the
// smallest rotation that takes its stored axis a₀ to its axis a = d/|d| (the points' own placing,
// constraint_residual.h), R_a = 1 + [w]× + [w]×²/(1 + c), w = a₀ × a, c = a₀·a, and moved with O
template <class P>
Frame<kin::BasicJet<P>> rodFrame(const Shape<P>& sh, const MechanismNumbers<P>& m, int b, const StateOn<P>& q, const StateOn<P>& qd,
                                 const StateOn<P>& qdd) {
  using J = kin::BasicJet<P>;
  using std::sqrt;
  const kin::BodyFrame& bf = sh.m.bodies[static_cast<std::size_t>(b)];
  const auto& body = m.bodies[static_cast<std::size_t>(b)];
  const V3<J> d = directionJet(sh, bf.d[0], q, qd, qdd);
  const J inv = J(1.0) / sqrt(detail::dot(d, d));
  const V3<J> a{{d[0] * inv, d[1] * inv, d[2] * inv}};
  const Vec3<P> a0 = sh.axis0(b);
  const V3<J> w = detail::cross(detail::cst<J>(a0), a);
  const J k = J(1.0) / (J(1.0) + (a[0] * a0.x() + a[1] * a0.y() + a[2] * a0.z()));
  M3<J> W;  // [w]×
  W(0, 0) = W(1, 1) = W(2, 2) = J(0.0);
  W(0, 1) = -w[2], W(0, 2) = w[1], W(1, 0) = w[2], W(1, 2) = -w[0], W(2, 0) = -w[1], W(2, 1) = w[0];
  const M3<J> W2 = detail::mul(W, W);
  M3<J> turn = detail::identity<J>();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) turn(i, j) = turn(i, j) + W(i, j) + W2(i, j) * k;
  Frame<J> f;
  f.R = detail::mul(turn, body.rotation);
  f.x = detail::add(entityJet(sh, bf.origin, q, qd, qdd), detail::mul(turn, Vec3<P>(body.position - sh.own(b, bf.origin))));
  return f;
}

// the frame of a spatial body: its basis X = [d, d', w] carries the stored frame along,
// R = X X0⁻¹ R0 and x = O + X X0⁻¹ (x0 − O0), linear in q
template <class P>
Frame<kin::BasicJet<P>> spatialFrame(const Shape<P>& sh, const MechanismNumbers<P>& m, int b, const StateOn<P>& q, const StateOn<P>& qd,
                                     const StateOn<P>& qdd) {
  using J = kin::BasicJet<P>;
  const kin::BodyFrame& bf = sh.m.bodies[static_cast<std::size_t>(b)];
  const auto& body = m.bodies[static_cast<std::size_t>(b)];
  if (bf.spinFree) return rodFrame(sh, m, b, q, qd, qdd);
  Mat3<P> X0;
  M3<J> X;
  for (int i = 0; i < 3; ++i) {
    X0.col(i) = sh.own(b, bf.d[i]);  // as the body's own stored pose places it
    const V3<J> c = directionJet(sh, bf.d[i], q, qd, qdd);
    for (int r = 0; r < 3; ++r) X(r, i) = c[r];
  }
  const Mat3<P> X0inv = X0.inverse();
  const Vec3<P> o0 = sh.own(b, bf.origin);
  Frame<J> f;
  f.R = detail::mul(X, Mat3<P>(X0inv * body.rotation));
  f.x = detail::add(entityJet(sh, bf.origin, q, qd, qdd), detail::mul(X, Vec3<P>(X0inv * (body.position - o0))));
  return f;
}

// the frame of planar body b: turned from its stored frame as its direction d turned from the
// stored d0 (normalised: a penalty's stretched d turns the frame, it does not scale it), and
// moved with its origin entity
template <class P>
Frame<kin::BasicJet<P>> bodyFrame(const Shape<P>& sh, const MechanismNumbers<P>& m, int b, const StateOn<P>& q, const StateOn<P>& qd,
                                  const StateOn<P>& qdd) {
  using J = kin::BasicJet<P>;
  if (sh.m.dimension == 3) return spatialFrame(sh, m, b, q, qd, qdd);
  const kin::BodyFrame& bf = sh.m.bodies[static_cast<std::size_t>(b)];
  const auto& body = m.bodies[static_cast<std::size_t>(b)];
  const V3<J> o = entityJet(sh, bf.origin, q, qd, qdd);
  V3<J> d = entityJet(sh, bf.d[0].a, q, qd, qdd);
  if (bf.d[0].b >= 0) d = detail::sub(d, entityJet(sh, bf.d[0].b, q, qd, qdd));
  // the stored frame as the body's own stored pose places it
  const Vec3<P> d0 = sh.own(b, bf.d[0]), o0 = sh.own(b, bf.origin);
  using std::sqrt;
  const J scale = J(1.0) / (sqrt(d[0] * d[0] + d[1] * d[1]) * P(sqrt(d0.x() * d0.x() + d0.y() * d0.y())));
  const J c = (d[0] * d0.x() + d[1] * d0.y()) * scale, s = (d[1] * d0.x() - d[0] * d0.y()) * scale;
  M3<J> turn = detail::identity<J>();
  turn(0, 0) = c, turn(0, 1) = -s, turn(1, 0) = s, turn(1, 1) = c;
  Frame<J> f;
  f.R = detail::mul(turn, body.rotation);
  f.x = detail::add(o, detail::mul(turn, Vec3<P>(body.position - o0)));
  return f;
}

// the angle of the turn Rm about the unit axis u: sin from Rm's skew part along u, cos from its trace
template <class P>
kin::BasicJet<P> turnAbout(const M3<kin::BasicJet<P>>& Rm, const Vec3<P>& u) {
  using J = kin::BasicJet<P>;
  const J sinPart = ((Rm(2, 1) - Rm(1, 2)) * u.x() + (Rm(0, 2) - Rm(2, 0)) * u.y() + (Rm(1, 0) - Rm(0, 1)) * u.z()) * 0.5;
  const J cosPart = (Rm(0, 0) + Rm(1, 1) + Rm(2, 2) - J(1.0)) * 0.5;
  return num::atan2(sinPart, cosPart);
}

// the unit quaternion (w, x, y, z) of the turn Rm (Shepperd's branches, by the largest of the
// diagonal's combinations), its sign that of `near` (the tree's previous coordinates)
template <class P>
void quaternionOf(const M3<kin::BasicJet<P>>& R, const double* near, kin::BasicJet<P>* q) {
  using J = kin::BasicJet<P>;
  auto val = [&](int i) { return num::value(R(i, i).v); };
  const double tr = val(0) + val(1) + val(2);
  J w, x, y, z;
  using std::sqrt;
  if (tr >= val(0) && tr >= val(1) && tr >= val(2)) {
    w = sqrt(J(1.0) + R(0, 0) + R(1, 1) + R(2, 2)) * 0.5;
    const J k = J(0.25) / w;
    x = (R(2, 1) - R(1, 2)) * k, y = (R(0, 2) - R(2, 0)) * k, z = (R(1, 0) - R(0, 1)) * k;
  } else if (val(0) >= val(1) && val(0) >= val(2)) {
    x = sqrt(J(1.0) + R(0, 0) - R(1, 1) - R(2, 2)) * 0.5;
    const J k = J(0.25) / x;
    w = (R(2, 1) - R(1, 2)) * k, y = (R(0, 1) + R(1, 0)) * k, z = (R(0, 2) + R(2, 0)) * k;
  } else if (val(1) >= val(2)) {
    y = sqrt(J(1.0) - R(0, 0) + R(1, 1) - R(2, 2)) * 0.5;
    const J k = J(0.25) / y;
    w = (R(0, 2) - R(2, 0)) * k, x = (R(0, 1) + R(1, 0)) * k, z = (R(1, 2) + R(2, 1)) * k;
  } else {
    z = sqrt(J(1.0) - R(0, 0) - R(1, 1) + R(2, 2)) * 0.5;
    const J k = J(0.25) / z;
    w = (R(1, 0) - R(0, 1)) * k, x = (R(0, 2) + R(2, 0)) * k, y = (R(1, 2) + R(2, 1)) * k;
  }
  const double along = num::value(w.v) * near[0] + num::value(x.v) * near[1] + num::value(y.v) * near[2] + num::value(z.v) * near[3];
  const double s = along < 0 ? -1.0 : 1.0;
  q[0] = w * s, q[1] = x * s, q[2] = y * s, q[3] = z * s;
}

// the angle about unit axis u that takes a to b (their parts normal to u)
template <class P>
kin::BasicJet<P> angleAbout(const Vec3<P>& u, const Vec3<P>& a, const V3<kin::BasicJet<P>>& b) {
  using J = kin::BasicJet<P>;
  const Vec3<P> a0 = a - dot3(u, a) * u;
  const J bu = b[0] * u.x() + b[1] * u.y() + b[2] * u.z();
  const V3<J> b0 = detail::sub(b, V3<J>{{bu * u.x(), bu * u.y(), bu * u.z()}});
  const Vec3<P> n = u.cross(a0);  // a0 turned a quarter about u
  return num::atan2(b0[0] * n.x() + b0[1] * n.y() + b0[2] * n.z(), b0[0] * a0.x() + b0[1] * a0.y() + b0[2] * a0.z());
}

// the angle a continued from `near`: whole turns added
template <class P>
void continued(P& a, double near) {
  a = a + 2 * std::numbers::pi * std::round((near - num::value(a)) / (2 * std::numbers::pi));
}

}  // namespace

template <class P>
void treeStateOn(const RecursiveModel& tree, const TreeNumbers<P>& numbers, const kin::NaturalModel& natural, const kin::NaturalNumbers<P>* shape,
                 const StateOn<P>& q, const StateOn<P>& qd, const StateOn<P>& qdd, const Eigen::VectorXd& zNear,
                 Eigen::Matrix<P, Eigen::Dynamic, 1>& z, Eigen::Matrix<P, Eigen::Dynamic, 1>& zd, Eigen::Matrix<P, Eigen::Dynamic, 1>& zdd) {
  using J = kin::BasicJet<P>;
  const Shape<P> sh{natural, shape};
  const MechanismNumbers<P>& m = numbers.mech;
  std::vector<Frame<J>> f(m.bodies.size());
  f[0].R = detail::identity<J>();
  f[0].x = {{J(0.0), J(0.0), J(0.0)}};
  for (std::size_t b = 1; b < m.bodies.size(); ++b) f[b] = bodyFrame(sh, m, static_cast<int>(b), q, qd, qdd);
  z.resize(tree.nz);
  zd.resize(tree.nz);
  zdd.resize(tree.nz);
  for (int i = 0; i < tree.nz; ++i) z[i] = P(i < zNear.size() ? zNear[i] : 0.0);
  auto near = [&](int i) { return i < zNear.size() ? zNear[i] : 0.0; };
  auto set = [&](int i, const J& v) {
    z[i] = v.v;
    zd[i] = v.d;
    zdd[i] = v.dd;
  };
  for (std::size_t k = 0; k < tree.nodes.size(); ++k) {
    const Node& n = tree.nodes[k];
    const auto& g = numbers.nodes[k];
    const Frame<J>& p = f[static_cast<std::size_t>(n.parent)];
    const Frame<J>& c = f[static_cast<std::size_t>(n.body)];
    // the pose relative to the parent, X_parent⁻¹ X_child = M_joint(z) X0: M's turn Rm = R_rel R0ᵀ
    M3<J> pT;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) pT(i, j) = p.R(j, i);
    const M3<J> Rrel = detail::mul(pT, c.R);
    const V3<J> xrel = detail::mul(pT, detail::sub(c.x, p.x));
    const Mat3<P> R0T = g.R0.transpose();
    const M3<J> Rm = detail::mul(Rrel, R0T);
    const double sign = n.flip ? -1.0 : 1.0;
    const V3<J> slide = detail::sub(xrel, detail::cst<J>(g.x0));  // Prismatic: tm = x_rel − x0
    switch (n.kind) {
      case NodeKind::Revolute: {
        J a = turnAbout<P>(Rm, g.axis) * sign;
        continued(a.v, near(n.z));
        set(n.z, a);
        break;
      }
      case NodeKind::Prismatic:
        set(n.z, (slide[0] * g.axis.x() + slide[1] * g.axis.y() + slide[2] * g.axis.z()) * sign);
        break;
      case NodeKind::FreePlanar: {
        set(n.z, slide[0]);  // x_rel = x0 + (z0, z1, 0)
        set(n.z + 1, slide[1]);
        J a = turnAbout<P>(Rm, Vec3<P>(P(0.0), P(0.0), P(1.0)));
        continued(a.v, near(n.z + 2));
        set(n.z + 2, a);
        break;
      }
      case NodeKind::Cylindrical: {  // Rm = R(u, θ), x_rel = J − Rm J + s u + Rm x0
        J a = turnAbout<P>(Rm, g.axis) * sign;
        continued(a.v, near(n.z));
        set(n.z, a);
        const V3<J> along = detail::sub(xrel, detail::mul(Rm, g.x0));
        set(n.z + 1, (along[0] * g.axis.x() + along[1] * g.axis.y() + along[2] * g.axis.z()) * sign);
        break;
      }
      case NodeKind::Universal: {  // Rm = R(u1, θ1) R(u2, θ2): Rm u2 = R(u1, θ1) u2
        J a1 = angleAbout<P>(g.axis, g.axis2, detail::mul(Rm, g.axis2));
        continued(a1.v, near(n.z));
        const M3<J> first = detail::axisAngle<J>(g.axis, a1);
        M3<J> firstT;
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) firstT(i, j) = first(j, i);
        J a2 = turnAbout<P>(detail::mul(firstT, Rm), g.axis2);
        continued(a2.v, near(n.z + 1));
        set(n.z, a1);
        set(n.z + 1, a2);
        break;
      }
      case NodeKind::Spherical: {
        J qu[4];
        const double nearQ[4] = {near(n.z), near(n.z + 1), near(n.z + 2), near(n.z + 3)};
        quaternionOf<P>(Rm, nearQ, qu);
        for (int i = 0; i < 4; ++i) set(n.z + i, qu[i]);
        break;
      }
      case NodeKind::FreeSpatial: {  // x_rel = x0 + (z0, z1, z2), Rm = R(quaternion)
        for (int i = 0; i < 3; ++i) set(n.z + i, slide[i]);
        J qu[4];
        const double nearQ[4] = {near(n.z + 3), near(n.z + 4), near(n.z + 5), near(n.z + 6)};
        quaternionOf<P>(Rm, nearQ, qu);
        for (int i = 0; i < 4; ++i) set(n.z + 3 + i, qu[i]);
        break;
      }
      case NodeKind::Fixed: break;
    }
  }
}

void treeStateOf(const RecursiveModel& tree, const kin::NaturalModel& natural, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                 const Eigen::VectorXd& qdd, Eigen::VectorXd& z, Eigen::VectorXd& zd, Eigen::VectorXd& zdd) {
  const Eigen::VectorXd near = z;
  treeStateOn<double>(tree, tree.numbers, natural, nullptr, q, qd, qdd, near, z, zd, zdd);
}

#define LW_TREE_MAP_ON(P)                                                                                                                  \
  template void naturalStateOn<P>(const RecursiveModel&, const TreeNumbers<P>&, const kin::NaturalModel&, const NaturalTreeMap&,          \
                                  const kin::NaturalNumbers<P>*, const Eigen::Matrix<P, Eigen::Dynamic, 1>&,                           \
                                  const Eigen::Matrix<P, Eigen::Dynamic, 1>&, const Eigen::Matrix<P, Eigen::Dynamic, 1>&,              \
                                  Eigen::Matrix<P, Eigen::Dynamic, 1>&, Eigen::Matrix<P, Eigen::Dynamic, 1>&,                            \
                                  Eigen::Matrix<P, Eigen::Dynamic, 1>*);                                                                 \
  template void treeStateOn<P>(const RecursiveModel&, const TreeNumbers<P>&, const kin::NaturalModel&, const kin::NaturalNumbers<P>*,     \
                               const StateOn<P>&, const StateOn<P>&, const StateOn<P>&, const Eigen::VectorXd&,                          \
                               Eigen::Matrix<P, Eigen::Dynamic, 1>&, Eigen::Matrix<P, Eigen::Dynamic, 1>&,                               \
                               Eigen::Matrix<P, Eigen::Dynamic, 1>&);
LW_TREE_MAP_ON(double)
LW_TREE_MAP_ON(num::Dual8)
LW_TREE_MAP_ON(std::complex<double>)
#undef LW_TREE_MAP_ON

}  // namespace lw::dyn
