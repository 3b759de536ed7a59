#include "dynamics/natural_tree_map.h"

#include <cmath>

#include <Eigen/Geometry>
#include <Eigen/LU>
#include <numbers>

#include "dynamics/tree_kernels.h"
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
  // a spatial body's frame is linear in its coordinates only with its third vector
  if (natural.dimension == 3)
    for (std::size_t b = 1; b < natural.bodies.size(); ++b)
      if (natural.bodies[b].spinFree || natural.bodies[b].d[2].a < 0) {
        why = "body '" + tree.mechanism->bodies[b].name + "' has no linear frame in the natural model" +
              (natural.bodies[b].spinFree ? " (a rod between ball joints: no orientation coordinate)" : "");
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

void naturalStateOf(const RecursiveModel& tree, const kin::NaturalModel& natural, const NaturalTreeMap& map, const Eigen::VectorXd& z,
                    const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd, Eigen::VectorXd& q, Eigen::VectorXd& qd, Eigen::VectorXd* qdd) {
  std::vector<Jet> zj(static_cast<std::size_t>(tree.nz));
  for (int i = 0; i < tree.nz; ++i) zj[static_cast<std::size_t>(i)] = Jet(z[i], zd[i], zdd[i]);
  std::vector<Frame<Jet>> f;
  detail::computeFrames<Jet>(tree, zj.data(), f);
  q.resize(natural.nq);
  qd.resize(natural.nq);
  if (qdd) qdd->resize(natural.nq);
  for (std::size_t e = 0; e < natural.entities.size(); ++e) {
    const kin::Entity& en = natural.entities[e];
    const auto& c = map.entities[e];
    if (en.fixed() || c.body < 0) continue;
    const Frame<Jet>& frame = f[static_cast<std::size_t>(c.body)];
    const V3<Jet> w = c.isVector ? detail::mul(frame.R, c.local) : detail::worldPoint(frame, c.local);
    for (int k = 0; k < natural.dimension; ++k) {
      q[en.offset + k] = w[k].v;
      qd[en.offset + k] = w[k].d;
      if (qdd) (*qdd)[en.offset + k] = w[k].dd;
    }
  }
}

namespace {

// entity e on the jet q + s q̇ + ½ s² q̈ (fixed: its value)
V3<Jet> entityJet(const kin::NaturalModel& nm, int e, const Eigen::VectorXd& q, const Eigen::VectorXd& qd, const Eigen::VectorXd& qdd) {
  const kin::Entity& en = nm.entities[static_cast<std::size_t>(e)];
  if (en.fixed()) return {{Jet(en.value.x()), Jet(en.value.y()), Jet(en.value.z())}};
  V3<Jet> v{{Jet(0.0), Jet(0.0), Jet(0.0)}};
  for (int k = 0; k < nm.dimension; ++k) v[k] = Jet(q[en.offset + k], qd[en.offset + k], qdd[en.offset + k]);
  return v;
}

V3<Jet> directionJet(const kin::NaturalModel& nm, const kin::Direction& d, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                     const Eigen::VectorXd& qdd) {
  V3<Jet> v = entityJet(nm, d.a, q, qd, qdd);
  return d.b >= 0 ? detail::sub(v, entityJet(nm, d.b, q, qd, qdd)) : v;
}

// the frame of a spatial body: its basis X = [d, d', w] carries the stored frame along,
// R = X X0⁻¹ R0 and x = O + X X0⁻¹ (x0 − O0), linear in q
Frame<Jet> spatialFrame(const kin::NaturalModel& nm, const ResolvedMechanism& m, int b, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                        const Eigen::VectorXd& qdd) {
  const kin::BodyFrame& bf = nm.bodies[static_cast<std::size_t>(b)];
  const auto& body = m.bodies[static_cast<std::size_t>(b)];
  Eigen::Matrix3d X0;
  M3<Jet> X;
  for (int i = 0; i < 3; ++i) {
    X0.col(i) = bf.ownValue(nm.entities, bf.d[i]);  // as the body's own stored pose places it
    const V3<Jet> c = directionJet(nm, bf.d[i], q, qd, qdd);
    for (int r = 0; r < 3; ++r) X(r, i) = c[r];
  }
  const Eigen::Matrix3d X0inv = X0.inverse();
  const Eigen::Vector3d o0 = bf.ownValue(nm.entities, bf.origin);
  Frame<Jet> f;
  f.R = detail::mul(X, Eigen::Matrix3d(X0inv * body.rotation));
  f.x = detail::add(entityJet(nm, bf.origin, q, qd, qdd), detail::mul(X, Eigen::Vector3d(X0inv * (body.position - o0))));
  return f;
}

// the frame of planar body b: turned from its stored frame as its direction d turned from the
// stored d0 (normalised: a penalty's stretched d turns the frame, it does not scale it), and
// moved with its origin entity
Frame<Jet> bodyFrame(const kin::NaturalModel& nm, const ResolvedMechanism& m, int b, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                     const Eigen::VectorXd& qdd) {
  if (nm.dimension == 3) return spatialFrame(nm, m, b, q, qd, qdd);
  const kin::BodyFrame& bf = nm.bodies[static_cast<std::size_t>(b)];
  const auto& body = m.bodies[static_cast<std::size_t>(b)];
  const V3<Jet> o = entityJet(nm, bf.origin, q, qd, qdd);
  V3<Jet> d = entityJet(nm, bf.d[0].a, q, qd, qdd);
  if (bf.d[0].b >= 0) d = detail::sub(d, entityJet(nm, bf.d[0].b, q, qd, qdd));
  // the stored frame as the body's own stored pose places it
  const Eigen::Vector3d d0 = bf.ownValue(nm.entities, bf.d[0]), o0 = bf.ownValue(nm.entities, bf.origin);
  using std::sqrt;
  const Jet scale = Jet(1.0) / (sqrt(d[0] * d[0] + d[1] * d[1]) * d0.head<2>().norm());
  const Jet c = (d[0] * d0.x() + d[1] * d0.y()) * scale, s = (d[1] * d0.x() - d[0] * d0.y()) * scale;
  M3<Jet> turn = detail::identity<Jet>();
  turn(0, 0) = c, turn(0, 1) = -s, turn(1, 0) = s, turn(1, 1) = c;
  Frame<Jet> f;
  f.R = detail::mul(turn, body.rotation);
  f.x = detail::add(o, detail::mul(turn, Eigen::Vector3d(body.position - o0)));
  return f;
}

// the angle of the turn Rm about the unit axis u: sin from Rm's skew part along u, cos from its trace
Jet turnAbout(const M3<Jet>& Rm, const Eigen::Vector3d& u) {
  const Jet sinPart = ((Rm(2, 1) - Rm(1, 2)) * u.x() + (Rm(0, 2) - Rm(2, 0)) * u.y() + (Rm(1, 0) - Rm(0, 1)) * u.z()) * 0.5;
  const Jet cosPart = (Rm(0, 0) + Rm(1, 1) + Rm(2, 2) - Jet(1.0)) * 0.5;
  return num::atan2(sinPart, cosPart);
}

// the unit quaternion (w, x, y, z) of the turn Rm (Shepperd's branches, by the largest of the
// diagonal's combinations), its sign that of `near` (the tree's previous coordinates)
void quaternionOf(const M3<Jet>& R, const double* near, Jet* q) {
  const double tr = R(0, 0).v + R(1, 1).v + R(2, 2).v;
  Jet w, x, y, z;
  using std::sqrt;
  if (tr >= R(0, 0).v && tr >= R(1, 1).v && tr >= R(2, 2).v) {
    w = sqrt(Jet(1.0) + R(0, 0) + R(1, 1) + R(2, 2)) * 0.5;
    const Jet k = Jet(0.25) / w;
    x = (R(2, 1) - R(1, 2)) * k, y = (R(0, 2) - R(2, 0)) * k, z = (R(1, 0) - R(0, 1)) * k;
  } else if (R(0, 0).v >= R(1, 1).v && R(0, 0).v >= R(2, 2).v) {
    x = sqrt(Jet(1.0) + R(0, 0) - R(1, 1) - R(2, 2)) * 0.5;
    const Jet k = Jet(0.25) / x;
    w = (R(2, 1) - R(1, 2)) * k, y = (R(0, 1) + R(1, 0)) * k, z = (R(0, 2) + R(2, 0)) * k;
  } else if (R(1, 1).v >= R(2, 2).v) {
    y = sqrt(Jet(1.0) - R(0, 0) + R(1, 1) - R(2, 2)) * 0.5;
    const Jet k = Jet(0.25) / y;
    w = (R(0, 2) - R(2, 0)) * k, x = (R(0, 1) + R(1, 0)) * k, z = (R(1, 2) + R(2, 1)) * k;
  } else {
    z = sqrt(Jet(1.0) - R(0, 0) - R(1, 1) + R(2, 2)) * 0.5;
    const Jet k = Jet(0.25) / z;
    w = (R(1, 0) - R(0, 1)) * k, x = (R(0, 2) + R(2, 0)) * k, y = (R(1, 2) + R(2, 1)) * k;
  }
  const double along = w.v * near[0] + x.v * near[1] + y.v * near[2] + z.v * near[3];
  const double s = along < 0 ? -1.0 : 1.0;
  q[0] = w * s, q[1] = x * s, q[2] = y * s, q[3] = z * s;
}

// the angle about unit axis u that takes a to b (their parts normal to u)
Jet angleAbout(const Eigen::Vector3d& u, const Eigen::Vector3d& a, const V3<Jet>& b) {
  const Eigen::Vector3d a0 = a - u.dot(a) * u;
  const Jet bu = b[0] * u.x() + b[1] * u.y() + b[2] * u.z();
  const V3<Jet> b0 = detail::sub(b, V3<Jet>{{bu * u.x(), bu * u.y(), bu * u.z()}});
  const Eigen::Vector3d n = u.cross(a0);  // a0 turned a quarter about u
  return num::atan2(b0[0] * n.x() + b0[1] * n.y() + b0[2] * n.z(), b0[0] * a0.x() + b0[1] * a0.y() + b0[2] * a0.z());
}

// the angle a continued from `near`: whole turns added
double continued(double a, double near) { return a + 2 * std::numbers::pi * std::round((near - a) / (2 * std::numbers::pi)); }

}  // namespace

void treeStateOf(const RecursiveModel& tree, const kin::NaturalModel& natural, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                 const Eigen::VectorXd& qdd, Eigen::VectorXd& z, Eigen::VectorXd& zd, Eigen::VectorXd& zdd) {
  const ResolvedMechanism& m = *tree.mechanism;
  std::vector<Frame<Jet>> f(m.bodies.size());
  f[0].R = detail::identity<Jet>();
  f[0].x = {{Jet(0.0), Jet(0.0), Jet(0.0)}};
  for (std::size_t b = 1; b < m.bodies.size(); ++b) f[b] = bodyFrame(natural, m, static_cast<int>(b), q, qd, qdd);
  z.conservativeResize(tree.nz);
  zd.resize(tree.nz);
  zdd.resize(tree.nz);
  auto set = [&](int i, const Jet& v) {
    z[i] = v.v;
    zd[i] = v.d;
    zdd[i] = v.dd;
  };
  for (std::size_t k = 0; k < tree.nodes.size(); ++k) {
    const Node& n = tree.nodes[k];
    const auto& g = tree.numbers.nodes[k];
    const Frame<Jet>& p = f[static_cast<std::size_t>(n.parent)];
    const Frame<Jet>& c = f[static_cast<std::size_t>(n.body)];
    // the pose relative to the parent, X_parent⁻¹ X_child = M_joint(z) X0: M's turn Rm = R_rel R0ᵀ
    M3<Jet> pT;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) pT(i, j) = p.R(j, i);
    const M3<Jet> Rrel = detail::mul(pT, c.R);
    const V3<Jet> xrel = detail::mul(pT, detail::sub(c.x, p.x));
    const Eigen::Matrix3d R0T = g.R0.transpose();
    const M3<Jet> Rm = detail::mul(Rrel, R0T);
    const double sign = n.flip ? -1.0 : 1.0;
    const V3<Jet> slide = detail::sub(xrel, detail::cst<Jet>(g.x0));  // Prismatic: tm = x_rel − x0
    switch (n.kind) {
      case NodeKind::Revolute: {
        Jet a = turnAbout(Rm, g.axis) * sign;
        a.v = continued(a.v, z[n.z]);
        set(n.z, a);
        break;
      }
      case NodeKind::Prismatic:
        set(n.z, (slide[0] * g.axis.x() + slide[1] * g.axis.y() + slide[2] * g.axis.z()) * sign);
        break;
      case NodeKind::FreePlanar: {
        set(n.z, slide[0]);  // x_rel = x0 + (z0, z1, 0)
        set(n.z + 1, slide[1]);
        Jet a = turnAbout(Rm, Eigen::Vector3d::UnitZ());
        a.v = continued(a.v, z[n.z + 2]);
        set(n.z + 2, a);
        break;
      }
      case NodeKind::Cylindrical: {  // Rm = R(u, θ), x_rel = J − Rm J + s u + Rm x0
        Jet a = turnAbout(Rm, g.axis) * sign;
        a.v = continued(a.v, z[n.z]);
        set(n.z, a);
        const V3<Jet> along = detail::sub(xrel, detail::mul(Rm, g.x0));
        set(n.z + 1, (along[0] * g.axis.x() + along[1] * g.axis.y() + along[2] * g.axis.z()) * sign);
        break;
      }
      case NodeKind::Universal: {  // Rm = R(u1, θ1) R(u2, θ2): Rm u2 = R(u1, θ1) u2
        Jet a1 = angleAbout(g.axis, g.axis2, detail::mul(Rm, g.axis2));
        a1.v = continued(a1.v, z[n.z]);
        const M3<Jet> first = detail::axisAngle<Jet>(g.axis, a1);
        M3<Jet> firstT;
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) firstT(i, j) = first(j, i);
        Jet a2 = turnAbout(detail::mul(firstT, Rm), g.axis2);
        a2.v = continued(a2.v, z[n.z + 1]);
        set(n.z, a1);
        set(n.z + 1, a2);
        break;
      }
      case NodeKind::Spherical: {
        Jet qu[4];
        const double near[4] = {z[n.z], z[n.z + 1], z[n.z + 2], z[n.z + 3]};
        quaternionOf(Rm, near, qu);
        for (int i = 0; i < 4; ++i) set(n.z + i, qu[i]);
        break;
      }
      case NodeKind::FreeSpatial: {  // x_rel = x0 + (z0, z1, z2), Rm = R(quaternion)
        for (int i = 0; i < 3; ++i) set(n.z + i, slide[i]);
        Jet qu[4];
        const double near[4] = {z[n.z + 3], z[n.z + 4], z[n.z + 5], z[n.z + 6]};
        quaternionOf(Rm, near, qu);
        for (int i = 0; i < 4; ++i) set(n.z + 3 + i, qu[i]);
        break;
      }
      case NodeKind::Fixed: break;
    }
  }
}

}  // namespace lw::dyn
