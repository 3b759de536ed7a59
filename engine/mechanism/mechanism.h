// The Mechanism: plain data describing a mechanism as the user edits it and as files store it
// (samples/FORMAT.md). No derived state: numbers stay as written (literal or expression), vectors
// are not normalised, references are names. `resolve()` (resolved.h) turns it into numbers.
#pragma once

#include <string>
#include <vector>

#include "mechanism/expression.h"

namespace lw {

/// A numeric field: a literal number, or an expression of design parameters (and of `t` in
/// functions of time).
struct Number {
  double value = 0;       // the literal, when `expression` is empty
  Expression expression;  // non-empty when the field was written as an expression

  Number() = default;
  Number(double v) : value(v) {}  // NOLINT(google-explicit-constructor): literals read naturally
  static Number expr(std::string_view text) {
    Number n;
    n.expression = Expression::parseOrThrow(text);
    return n;
  }
  bool isLiteral() const { return expression.empty(); }
};

using NumberVector = std::vector<Number>;  // 2 entries in a planar model, 3 in a spatial one

/// "body.item": a named point or vector of a body (or of the ground).
struct Ref {
  std::string body;
  std::string item;
  std::string str() const { return body + "." + item; }
  bool empty() const { return body.empty() && item.empty(); }
  friend bool operator==(const Ref&, const Ref&) = default;
};

inline constexpr const char* kGroundName = "ground";

struct Parameter {
  std::string name;
  Number value;
  std::string unit;
  std::string description;
  bool hasMin = false, hasMax = false;
  double min = 0, max = 0;
};

struct NamedVector {
  std::string name;
  NumberVector value;
};

struct Ground {
  std::vector<NamedVector> points;   // world coordinates
  std::vector<NamedVector> vectors;  // world directions
};

struct Inertia {
  enum class Form { Scalar, Diagonal, Full };  // 2D number; 3D [Ixx, Iyy, Izz]; 3D 3x3 rows
  Form form = Form::Scalar;
  std::vector<Number> values;  // 1, 3 or 9 entries
};

struct Shape {
  enum class Type { Auto, Sphere, Box, None };
  Type type = Type::Auto;
  Number width;   // Auto: bar width (0 = automatic)
  Number radius;  // Sphere
  NumberVector size;  // Box
};

struct Body {
  std::string name;
  NumberVector position;  // body frame origin in the stored configuration (empty = origin)
  Number angle;           // 2D rotation (rad)
  NumberVector rotationAxis;  // 3D rotation as axis and angle (empty axis = identity)
  Number rotationAngle;
  Number mass;
  NumberVector com;
  Inertia inertia;
  std::vector<NamedVector> points;   // body frame
  std::vector<NamedVector> vectors;  // body frame
  Shape shape;
  std::string color;  // "#rrggbb" or empty
};

enum class JointType { Pin, Slider, Revolute, Prismatic, Cylindrical, Universal, Spherical, Fixed };

struct Joint {
  std::string name;
  JointType type = JointType::Pin;
  Ref points[2];             // coinciding points, on body 1 and body 2
  std::vector<Ref> axes;     // empty, or one axis on each body
};

enum class Component { X, Y, Z };

struct Driver {
  enum class Type { Joint, Coordinate, Distance };
  std::string name;
  Type type = Type::Joint;
  std::string joint;         // Joint
  Ref point;                 // Coordinate
  Component component = Component::X;
  Ref points[2];             // Distance
  Number function;           // of t and parameters
};

struct Force {
  enum class Type { Spring, TorsionSpring, PointForce, Torque, Tyre };
  enum class Frame { World, Body };
  std::string name;
  Type type = Type::Spring;
  Ref points[2];             // Spring
  Number stiffness, damping, naturalLength, actuatorForce;  // Spring (TorsionSpring: no length)
  std::string joint;         // TorsionSpring
  Number naturalAngle;       // TorsionSpring
  Ref point;                 // PointForce
  std::string body;          // Torque
  NumberVector value;        // PointForce (2/3), Torque (1 in 2D, 3 in 3D); functions of t
  Frame frame = Frame::World;
  // Tyre: a wheel (centre `point`, spin `axis`) on a ground plane; normal spring-damper
  // (stiffness, damping) on the penetration, regularised Coulomb friction at the contact point
  Ref axis, planePoint, planeNormal;
  Number radius, friction, slipVelocity = 0.1;
};

struct Contact {
  enum class Law { Newton, Kinematic };
  std::string name;
  Ref point;
  Ref planePoint;
  Ref planeNormal;
  Number radius;
  Law law = Law::Newton;
  Number restitution = 1;
};

/// End stops on a joint's coordinate (an angle in radians, a slide in metres, as the outputs
/// measure it): an impact when it reaches `min` going down or `max` going up.
struct JointLimit {
  std::string name;
  std::string joint;
  bool hasMin = false, hasMax = false;
  Number min, max;
  Contact::Law law = Contact::Law::Newton;
  Number restitution = 1;
};

/// A switch of the equations of motion (seed 001 Theorem 4): when a point's world coordinate (or
/// a joint's coordinate) crosses `value` in `direction`, the forces in `enable` act from then on
/// and those in `disable` stop; the velocities stay. Forces a switch enables start off.
struct Switch {
  std::string name;
  Ref point;                         // a point's world coordinate `component`,
  Component component = Component::Y;
  std::string joint;                 // or a joint's coordinate
  Number value;
  bool falling = true;               // "falling" (crossing downwards) or "rising"
  std::vector<std::string> enable, disable;
};

struct InitialVelocity {
  enum class Type { Joint, PointComponent, Body };
  Type type = Type::Joint;
  std::string joint;           // Joint
  Ref point;                   // PointComponent
  Component component = Component::X;
  Number value;                // Joint, PointComponent
  std::string body;            // Body
  NumberVector velocity;       // Body: of the frame origin
  NumberVector angularVelocity;  // Body: 1 entry (2D) or 3
};

struct IndependentCoordinate {
  enum class Type { Joint, PointComponent };
  Type type = Type::Joint;
  std::string joint;
  Ref point;
  Component component = Component::X;
};

struct Output {
  enum class Type {
    PointPosition, PointVelocity, PointAcceleration, JointCoordinate, JointRate, SpringLength,
    Energy, ConstraintResidual, JointReaction, DriverEffort
  };
  enum class Energy { Kinetic, Potential, Total };
  std::string name;
  Type type = Type::PointPosition;
  Ref point;           // Point*
  std::string joint;   // Joint*
  std::string spring;  // SpringLength: a force of type spring
  Energy which = Energy::Total;
  std::string on;      // JointReaction: the body (one of the joint's two) the force acts on
  std::string driver;  // DriverEffort
};

/// A joint reaction's components: (index into force then moment, 0..5; the column's suffix):
/// fx, fy, m in the plane; fx, fy, fz, mx, my, mz in space.
std::vector<std::pair<int, std::string>> reactionComponents(int dimension);

struct Cost {
  // Integral: ∫ expression dt over the run; Terminal: the expression at the end; Targets: the sum
  // over target points of the squared distance of a point output from each at its time (a
  // coupler point through given points: path synthesis), the output read between steps linearly
  struct Target {
    double t = 0;
    std::vector<double> at;  // dimension components
  };
  // Minimum, Maximum: the least (greatest) value of the expression at the run's steps, e.g. the
  // worst transmission angle over a turn; its gradient is the expression's at that step
  enum class Type { Integral, Terminal, Targets, Minimum, Maximum };
  // Targets: Prescribed, each target's term at its time t; Free (path generation), each target's
  // term the least along the run's path (between steps read linearly): the point passes through
  // it at whatever time (its gradient is the term's at that place, the least's own derivative)
  enum class Timing { Prescribed, Free };
  std::string name;
  Type type = Type::Integral;
  Timing timing = Timing::Prescribed;
  Expression expression;  // Integral, Terminal, Minimum, Maximum: of output components, initial(...), parameters and t
  std::string output;     // Targets: a point output (position, velocity or acceleration)
  std::vector<Target> targets;  // Targets: in time order
};

// A sensitivity study and a tuning as the window (or a script) left them: reopened with the file.
// Names are kept as text; an unknown one is reported when the study runs, not when the file loads.
struct TuningConstraint {
  std::string name;
  Expression expression;  // of parameters: kept within [min, max]
  bool hasMin = false, hasMax = false;
  double min = 0, max = 0;
};
struct StudySettings {
  std::string analysis = "dynamics";      // or "kinematics"
  std::string formulation = "matrix-r";   // dynamics: matrix-r, penalty, index3, index1, penalty-global
  std::string method = "ddm";             // ddm, avm, cs, fd, compare
  std::vector<std::string> costs;         // empty: every cost
  std::vector<std::string> parameters;    // empty: every parameter
  // tuning: minimise `cost` (or drive it to `target`) over `parameters` within their ranges
  std::string tuneCost;                   // empty: the first chosen cost
  bool hasTarget = false;
  double target = 0;
  std::string algorithm = "slsqp";
  int maxEvaluations = 200;
  std::vector<TuningConstraint> constraints;
  bool present = false;                   // the file has a "study"
};

struct AnalysisDefaults {
  double tEnd = 0;  // 0 = not given
  double dt = 0;
};

struct Mechanism {
  std::string name;
  std::string description;
  int dimension = 2;
  NumberVector gravity;  // empty = no gravity
  std::vector<Parameter> parameters;
  Ground ground;
  std::vector<Body> bodies;
  std::vector<Joint> joints;
  std::vector<Driver> drivers;
  std::vector<Force> forces;
  std::vector<Contact> contacts;
  std::vector<JointLimit> limits;
  std::vector<Switch> switches;
  std::vector<InitialVelocity> initialVelocities;
  std::vector<IndependentCoordinate> independentCoordinates;
  std::vector<Output> outputs;
  std::vector<Cost> costs;
  AnalysisDefaults analysis;
  StudySettings study;
};

/// The span a run covers when neither the user nor the file says: the file's "analysis" end time
/// and step where given, else one second, at a hundredth of it for a kinematic run (a driven
/// mechanism's positions) and at 1 ms for dynamics (a step the trapezoidal rule keeps accurate on
/// the samples). `tEnd` > 0: the end the user chose, the kinematic step a hundredth of it. The one
/// rule the CLI, the window, studies and tunings share.
struct RunSpan {
  double tEnd = 1, dt = 1e-3;
};
RunSpan defaultSpan(const Mechanism& m, bool kinematic, double tEnd = 0);

// ---- names used in files and messages ----
const char* toString(JointType);
const char* toString(Driver::Type);
const char* toString(Force::Type);
const char* toString(Output::Type);
const char* toString(Output::Energy);
const char* toString(Contact::Law);
const char* toString(Component);
const char* toString(Cost::Type);  // "integral", "terminal", "targets", "minimum", "maximum"
/// Joint freedoms (relative degrees of freedom it allows).
int jointFreedoms(JointType);
/// True for the types allowed in a model of this dimension.
bool jointAllowedIn(JointType, int dimension);
/// Number of axes the joint type needs (0 or 2).
bool jointNeedsAxes(JointType);

}  // namespace lw
