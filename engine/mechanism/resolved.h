// A validated Mechanism with every number evaluated, every reference turned into an index,
// directions normalised and planar data embedded in 3D (z = 0, rotations about Z). This is the
// input of topology and of every compiled model; it is rebuilt whenever the Mechanism changes.
#pragma once

#include <Eigen/Core>
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "mechanism/diagnostics.h"
#include "mechanism/mechanism.h"
#include "mechanism/parameters.h"

namespace lw {

/// A function of time with its first two derivatives, parameters substituted.
class TimeFunction {
 public:
  TimeFunction() = default;
  TimeFunction(const Expression& f, const ParameterTable& p);
  /// The constant v (a held joint's coordinate: kin::NaturalOptions::held).
  static TimeFunction constant(double v) {
    TimeFunction f;
    f.linear_ = true;
    f.c0_ = v;
    return f;
  }
  // linear motions (the common "ω·t") skip the expression tree: they are evaluated every step
  double value(double t) const { return linear_ ? c0_ + c1_ * t : f_(std::span<const double>(&t, 1)); }
  double rate(double t) const { return linear_ ? c1_ : df_(std::span<const double>(&t, 1)); }
  double acceleration(double t) const { return linear_ ? 0.0 : ddf_(std::span<const double>(&t, 1)); }
  /// The expression with parameters substituted (for display).
  const Expression& expression() const { return expr_; }

 private:
  Expression expr_;
  Expression::Bound f_, df_, ddf_;
  bool linear_ = false;
  double c0_ = 0, c1_ = 0;
};

/// Index of a point or vector: bodies[body].points[index] (or .vectors[index]).
struct ItemIndex {
  int body = -1;
  int index = -1;
  bool valid() const { return body >= 0 && index >= 0; }
  friend bool operator==(const ItemIndex&, const ItemIndex&) = default;
};

struct ResolvedMechanism {
  struct Body {
    std::string name;
    Eigen::Vector3d position = Eigen::Vector3d::Zero();     // stored configuration
    Eigen::Matrix3d rotation = Eigen::Matrix3d::Identity();
    double mass = 0;
    Eigen::Vector3d com = Eigen::Vector3d::Zero();          // body frame
    Eigen::Matrix3d inertia = Eigen::Matrix3d::Zero();      // about com, body axes
    std::vector<std::string> pointNames;
    std::vector<Eigen::Vector3d> points;                     // body frame
    std::vector<std::string> vectorNames;
    std::vector<Eigen::Vector3d> vectors;                    // body frame, unit
    Shape::Type shape = Shape::Type::Auto;
    double width = 0, radius = 0;
    Eigen::Vector3d boxSize = Eigen::Vector3d::Zero();
    std::optional<std::array<double, 3>> color;              // rgb in [0, 1]
  };
  struct Joint {
    std::string name;
    JointType type = JointType::Pin;
    ItemIndex points[2];
    ItemIndex axes[2];  // invalid when the type has no axes
    int body(int side) const { return points[side].body; }
  };
  struct Driver {
    std::string name;
    lw::Driver::Type type = lw::Driver::Type::Joint;
    int joint = -1;
    ItemIndex point;
    int component = 0;
    ItemIndex points[2];
    TimeFunction function;
  };
  struct Force {
    std::string name;
    lw::Force::Type type = lw::Force::Type::Spring;
    ItemIndex points[2];
    double stiffness = 0, damping = 0, naturalLength = 0, naturalAngle = 0;
    TimeFunction actuatorForce;
    int joint = -1;
    ItemIndex point;
    int body = -1;
    std::vector<TimeFunction> value;  // force (dim) or torque (1 in 2D, 3 in 3D)
    lw::Force::Frame frame = lw::Force::Frame::World;
    ItemIndex axis, planePoint, planeNormal;  // tyre (point = wheel centre)
    double radius = 0, friction = 0, slipVelocity = 0.1;
    bool startsActive = true;  // false: a switch enables it later
  };
  struct Contact {
    std::string name;
    ItemIndex point, planePoint, planeNormal;
    double radius = 0, restitution = 1;
    lw::Contact::Law law = lw::Contact::Law::Newton;
  };

  struct Limit {
    std::string name;
    int joint = -1;
    bool hasMin = false, hasMax = false;
    double min = 0, max = 0, restitution = 1;
    lw::Contact::Law law = lw::Contact::Law::Newton;
  };

  struct Switch {
    std::string name;
    ItemIndex point;  // valid: a point's coordinate `component`; else the joint's
    int component = 1;
    int joint = -1;
    double value = 0;
    bool falling = true;
    std::vector<int> enable, disable;  // forces
  };

  struct InitialRate {
    InitialVelocity::Type type = InitialVelocity::Type::Joint;
    int joint = -1;
    ItemIndex point;
    int component = 0;
    double value = 0;
    int body = -1;
    Eigen::Vector3d velocity = Eigen::Vector3d::Zero(), angular = Eigen::Vector3d::Zero();
  };
  struct Independent {
    bool isJoint = true;
    int joint = -1;
    ItemIndex point;
    int component = 0;
  };

  int dimension = 2;
  Eigen::Vector3d gravity = Eigen::Vector3d::Zero();
  std::vector<InitialRate> initialRates;
  std::vector<Independent> independent;
  std::vector<ItemIndex> outputPoints;  // the points the outputs follow (position, velocity, acceleration), once each
  std::vector<Body> bodies;  // bodies[0] is the ground (pose identity, points in world)
  std::vector<Joint> joints;
  std::vector<Driver> drivers;
  std::vector<Force> forces;
  std::vector<Contact> contacts;
  std::vector<Limit> limits;
  std::vector<Switch> switches;
  std::optional<ParameterTable> parameters;

  /// World position of a point / world direction of a vector in the stored configuration.
  Eigen::Vector3d pointWorld(ItemIndex p) const;
  Eigen::Vector3d vectorWorld(ItemIndex v) const;
  /// How far joint `j` is open in the stored configuration: its points apart, or for a sliding
  /// joint the second point off the first one's axis line (0 for a joint not between two bodies).
  double storedJointGap(const Joint& j) const;
  /// The same as a vector (zero where storedJointGap is 0): what assembly drives to zero.
  Eigen::Vector3d storedJointOffset(const Joint& j) const;
  /// The largest extent of the stored configuration (at least 1e-3 m): a size for glyphs,
  /// tolerances and the camera.
  double lengthScale() const;
  /// A size for drawn parts (pins, bars, handles): the length scale, but at most 2.5 times the
  /// median size of the moving bodies, so that a long chain of short links (grid 1x15: 15 m of
  /// 1 m links) is not drawn with pins longer than its links.
  double drawingScale() const;
  int findBody(std::string_view name) const;
  int findJoint(std::string_view name) const;
};

/// Validates `m` and evaluates it. Every problem goes to `out` (errors and warnings, by path);
/// returns nullopt if there is any error.
std::optional<ResolvedMechanism> resolve(const Mechanism& m, Diagnostics& out);

/// resolve() without keeping the result: the diagnostics of a mechanism.
Diagnostics validate(const Mechanism& m);

}  // namespace lw
