// The loop constraints' rows and the joints' frames on any scalar (internal to engine/dynamics:
// include from .cpp files only): what Φ reads of the frames, shared by the double and jet kernels
// (recursive_kinematics.cpp) and the templates on any scalar (kinematics_on.cpp).
#pragma once

#include <cmath>
#include <type_traits>
#include <vector>

#include "dynamics/recursive_model.h"
#include "dynamics/tree_kernels.h"
#include "numeric/first_jets.h"
#include "numeric/jet.h"
#include "numeric/scalar.h"

namespace lw::dyn::detail {

// f(t) on T: a plain scalar (the value), or a jet along the time (its derivatives from the
// function's own rate and acceleration)
template <class T> struct IsJet : std::false_type {};
template <class S> struct IsJet<kin::BasicJet<S>> : std::true_type {};

template <class T, class P>
T timeFunction(const TimeFunctionOn<P>& f, const T& t) {
  if constexpr (IsJet<T>::value) {
    const double tv = num::value(t.v);
    const auto r = f.rate(tv);
    return T(f.value(tv), r * t.d, f.acceleration(tv) * t.d * t.d + r * t.dd);
  } else {
    return T(f.value(num::value(t)));
  }
}

// axis and perpendiculars of side s of joint j, in world (v = u × w, rotated from the body's)
template <class T, class P>
void jointFrame(const RecursiveModel& m, const TreeNumbers<P>& p, const std::vector<Frame<T>>& f, int j, int s, V3<T>& P_,
                V3<T>& u, V3<T>& w, V3<T>& v) {
  const auto& jt = m.mechanism->joints[static_cast<std::size_t>(j)];
  const Frame<T>& F = f[static_cast<std::size_t>(jt.body(s))];
  const auto& ax = p.jointAxes[static_cast<std::size_t>(j)][static_cast<std::size_t>(s)];
  P_ = worldPoint(F, p.mech.point(jt.points[s]));
  u = worldDir(F, ax.u);
  w = worldDir(F, ax.w);
  v = worldDir(F, ax.v);
}

// a cut joint's point on side s, in world (what its position rows need)
template <class T, class P>
V3<T> jointPoint(const RecursiveModel& m, const TreeNumbers<P>& p, const std::vector<Frame<T>>& f, int j, int s) {
  const auto& jt = m.mechanism->joints[static_cast<std::size_t>(j)];
  return worldPoint(f[static_cast<std::size_t>(jt.body(s))], p.mech.point(jt.points[s]));
}

// Φ's rows of constraint c into out[c.row...]. `wanted` (by row, optional): a revolute's axis rows
// are skipped (left as they are) when neither is wanted; a Matrix R step uses none on a planar
// linkage drawn in 3D, and they cost more than its position rows
template <class T, class P>
void constraintRow(const RecursiveModel& m, const TreeNumbers<P>& p, const std::vector<Frame<T>>& f, const T* z, const T& t,
                   const LoopConstraint& c, T* out, const std::vector<char>* wanted = nullptr) {
  using std::cos, std::sin;
  const auto& mech = *m.mechanism;
  const bool planar = m.dimension == 2;
  {
    T* r = out + c.row;
    switch (c.kind) {
      case LoopConstraint::Kind::UnitQuaternion: {
        const Node& n = m.nodes[static_cast<std::size_t>(c.index)];
        const T* q = z + n.z + (n.kind == NodeKind::FreeSpatial ? 3 : 0);
        r[0] = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] - T(1.0);
        break;
      }
      case LoopConstraint::Kind::CutJoint: {
        const auto& jt = mech.joints[static_cast<std::size_t>(c.index)];
        if (jt.type == JointType::Revolute) {  // the common case: only the vectors its rows read
          const V3<T> d = sub(jointPoint(m, p, f, c.index, 1), jointPoint(m, p, f, c.index, 0));
          for (int i = 0; i < 3; ++i) r[i] = d[i];
          if (wanted && !(*wanted)[static_cast<std::size_t>(c.row) + 3] && !(*wanted)[static_cast<std::size_t>(c.row) + 4]) break;
          const auto& axes = p.jointAxes[static_cast<std::size_t>(c.index)];
          const V3<T> u1 = worldDir(f[static_cast<std::size_t>(jt.body(0))], axes[0].u);
          const Frame<T>& F2 = f[static_cast<std::size_t>(jt.body(1))];
          r[3] = dot(u1, worldDir(F2, axes[1].w));  // axes parallel: u1 has no component along body 2's perpendiculars
          r[4] = dot(u1, worldDir(F2, axes[1].v));
          break;
        }
        if (jt.type == JointType::Pin || jt.type == JointType::Spherical) {  // the points alone
          const V3<T> d = sub(jointPoint(m, p, f, c.index, 1), jointPoint(m, p, f, c.index, 0));
          for (int i = 0; i < (jt.type == JointType::Pin ? 2 : 3); ++i) r[i] = d[i];
          break;
        }
        V3<T> P1, u1, w1, v1, P2, u2, w2, v2;
        jointFrame(m, p, f, c.index, 0, P1, u1, w1, v1);
        jointFrame(m, p, f, c.index, 1, P2, u2, w2, v2);
        const V3<T> d = sub(P2, P1);
        switch (jt.type) {
          case JointType::Pin:  // above
          case JointType::Spherical:
          case JointType::Revolute:
            break;
          case JointType::Universal:
            for (int i = 0; i < 3; ++i) r[i] = d[i];
            r[3] = dot(u1, u2) - T(p.joints[static_cast<std::size_t>(c.index)].axesDot);
            break;
          case JointType::Slider:
            // on the line, and no relative rotation
            r[0] = d[0] * u1[1] - d[1] * u1[0];
            r[1] = u1[0] * u2[1] - u1[1] * u2[0];
            break;
          case JointType::Cylindrical:
          case JointType::Prismatic:
            r[0] = dot(d, w1);
            r[1] = dot(d, v1);
            r[2] = dot(u1, w2);
            r[3] = dot(u1, v2);
            if (jt.type == JointType::Prismatic) r[4] = dot(w1, v2);  // no rotation about the axis
            break;
          case JointType::Fixed: {
            const Frame<T>& F1 = f[static_cast<std::size_t>(jt.body(0))];
            const Frame<T>& F2 = f[static_cast<std::size_t>(jt.body(1))];
            const int n = planar ? 2 : 3;
            for (int i = 0; i < n; ++i) r[i] = d[i];
            // the relative rotation stays the stored one: rows of R1ᵀR2 − (R1ᵀR2)_stored
            const auto& rel = p.joints[static_cast<std::size_t>(c.index)].relative;
            auto relEntry = [&](int i, int k) {  // (R1ᵀ R2)(i, k)
              return F1.R(0, i) * F2.R(0, k) + F1.R(1, i) * F2.R(1, k) + F1.R(2, i) * F2.R(2, k);
            };
            if (planar) {
              r[2] = relEntry(1, 0) - T(rel(1, 0));
            } else {
              r[3] = relEntry(1, 0) - T(rel(1, 0));
              r[4] = relEntry(2, 0) - T(rel(2, 0));
              r[5] = relEntry(2, 1) - T(rel(2, 1));
            }
            break;
          }
        }
        break;
      }
      case LoopConstraint::Kind::Driver: {
        const auto& dv = mech.drivers[static_cast<std::size_t>(c.index)];
        const T ft = timeFunction<T>(p.mech.drivers[static_cast<std::size_t>(c.index)], t);
        switch (dv.type) {
          case Driver::Type::Joint: {
            const int node = m.treeJointNode[static_cast<std::size_t>(dv.joint)];
            if (node >= 0) {  // a tree joint: its coordinate itself
              const Node& n = m.nodes[static_cast<std::size_t>(node)];
              r[0] = z[n.z] * n.sign - ft;
              break;
            }
            // a cut joint: measured from the bodies
            const auto& jt = mech.joints[static_cast<std::size_t>(dv.joint)];
            V3<T> P1, u1, w1, v1, P2, u2, w2, v2;
            jointFrame(m, p, f, dv.joint, 0, P1, u1, w1, v1);
            jointFrame(m, p, f, dv.joint, 1, P2, u2, w2, v2);
            if (jt.type == JointType::Pin || jt.type == JointType::Revolute) {
              // angle from w1 to w2 about u1 equals α = f(t) (both perpendiculars start aligned)
              r[0] = cos(ft) * dot(cross(w1, w2), u1) - sin(ft) * dot(w1, w2);
            } else {
              r[0] = dot(sub(P2, P1), u1) - (T(p.joints[static_cast<std::size_t>(dv.joint)].slide) + ft);
            }
            break;
          }
          case Driver::Type::Coordinate: {
            const Frame<T>& F = f[static_cast<std::size_t>(dv.point.body)];
            const V3<T> X = worldPoint(F, p.mech.point(dv.point));
            r[0] = X[dv.component] - ft;
            break;
          }
          case Driver::Type::Distance: {
            const V3<T> X1 = worldPoint(f[static_cast<std::size_t>(dv.points[0].body)], p.mech.point(dv.points[0]));
            const V3<T> X2 = worldPoint(f[static_cast<std::size_t>(dv.points[1].body)], p.mech.point(dv.points[1]));
            const V3<T> dq = sub(X2, X1);
            r[0] = dot(dq, dq) - ft * ft;
            break;
          }
        }
        break;
      }
    }
  }
}

template <class T, class P>
void constraintRows(const RecursiveModel& m, const TreeNumbers<P>& p, const std::vector<Frame<T>>& f, const T* z, const T& t,
                    T* out, const std::vector<char>* wanted = nullptr) {
  for (const auto& c : m.constraints) constraintRow(m, p, f, z, t, c, out, wanted);
}

}  // namespace lw::dyn::detail
