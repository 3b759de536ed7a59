// The tyre–ground force of a wheel on a plane, on any scalar (one definition for the force kernel,
// the energy and the powers). Internal to engine/dynamics: include from .cpp files only.
//
// Contact point: the wheel's lowest point towards the plane, P = C + R d with d the direction of
// −n perpendicular to the spin axis a. Penetration δ = −(P − P0)·n. Normal force N = max(0, kδ + cδ̇),
// δ̇ = −v·n with v the velocity of the wheel's material point at P relative to the plane's. Friction
// F = −μN v_t / √(|v_t|² + v0²), v_t the part of v in the plane: regularised Coulomb friction.
#pragma once

#include <cmath>

#include "dynamics/tree_kernels.h"
#include "mechanism/resolved.h"
#include "numeric/first_jets.h"  // num::value on jets, for the law on them
#include "numeric/scalar.h"

namespace lw::dyn::detail {

template <class S>
struct TyreContact {
  bool touching = false;
  V3<S> point;       // contact point P
  V3<S> normal;      // n
  S penetration{};   // δ
  S rate{};          // δ̇
  S force{};         // N
  V3<S> friction;    // F (in the plane)
  V3<S> slip;        // v_t
  V3<S> total() const { return add(scale(force, normal), friction); }
};

/// Wheel: centre C, its velocity vC, angular velocity w, spin axis a (unit). Plane: point P0, unit
/// normal n, and the plane body's centre r, velocity v and angular velocity ω (zeros for the ground).
/// f: the tyre's numbers (MechanismNumbers<P>::Force, P double or S).
template <class S, class F>
TyreContact<S> tyreContact(const F& f, const V3<S>& C, const V3<S>& vC, const V3<S>& w, const V3<S>& a,
                           const V3<S>& P0, const V3<S>& n, const V3<S>& rPlane, const V3<S>& vPlane, const V3<S>& wPlane) {
  using std::sqrt;
  TyreContact<S> c;
  const V3<S> zero{{S(0.0), S(0.0), S(0.0)}};
  c.point = c.normal = c.friction = c.slip = zero;
  c.penetration = c.rate = c.force = S(0.0);
  const V3<S> minusN = scale(S(-1.0), n);
  const V3<S> perp = sub(minusN, scale(dot(minusN, a), a));
  const S len = sqrt(dot(perp, perp));
  if (num::value(len) < 1e-9) return c;  // the wheel lies flat on the plane: no rolling contact
  c.normal = n;
  c.point = add(C, scale(S(f.radius) / len, perp));
  c.penetration = -dot(sub(c.point, P0), n);
  if (!(num::value(c.penetration) > 0)) return c;
  const V3<S> vWheel = add(vC, cross(w, sub(c.point, C)));
  const V3<S> vGround = add(vPlane, cross(wPlane, sub(c.point, rPlane)));
  const V3<S> v = sub(vWheel, vGround);
  const S vn = dot(v, n);
  c.rate = -vn;
  c.force = c.penetration * S(f.stiffness) + c.rate * S(f.damping);
  if (!(num::value(c.force) > 0)) {  // separating faster than the spring pushes: no pull
    c.force = S(0.0);
    return c;
  }
  c.touching = true;
  c.slip = sub(v, scale(vn, n));
  const S speed = sqrt(dot(c.slip, c.slip) + S(f.slipVelocity * f.slipVelocity));
  c.friction = scale(-(c.force * S(f.friction)) / speed, c.slip);
  return c;
}

}  // namespace lw::dyn::detail
