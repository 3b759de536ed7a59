// The force elements' laws, written once for every kernel that applies them (internal to
// engine/dynamics: include from .cpp files only): springs with dampers and actuators, point forces
// and torques in world or body axes, torsion springs on joints that close loops (a tree joint's
// acts on its coordinate: forEachTreeTorsionSpring), tyres. A kernel gives what it knows of the
// bodies at its state and receives each element's forces and torques:
//   bodies.point(item, r, v)    a body point's world position and velocity
//   bodies.rotation(body)       the body's rotation (M3<S>)
//   bodies.omega(body)          its angular velocity
//   bodies.centre(body, r, v)   its centre of mass and the centre's velocity (zeros for the ground)
//   forceAt(body, at, F)        a force F at the world point `at`
//   torqueOn(body, T)           a torque
// `everyTorsionSpring`: the torsion springs of tree joints too, as torque pairs (a model without
// the tree's coordinates: the global formulations). A torque pair's angle is read within half a
// turn (atan2) unless `turns` continues it from a nearby angle per force (a spring wound past ±π).
#pragma once

#include <cmath>

#include "dynamics/tree_kernels.h"
#include "dynamics/tyre.h"
#include "numeric/first_jets.h"  // num::value on jets, for the laws on them
#include "numeric/scalar.h"

namespace lw::dyn::detail {

/// The torque pairs' angles by force index: `near` (read) the angles to continue from, whole
/// turns added; `measured` (written) the angles used.
struct TorsionTurns {
  const double* near = nullptr;
  double* measured = nullptr;
};

/// `only` (≥ 0): that force element alone.
template <class S, class P, class Bodies, class ForceAt, class TorqueOn>
void forceElements(const RecursiveModel& m, const TreeNumbers<P>& p, double t, const Bodies& bodies, ForceAt&& forceAt, TorqueOn&& torqueOn,
                   bool everyTorsionSpring = false, const TorsionTurns* turns = nullptr, std::ptrdiff_t only = -1) {
  using std::sqrt, num::atan2;
  const auto& mech = *m.mechanism;
  const MechanismNumbers<P>& nums = p.mech;
  const V3<S> zero{{S(0.0), S(0.0), S(0.0)}};
  for (std::size_t fi = 0; fi < mech.forces.size(); ++fi) {
    if (only >= 0 && fi != static_cast<std::size_t>(only)) continue;
    const auto& f = mech.forces[fi];
    const auto& fn = nums.forces[fi];
    if (!fn.active) continue;
    switch (f.type) {
      case Force::Type::Spring: {
        V3<S> P1, v1, P2, v2;
        bodies.point(f.points[0], P1, v1);
        bodies.point(f.points[1], P2, v2);
        const V3<S> delta = sub(P2, P1);
        const S L = sqrt(dot(delta, delta));
        if (num::value(L) < 1e-12) break;
        const V3<S> e = scale(S(1.0) / L, delta);
        const S Ld = dot(e, sub(v2, v1));
        // tension pulls the ends together; the actuator force pushes them apart
        const S tension = (L - S(fn.naturalLength)) * S(fn.stiffness) + Ld * S(fn.damping) - S(fn.actuatorForce.value(t));
        forceAt(f.points[0].body, P1, scale(tension, e));
        forceAt(f.points[1].body, P2, scale(-tension, e));
        break;
      }
      case Force::Type::PointForce: {
        V3<S> F = zero;
        for (std::size_t k = 0; k < fn.value.size() && k < 3; ++k) F[static_cast<int>(k)] = S(fn.value[k].value(t));
        if (f.frame == lw::Force::Frame::Body && f.point.body != 0) F = mul(bodies.rotation(f.point.body), F);
        V3<S> at, v;
        bodies.point(f.point, at, v);
        forceAt(f.point.body, at, F);
        break;
      }
      case Force::Type::Torque: {
        if (f.body == 0) break;
        V3<S> tq = zero;
        if (fn.value.size() == 1) tq[2] = S(fn.value[0].value(t));
        else
          for (std::size_t k = 0; k < fn.value.size() && k < 3; ++k) tq[static_cast<int>(k)] = S(fn.value[k].value(t));
        if (f.frame == lw::Force::Frame::Body) tq = mul(bodies.rotation(f.body), tq);
        torqueOn(f.body, tq);
        break;
      }
      case Force::Type::TorsionSpring: {
        if (!everyTorsionSpring && m.treeJointNode[static_cast<std::size_t>(f.joint)] >= 0) break;  // acts on its coordinate
        // a joint that closes a loop: a torque pair about body 1's axis, from the angle between the perpendiculars
        const auto& jt = mech.joints[static_cast<std::size_t>(f.joint)];
        const int b1 = jt.body(0), b2 = jt.body(1);
        const V3<S> a = jt.axes[0].valid() ? mul(bodies.rotation(b1), cst<S>(nums.vector(jt.axes[0]))) : V3<S>{{S(0.0), S(0.0), S(1.0)}};
        const V3<S> w1 = mul(bodies.rotation(b1), cst<S>(p.jointAxes[static_cast<std::size_t>(f.joint)][0].w));
        const V3<S> w2 = mul(bodies.rotation(b2), cst<S>(p.jointAxes[static_cast<std::size_t>(f.joint)][1].w));
        S angle = atan2(dot(cross(w1, w2), a), dot(w1, w2));
        if (turns && turns->near) angle = angle + 2 * M_PI * std::round((turns->near[fi] - num::value(angle)) / (2 * M_PI));
        if (turns && turns->measured) turns->measured[fi] = num::value(angle);
        const S rate = dot(sub(bodies.omega(b2), bodies.omega(b1)), a);
        const S tq = (angle - S(fn.naturalAngle)) * (-S(fn.stiffness)) - rate * S(fn.damping);
        torqueOn(b1, scale(-tq, a));
        torqueOn(b2, scale(tq, a));
        break;
      }
      case Force::Type::Tyre: {
        const int wb = f.point.body, pb = f.planePoint.body;
        V3<S> C, vC, P0, v0, rP, vP;
        bodies.point(f.point, C, vC);
        bodies.point(f.planePoint, P0, v0);
        bodies.centre(pb, rP, vP);
        const V3<S> axis = mul(bodies.rotation(wb), cst<S>(nums.vector(f.axis)));
        const V3<S> n = pb == 0 ? cst<S>(nums.vector(f.planeNormal)) : mul(bodies.rotation(pb), cst<S>(nums.vector(f.planeNormal)));
        const TyreContact<S> c = tyreContact(fn, C, vC, bodies.omega(wb), axis, P0, n, rP, vP, bodies.omega(pb));
        if (!c.touching) break;
        const V3<S> F = c.total();
        forceAt(wb, c.point, F);
        forceAt(pb, c.point, scale(S(-1.0), F));
        break;
      }
    }
  }
}

}  // namespace lw::dyn::detail
