// The natural model's numbers on another scalar (issue 39: the global formulations' parameter
// partials by forward AD, seed 003 §4's "AD" route beside GSAM and LSAM): every constant the
// compiler computed from the stored configuration — the fixed entities' places, the bodies' own
// places, the constraints' constants, the bodies' point coefficients, the drivers — computed again
// from the mechanism's numbers on P (a chunk of parameters seeded), by the sources the compiler
// recorded (WorldSource). The structure (entities, constraints, columns, which directions make a
// body's frame) stays the model's: it holds for every parameter value near the compiled one.
#pragma once

#include <array>
#include <vector>

#include <Eigen/Core>

#include "kinematics/natural_model.h"
#include "mechanism/numbers.h"

namespace lw::kin {

template <class P>
struct NaturalNumbers {
  using Vec3 = Eigen::Matrix<P, 3, 1>;
  std::vector<Vec3> entity;                          // every entity's stored value (a merged one: its class's)
  std::vector<std::vector<Vec3>> own;                // by body: BodyFrame::own's places on P
  std::vector<std::array<P, 4>> constants;           // by constraint: Constraint::c on P
  std::vector<std::vector<Vec3>> pointCoefficients;  // by body: BodyFrame::pointCoefficients on P
  std::vector<Vec3> axis0;                           // by body: BodyFrame::axis0 on P (spin-free bodies)
  std::vector<TimeFunctionOn<P>> drivers;            // by driver

  /// Entity e as body b's stored pose places it (BodyFrame::ownValue).
  Vec3 ownValue(const NaturalModel& m, int b, int e) const {
    const auto& f = m.bodies[static_cast<std::size_t>(b)];
    for (std::size_t i = 0; i < f.own.size(); ++i)
      if (f.own[i].first == e) return own[static_cast<std::size_t>(b)][i];
    return entity[static_cast<std::size_t>(e)];
  }
  Vec3 ownValue(const NaturalModel& m, int b, const Direction& d) const {
    const Vec3 a = ownValue(m, b, d.a);
    return d.b < 0 ? a : Vec3(a - ownValue(m, b, d.b));
  }
};

/// The model's numbers computed again from `numbers` (the mechanism's, on P). On double they are
/// the compiled model's to round-off (a test holds them to it).
template <class P>
NaturalNumbers<P> naturalNumbersOn(const NaturalModel& m, const MechanismNumbers<P>& numbers);

/// Coordinates on P (a complex step moves them too; forward AD's on doubles, cast).
template <class P>
using CoordinatesOn = Eigen::Matrix<P, Eigen::Dynamic, 1>;

/// Constraint c's rows on jets over P with the constants `k`: coordinates q seeded with dir (or,
/// when dir is null, column `col` with 1), time (t, dt, 0) — constraintJet's on P.
template <class P>
void constraintJetOn(const NaturalModel& m, const NaturalNumbers<P>& k, const Constraint& c, const CoordinatesOn<P>& q,
                     const CoordinatesOn<P>* dir, int col, double t, double dt, BasicJet<P>* out);

/// World position and velocity of point `point` of body `body` at (q, q̇) with the constants k.
template <class P>
void pointKinematicsOn(const NaturalModel& m, const NaturalNumbers<P>& k, int body, int point, const CoordinatesOn<P>& q,
                       const CoordinatesOn<P>& qd, Eigen::Matrix<P, 3, 1>& r, Eigen::Matrix<P, 3, 1>& v);

/// The stored places a body's frame is measured from, and its points: the model's own (`k` null,
/// P double), or its numbers again on P — what the global formulations' mass matrix, forces and
/// maps read, on either.
template <class P>
struct StoredShape {
  using Vec3 = Eigen::Matrix<P, 3, 1>;
  const NaturalModel& m;
  const NaturalNumbers<P>* k = nullptr;
  Vec3 fixed(int e) const { return k ? k->entity[static_cast<std::size_t>(e)] : Vec3(m.entities[static_cast<std::size_t>(e)].value.template cast<P>()); }
  Vec3 own(int b, int e) const {
    return k ? k->ownValue(m, b, e) : Vec3(m.bodies[static_cast<std::size_t>(b)].ownValue(m.entities, e).template cast<P>());
  }
  Vec3 own(int b, const Direction& d) const {
    return k ? k->ownValue(m, b, d) : Vec3(m.bodies[static_cast<std::size_t>(b)].ownValue(m.entities, d).template cast<P>());
  }
  /// A spin-free body's stored unit axis.
  Vec3 axis0(int b) const { return k ? k->axis0[static_cast<std::size_t>(b)] : Vec3(m.bodies[static_cast<std::size_t>(b)].axis0.template cast<P>()); }
  /// Point `index` of body `body` and its velocity at (q, q̇).
  template <class Q>
  void point(int body, int index, const Q& q, const Q& qd, Vec3& r, Vec3& v) const {
    if constexpr (std::is_same_v<P, double>) {
      if (!k) {
        pointKinematics(m, body, index, q, qd, qd, &r, &v, nullptr);
        return;
      }
    }
    assert(k);
    pointKinematicsOn<P>(m, *k, body, index, q, qd, r, v);
  }
};

}  // namespace lw::kin
