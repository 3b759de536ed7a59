// The numbers of a resolved mechanism on any scalar: what compiled models and their kernels read
// (geometry, inertia, force constants, functions of time, initial rates). On double they are the
// ResolvedMechanism's; on a dual number or a complex step they are evaluated again from the
// Mechanism's fields with the design parameters on that scalar, so that a kernel run on them
// differentiates with respect to the parameters exactly (sensitivity/). The structure (which body,
// which point, which joint) stays the ResolvedMechanism's.
#pragma once

#include <Eigen/Core>
#include <span>
#include <vector>

#include "mechanism/resolved.h"
#include "numeric/dual_eigen.h"

namespace lw {

/// A function of time with its first two time derivatives, on P. On double it is the resolved
/// TimeFunction; on other scalars the expression bound to t and the parameters it uses, whose
/// values are P (their derivatives flow into the value).
template <class P>
class TimeFunctionOn {
 public:
  TimeFunctionOn() = default;
  /// On double: the resolved function.
  explicit TimeFunctionOn(const TimeFunction& f) requires std::is_same_v<P, double> : resolved_(f), fromResolved_(true) {}
  /// On other scalars: `f` (a field written as a function of t and parameters), parameters on P.
  TimeFunctionOn(const Number& f, const ParameterTable& table, std::span<const P> parameters);
  /// The constant v.
  static TimeFunctionOn constant(P v) {
    TimeFunctionOn f;
    f.constant_ = v;
    return f;
  }
  P value(double t) const;
  P rate(double t) const;
  P acceleration(double t) const;
  /// The values of the parameters the function reads (none for a literal or a resolved one).
  std::span<const P> parameterValues() const { return slots_.empty() ? std::span<const P>() : std::span<const P>(slots_).subspan(1); }

 private:
  TimeFunction resolved_;                 // double
  Expression::Bound f_, df_, ddf_;         // other scalars: slot 0 is t, then the parameters used
  std::vector<P> slots_;
  P constant_{};                           // a literal field
  bool literal_ = true;
  bool fromResolved_ = false;
  P at(const Expression::Bound& e, double t) const;
};

template <class P>
struct MechanismNumbers {
  using Vec3 = Eigen::Matrix<P, 3, 1>;
  using Mat3 = Eigen::Matrix<P, 3, 3>;
  struct Body {
    Vec3 position = Vec3::Zero();  // stored configuration
    Mat3 rotation = Mat3::Identity();
    P mass{};
    Vec3 com = Vec3::Zero();       // body frame
    Mat3 inertia = Mat3::Zero();   // about com, body axes
    std::vector<Vec3> points;      // body frame
    std::vector<Vec3> vectors;     // body frame, unit
  };
  struct Force {
    bool active = true;  // switched off and on by the switches of the equations of motion
    P stiffness{}, damping{}, naturalLength{}, naturalAngle{}, radius{}, friction{}, slipVelocity{};
    TimeFunctionOn<P> actuatorForce;
    std::vector<TimeFunctionOn<P>> value;
  };
  struct Contact {
    P radius{}, restitution{};
  };
  struct Limit {
    P min{}, max{}, restitution{};
  };
  struct InitialRate {
    P value{};
    Vec3 velocity = Vec3::Zero(), angular = Vec3::Zero();
  };
  Vec3 gravity = Vec3::Zero();
  std::vector<Body> bodies;  // [0] the ground (points in world)
  std::vector<Force> forces;
  std::vector<TimeFunctionOn<P>> drivers;
  std::vector<Contact> contacts;
  std::vector<Limit> limits;
  std::vector<P> switchValues;
  std::vector<InitialRate> initialRates;

  Vec3 point(ItemIndex p) const { return bodies[static_cast<std::size_t>(p.body)].points[static_cast<std::size_t>(p.index)]; }
  Vec3 vector(ItemIndex v) const { return bodies[static_cast<std::size_t>(v.body)].vectors[static_cast<std::size_t>(v.index)]; }
  /// World position of a point / world direction of a vector in the stored configuration.
  Vec3 pointWorld(ItemIndex p) const {
    const Body& b = bodies[static_cast<std::size_t>(p.body)];
    return b.position + b.rotation * point(p);
  }
  Vec3 vectorWorld(ItemIndex v) const { return bodies[static_cast<std::size_t>(v.body)].rotation * vector(v); }
};

/// The resolved mechanism's numbers (copies).
MechanismNumbers<double> numbersOf(const ResolvedMechanism& r);
/// The numbers evaluated from the Mechanism `m` (that `r` was resolved from) with every design
/// parameter's value on P (ParameterTable::valuesOn).
template <class P>
MechanismNumbers<P> numbersOn(const Mechanism& m, const ResolvedMechanism& r, std::span<const P> parameters);

// ---- on any scalar: the few functions where double, dual and complex step differ ----
/// x·y without conjugation (Eigen's dot conjugates complex numbers: wrong for a complex step).
template <class P>
P dot3(const Eigen::Matrix<P, 3, 1>& x, const Eigen::Matrix<P, 3, 1>& y) {
  return x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
}
/// x/|x| with |x| = √(x·x), analytic on a complex step.
template <class P>
Eigen::Matrix<P, 3, 1> unit3(const Eigen::Matrix<P, 3, 1>& x) {
  using std::sqrt;
  return x / P(sqrt(dot3(x, x)));
}
/// Rotation by `angle` about the unit axis u (Rodrigues), as the resolved mechanism's.
template <class P>
Eigen::Matrix<P, 3, 3> rotationAbout(const Eigen::Matrix<P, 3, 1>& u, const P& angle);

}  // namespace lw
