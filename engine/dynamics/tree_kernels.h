// Templates shared by the recursive kernels (recursive_kinematics.cpp, generalized_forces.cpp):
// 3-vectors and row-major 3×3 matrices on any scalar, joint motions and the pose recursion of the
// tree. Internal to engine/dynamics: include from .cpp files only.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <vector>

#include "dynamics/recursive_model.h"
#include "numeric/dual_eigen.h"
#include "numeric/jet.h"
#include <complex>

namespace lw::dyn::detail {

// ---- 3-vectors and row-major 3×3 matrices on any scalar ----
template <class T>
struct V3 {
  T v[3];
  T& operator[](int i) { return v[i]; }
  const T& operator[](int i) const { return v[i]; }
};
template <class T>
struct M3 {
  T a[9];
  T& operator()(int i, int j) { return a[3 * i + j]; }
  const T& operator()(int i, int j) const { return a[3 * i + j]; }
};
template <class T> M3<T> identity() {
  M3<T> m;
  for (int i = 0; i < 9; ++i) m.a[i] = T(i % 4 == 0 ? 1.0 : 0.0);
  return m;
}
template <class T> M3<T> mul(const M3<T>& A, const M3<T>& B) {
  M3<T> C;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) C(i, j) = A(i, 0) * B(0, j) + A(i, 1) * B(1, j) + A(i, 2) * B(2, j);
  return C;
}
template <class T> V3<T> mul(const M3<T>& A, const V3<T>& x) {
  V3<T> y;
  for (int i = 0; i < 3; ++i) y[i] = A(i, 0) * x[0] + A(i, 1) * x[1] + A(i, 2) * x[2];
  return y;
}
// products with constant (double) operands: a scalar times a constant costs far less than two
// scalars on the AD types
template <class T> M3<T> mul(const M3<T>& A, const Eigen::Matrix3d& B) {
  M3<T> C;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) C(i, j) = A(i, 0) * B(0, j) + A(i, 1) * B(1, j) + A(i, 2) * B(2, j);
  return C;
}
template <class T> V3<T> mul(const M3<T>& A, const Eigen::Vector3d& x) {
  V3<T> y;
  for (int i = 0; i < 3; ++i) y[i] = A(i, 0) * x.x() + A(i, 1) * x.y() + A(i, 2) * x.z();
  return y;
}
// products with a model's numbers on another scalar P (a dual number or complex step of the
// design parameters): T is P itself or a jet on P
template <class T, class P> M3<T> mul(const M3<T>& A, const Eigen::Matrix<P, 3, 3>& B) {
  M3<T> C;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) C(i, j) = A(i, 0) * B(0, j) + A(i, 1) * B(1, j) + A(i, 2) * B(2, j);
  return C;
}
template <class T, class P> V3<T> mul(const M3<T>& A, const Eigen::Matrix<P, 3, 1>& x) {
  V3<T> y;
  for (int i = 0; i < 3; ++i) y[i] = A(i, 0) * x[0] + A(i, 1) * x[1] + A(i, 2) * x[2];
  return y;
}
template <class T> V3<T> add(const V3<T>& a, const V3<T>& b) { return {{a[0] + b[0], a[1] + b[1], a[2] + b[2]}}; }
template <class T> V3<T> sub(const V3<T>& a, const V3<T>& b) { return {{a[0] - b[0], a[1] - b[1], a[2] - b[2]}}; }
template <class T> V3<T> scale(const T& s, const V3<T>& a) { return {{s * a[0], s * a[1], s * a[2]}}; }
template <class T> T dot(const V3<T>& a, const V3<T>& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
template <class T> V3<T> cross(const V3<T>& a, const V3<T>& b) {
  return {{a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]}};
}
// on dual numbers, each component's products in one pass over the lanes (numeric/dual.h)
template <int N> V3<num::Dual<N>> cross(const V3<num::Dual<N>>& a, const V3<num::Dual<N>>& b) {
  return {{num::mulSub(a[1], b[2], a[2], b[1]), num::mulSub(a[2], b[0], a[0], b[2]), num::mulSub(a[0], b[1], a[1], b[0])}};
}
template <int N> num::Dual<N> dot(const V3<num::Dual<N>>& a, const V3<num::Dual<N>>& b) { return num::dot3(a[0], b[0], a[1], b[1], a[2], b[2]); }
template <int N> V3<num::Dual<N>> mul(const M3<num::Dual<N>>& A, const Eigen::Matrix<num::Dual<N>, 3, 1>& x) {
  V3<num::Dual<N>> y;
  for (int i = 0; i < 3; ++i) y[i] = num::dot3(A(i, 0), x[0], A(i, 1), x[1], A(i, 2), x[2]);
  return y;
}
template <int N> V3<num::Dual<N>> mul(const M3<num::Dual<N>>& A, const V3<num::Dual<N>>& x) {
  V3<num::Dual<N>> y;
  for (int i = 0; i < 3; ++i) y[i] = num::dot3(A(i, 0), x[0], A(i, 1), x[1], A(i, 2), x[2]);
  return y;
}
template <int N> M3<num::Dual<N>> mul(const M3<num::Dual<N>>& A, const M3<num::Dual<N>>& B) {
  M3<num::Dual<N>> C;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) C(i, j) = num::dot3(A(i, 0), B(0, j), A(i, 1), B(1, j), A(i, 2), B(2, j));
  return C;
}
template <int N> M3<num::Dual<N>> mul(const M3<num::Dual<N>>& A, const Eigen::Matrix<num::Dual<N>, 3, 3>& B) {
  M3<num::Dual<N>> C;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) C(i, j) = num::dot3(A(i, 0), B(0, j), A(i, 1), B(1, j), A(i, 2), B(2, j));
  return C;
}
template <class T> V3<T> zero3() { return {{T(0.0), T(0.0), T(0.0)}}; }
template <class T, class P> V3<T> cst(const Eigen::Matrix<P, 3, 1>& v) { return {{T(v.x()), T(v.y()), T(v.z())}}; }
template <class T, class P> M3<T> cst(const Eigen::Matrix<P, 3, 3>& m) {
  M3<T> r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r(i, j) = T(m(i, j));
  return r;
}

// sin and cos of one angle; on jets the trigonometric functions of the value are shared
template <class T> void sinCos(const T& a, T& s, T& c) {
  using std::sin, std::cos;
  s = sin(a);
  c = cos(a);
}
template <class S> void sinCos(const kin::BasicJet<S>& a, kin::BasicJet<S>& s, kin::BasicJet<S>& c) {
  using std::sin, std::cos;
  const S sv = sin(a.v), cv = cos(a.v), d2 = a.d * a.d;
  s = {sv, cv * a.d, cv * a.dd - sv * d2};
  c = {cv, -(sv * a.d), -(sv * a.dd) - cv * d2};
}

// a constant that is exactly zero, derivatives included: its terms may be left out
inline bool exactZero(double x) { return x == 0; }
template <int N> bool exactZero(const num::Dual<N>& x) { return num::isExactZero(x); }
inline bool exactZero(const std::complex<double>& x) { return x.real() == 0 && x.imag() == 0; }

// rotation by angle about a unit axis u (Rodrigues): R = c I + s ũ + (1 − c) u uᵀ, without the
// terms whose constant factor is zero (drawn mechanisms' axes mostly lie along x, y or z)
template <class T, class P> M3<T> axisAngle(const Eigen::Matrix<P, 3, 1>& u, const T& angle) {
  T s, c;
  sinCos(angle, s, c);
  const T k = T(1.0) - c;
  const P zero(0.0);
  const P skew[9] = {zero, -u.z(), u.y(), u.z(), zero, -u.x(), -u.y(), u.x(), zero};
  M3<T> R;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      T e = i == j ? c : T(0.0);
      if (!exactZero(skew[3 * i + j])) e = s * skew[3 * i + j];  // off the diagonal only
      const P uu = u[i] * u[j];
      if (!exactZero(uu)) e = e + k * uu;
      R(i, j) = e;
    }
  return R;
}
// P · R(θ) for R a turn by θ about the coordinate axis e_a: only columns b = a+1 and d = a+2
// (mod 3) mix, 12 products of scalars instead of the 27 of a full product
template <class T> M3<T> turnedAbout(const M3<T>& P, int a, const T& s, const T& c) {
  const int b = (a + 1) % 3, d = (a + 2) % 3;
  M3<T> r;
  for (int i = 0; i < 3; ++i) {
    r(i, a) = P(i, a);
    r(i, b) = P(i, b) * c + P(i, d) * s;
    r(i, d) = P(i, d) * c - P(i, b) * s;
  }
  return r;
}
// rotation of the quaternion (w, x, y, z) normalised: R(q) = R(q/|q|), a rotation for every q ≠ 0.
// |q| = 1 stays a loop constraint (it fixes the one direction R does not see); being a rotation off
// the unit sphere too keeps Ṙ Rᵀ skew, so partial velocities transport rigidly along the tree.
template <class T> M3<T> quaternion(const T& w, const T& x, const T& y, const T& z) {
  M3<T> R;
  const T ww = w * w, xx = x * x, yy = y * y, zz = z * z;
  const T s = T(1.0) / (ww + xx + yy + zz), two = s * 2.0;
  R(0, 0) = (ww + xx - yy - zz) * s; R(0, 1) = two * (x * y - w * z); R(0, 2) = two * (x * z + w * y);
  R(1, 0) = two * (x * y + w * z); R(1, 1) = (ww - xx + yy - zz) * s; R(1, 2) = two * (y * z - w * x);
  R(2, 0) = two * (x * z - w * y); R(2, 1) = two * (y * z + w * x); R(2, 2) = (ww - xx - yy + zz) * s;
  return R;
}

template <class T>
struct Frame {
  M3<T> R;
  V3<T> x;
};

// s·a for a constant vector a
template <class T, class P> V3<T> along(const T& s, const Eigen::Matrix<P, 3, 1>& a) { return {{s * a.x(), s * a.y(), s * a.z()}}; }

// M_joint(z): rotation Rm and translation tm in the parent frame
// (g: the node's TreeNumbers<P>::NodeGeometry)
template <class T, class G>
void jointMotion(const Node& n, const G& g, const T* z, M3<T>& Rm, V3<T>& tm) {
  auto aboutJ = [&] {  // tm = J − Rm J: the rotation keeps the joint point J in place
    tm = sub(cst<T>(g.point), mul(Rm, g.point));
  };
  auto aboutOrigin = [&] {  // free bodies rotate about their stored origin
    tm = sub(cst<T>(g.x0), mul(Rm, g.x0));
  };
  const double sign = n.flip ? -1.0 : 1.0;
  switch (n.kind) {
    case NodeKind::Revolute:
      Rm = axisAngle<T>(g.axis, z[0] * sign);
      aboutJ();
      return;
    case NodeKind::Prismatic:
      Rm = identity<T>();
      tm = along(z[0] * sign, g.axis);
      return;
    case NodeKind::Cylindrical:
      Rm = axisAngle<T>(g.axis, z[0] * sign);
      aboutJ();
      tm = add(tm, along(z[1] * sign, g.axis));
      return;
    case NodeKind::Universal:
      Rm = mul(axisAngle<T>(g.axis, z[0]), axisAngle<T>(g.axis2, z[1]));
      aboutJ();
      return;
    case NodeKind::Spherical:
      Rm = quaternion<T>(z[0], z[1], z[2], z[3]);
      aboutJ();
      return;
    case NodeKind::Fixed:
      Rm = identity<T>();
      tm = {{T(0.0), T(0.0), T(0.0)}};
      return;
    case NodeKind::FreePlanar:
      Rm = axisAngle<T>(Eigen::Vector3d::UnitZ().eval(), z[2]);
      aboutOrigin();
      tm = add(tm, V3<T>{{z[0], z[1], T(0.0)}});
      return;
    case NodeKind::FreeSpatial:
      Rm = quaternion<T>(z[3], z[4], z[5], z[6]);
      aboutOrigin();
      tm = add(tm, V3<T>{{z[0], z[1], z[2]}});
      return;
  }
}

// node n's body frame along jets of its own coordinates zl (value, rate, second rate), its parent's
// frame p held still: what a node's partial velocities and its motion relative to the parent are
// read from
template <class S, class G>
Frame<kin::BasicJet<S>> childFrameAlong(const Node& n, const G& g, const Frame<S>& p, const kin::BasicJet<S>* zl) {
  using J = kin::BasicJet<S>;
  Frame<J> pj;
  for (int i = 0; i < 9; ++i) pj.R.a[i] = J(p.R.a[i]);
  for (int i = 0; i < 3; ++i) pj.x[i] = J(p.x[i]);
  M3<J> Rm;
  V3<J> tm;
  jointMotion(n, g, zl, Rm, tm);
  Frame<J> c;
  c.R = mul(pj.R, mul(Rm, g.R0));
  c.x = add(pj.x, mul(pj.R, add(tm, mul(Rm, g.x0))));
  return c;
}

// A quaternion node's motion (spherical joint, free spatial body) in closed form, its parent's
// frame pf held still. R(q) = R(q̂), q̂ = q/|q|, turns with ω = 2 E(q̂) q̇ / |q| in the parent's axes,
// E(q̂)a = ŵ a_v − a_w v̂ + v̂ × a_v (E q̂ = 0: q̇'s radial part does not turn R), and
// ω̇ = 2 E(q̂) q̈ / |q| − 4 (q̂·q̇) E(q̂) q̇ / |q|² (E(q̇) q̇ = 0), about the point that stays put: the
// joint point, or the free body's origin, which its translations carry along the parent's axes.
// Motions are twists about the world origin [v_O; ω]: the columns per unit rate of each of the
// node's coordinates, and the node's motion relative to its parent at (z, ż, z̈) (zn = z + n.z...).
template <class S>
struct QuaternionMotion {
  V3<S> colV[7], colW[7];
  V3<S> Vv, Vw, Av, Aw;
};
template <class S, class G>
void quaternionNodeMotion(const Node& n, const G& g, const Frame<S>& pf, const S* zn, const S* zdn, const S* zddn, QuaternionMotion<S>& out) {
  using std::sqrt;
  const bool free = n.kind == NodeKind::FreeSpatial;
  const int o = free ? 3 : 0;  // the quaternion's first coordinate
  const S w = zn[o], x = zn[o + 1], y = zn[o + 2], z = zn[o + 3];
  const S inv = S(1.0) / sqrt(w * w + x * x + y * y + z * z);
  const S hw = w * inv;
  const V3<S> hv{{x * inv, y * inv, z * inv}};
  auto E = [&](const S& aw, const V3<S>& av) { return add(sub(scale(hw, av), scale(aw, hv)), cross(hv, av)); };
  auto world = [&](const V3<S>& a) { return mul(pf.R, a); };
  // the point that stays put, and (free) the translations' velocity and acceleration
  V3<S> P, Pd{{S(0.0), S(0.0), S(0.0)}}, Pdd = Pd;
  if (free) {
    const V3<S> t{{zn[0], zn[1], zn[2]}};
    P = add(pf.x, mul(pf.R, add(cst<S>(g.x0), t)));
    if (zdn) Pd = world(V3<S>{{zdn[0], zdn[1], zdn[2]}});
    if (zddn) Pdd = world(V3<S>{{zddn[0], zddn[1], zddn[2]}});
    for (int j = 0; j < 3; ++j) {
      out.colV[j] = V3<S>{{pf.R(0, j), pf.R(1, j), pf.R(2, j)}};
      out.colW[j] = zero3<S>();
    }
  } else {
    P = add(pf.x, mul(pf.R, g.point));
  }
  const S two = inv * 2.0;
  for (int j = 0; j < 4; ++j) {
    V3<S> av{{S(0.0), S(0.0), S(0.0)}};
    if (j > 0) av[j - 1] = S(1.0);
    const V3<S> Wj = world(scale(two, E(S(j == 0 ? 1.0 : 0.0), av)));
    out.colW[o + j] = Wj;
    out.colV[o + j] = cross(P, Wj);
  }
  if (!zdn) return;
  const V3<S> qdv{{zdn[o + 1], zdn[o + 2], zdn[o + 3]}};
  const V3<S> Eqd = E(zdn[o], qdv);
  const V3<S> om = world(scale(two, Eqd));
  out.Vw = om;
  out.Vv = add(Pd, cross(P, om));
  const S radial = hw * zdn[o] + hv[0] * qdv[0] + hv[1] * qdv[1] + hv[2] * qdv[2];  // q̂·q̇
  V3<S> al = scale(S(-2.0) * two * inv * radial, Eqd);
  if (zddn) al = add(al, scale(two, E(zddn[o], V3<S>{{zddn[o + 1], zddn[o + 2], zddn[o + 3]}})));
  out.Aw = world(al);
  out.Av = sub(add(Pdd, cross(P, out.Aw)), cross(om, Pd));
}

// every active torsion spring on a tree joint: f(node, the spring's numbers); they act on their
// joint's coordinate directly
template <class P, class F>
void forEachTreeTorsionSpring(const RecursiveModel& m, const MechanismNumbers<P>& nums, F&& f) {
  const auto& forces = m.mechanism->forces;
  for (std::size_t fi = 0; fi < forces.size(); ++fi) {
    if (!nums.forces[fi].active || forces[fi].type != Force::Type::TorsionSpring) continue;
    const int node = m.treeJointNode[static_cast<std::size_t>(forces[fi].joint)];
    if (node >= 0) f(m.nodes[static_cast<std::size_t>(node)], nums.forces[fi]);
  }
}

// the pose of node n's body from its parent's p and its coordinates zn (= z + n.z):
// X_child = X_parent ∘ M_joint ∘ X0
template <class T, class G>
void nodeFrame(const Node& n, const G& g, const Frame<T>& p, const T* zn, Frame<T>& c) {
  if (n.kind == NodeKind::Revolute && g.axisIndex >= 0) {
    // the common case on its own: P = p.R Rm by turning two columns, and
    // x = p.x + p.R (J + Rm (x0 − J)) = p.x + p.R J + P (x0 − J)
    T s, co;
    sinCos(T(zn[0] * (n.flip ? -g.axisSign : g.axisSign)), s, co);
    const M3<T> R = turnedAbout(p.R, g.axisIndex, s, co);
    c.R = g.R0isIdentity ? R : mul(R, g.R0);
    c.x = add(add(p.x, mul(p.R, g.point)), mul(R, std::decay_t<decltype(g.x0)>(g.x0 - g.point)));
    return;
  }
  M3<T> Rm = identity<T>();
  V3<T> tm{{T(0.0), T(0.0), T(0.0)}};
  jointMotion(n, g, zn, Rm, tm);
  c.R = mul(p.R, mul(Rm, g.R0));
  c.x = add(p.x, mul(p.R, add(tm, mul(Rm, g.x0))));
}

// poses of every body, down the tree, with the numbers `p` (the model's, or the same on another
// scalar)
template <class T, class P>
void computeFrames(const RecursiveModel& m, const TreeNumbers<P>& p, const T* z, std::vector<Frame<T>>& f) {
  f.resize(p.mech.bodies.size());
  f[0].R = identity<T>();
  f[0].x = {{T(0.0), T(0.0), T(0.0)}};
  for (std::size_t k = 0; k < m.nodes.size(); ++k) {
    const Node& n = m.nodes[k];
    nodeFrame(n, p.nodes[k], f[static_cast<std::size_t>(n.parent)], z + n.z, f[static_cast<std::size_t>(n.body)]);
  }
}
template <class T>
void computeFrames(const RecursiveModel& m, const T* z, std::vector<Frame<T>>& f) {
  computeFrames<T, double>(m, m.numbers, z, f);
}

template <class T, class P> V3<T> worldPoint(const Frame<T>& f, const Eigen::Matrix<P, 3, 1>& p) { return add(f.x, mul(f.R, p)); }

/// The frames along z + s ż on jets (value, rate, and acceleration with z̈ = 0), computed once per
/// (model, z, ż) in `data`: the forces, the loop rates and the output rows of one state share
/// them (recursive_kinematics.cpp). The reference holds until the next call with another state.
/// Equal to computeFrames on jets (z, ż, 0) up to rounding; revolute nodes go by the velocity
/// recursion from the poses at z instead.
const std::vector<Frame<kin::Jet>>& jetFramesAlong(const RecursiveModel& m, RecursiveData& data, const double* z, const double* zd);
template <class T, class P> V3<T> worldDir(const Frame<T>& f, const Eigen::Matrix<P, 3, 1>& v) { return mul(f.R, v); }

}  // namespace lw::dyn::detail
