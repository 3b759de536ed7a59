#include "mechanism/mechanism.h"

#include "mechanism/diagnostics.h"

namespace lw {

std::string Diagnostic::format(const std::string& file) const {
  std::string s = file;
  if (line > 0) s += (s.empty() ? "" : ":") + std::to_string(line) + ":" + std::to_string(column);
  if (!s.empty()) s += ": ";
  if (severity == Severity::Warning) s += "warning: ";
  if (!path.empty()) s += path + ": ";
  return s + message;
}

const char* toString(JointType t) {
  switch (t) {
    case JointType::Pin: return "pin";
    case JointType::Slider: return "slider";
    case JointType::Revolute: return "revolute";
    case JointType::Prismatic: return "prismatic";
    case JointType::Cylindrical: return "cylindrical";
    case JointType::Universal: return "universal";
    case JointType::Spherical: return "spherical";
    case JointType::Fixed: return "fixed";
  }
  return "?";
}

const char* toString(Driver::Type t) {
  switch (t) {
    case Driver::Type::Joint: return "joint";
    case Driver::Type::Coordinate: return "coordinate";
    case Driver::Type::Distance: return "distance";
  }
  return "?";
}

const char* toString(Force::Type t) {
  switch (t) {
    case Force::Type::Spring: return "spring";
    case Force::Type::TorsionSpring: return "torsion_spring";
    case Force::Type::PointForce: return "force";
    case Force::Type::Torque: return "torque";
    case Force::Type::Tyre: return "tyre";
  }
  return "?";
}

std::vector<std::pair<int, std::string>> reactionComponents(int dimension) {
  if (dimension == 2) return {{0, "fx"}, {1, "fy"}, {5, "m"}};
  return {{0, "fx"}, {1, "fy"}, {2, "fz"}, {3, "mx"}, {4, "my"}, {5, "mz"}};
}

const char* toString(Output::Type t) {
  switch (t) {
    case Output::Type::PointPosition: return "point_position";
    case Output::Type::PointVelocity: return "point_velocity";
    case Output::Type::PointAcceleration: return "point_acceleration";
    case Output::Type::JointCoordinate: return "joint_coordinate";
    case Output::Type::JointRate: return "joint_rate";
    case Output::Type::SpringLength: return "spring_length";
    case Output::Type::Energy: return "energy";
    case Output::Type::ConstraintResidual: return "constraint_residual";
    case Output::Type::JointReaction: return "joint_reaction";
    case Output::Type::DriverEffort: return "driver_effort";
  }
  return "?";
}

const char* toString(Output::Energy e) {
  switch (e) {
    case Output::Energy::Kinetic: return "kinetic";
    case Output::Energy::Potential: return "potential";
    case Output::Energy::Total: return "total";
  }
  return "?";
}

const char* toString(Contact::Law l) { return l == Contact::Law::Newton ? "newton" : "kinematic"; }

const char* toString(Cost::Type t) {
  switch (t) {
    case Cost::Type::Integral: return "integral";
    case Cost::Type::Terminal: return "terminal";
    case Cost::Type::Targets: return "targets";
    case Cost::Type::Minimum: return "minimum";
    case Cost::Type::Maximum: return "maximum";
  }
  return "?";
}

const char* toString(Component c) {
  switch (c) {
    case Component::X: return "x";
    case Component::Y: return "y";
    case Component::Z: return "z";
  }
  return "?";
}

int jointFreedoms(JointType t) {
  switch (t) {
    case JointType::Pin: case JointType::Slider: case JointType::Revolute:
    case JointType::Prismatic: return 1;
    case JointType::Cylindrical: case JointType::Universal: return 2;
    case JointType::Spherical: return 3;
    case JointType::Fixed: return 0;
  }
  return 0;
}

bool jointAllowedIn(JointType t, int dimension) {
  switch (t) {
    case JointType::Pin: case JointType::Slider: return dimension == 2;
    case JointType::Fixed: return true;
    default: return dimension == 3;
  }
}

bool jointNeedsAxes(JointType t) {
  switch (t) {
    case JointType::Slider: case JointType::Revolute: case JointType::Prismatic:
    case JointType::Cylindrical: case JointType::Universal: return true;
    default: return false;
  }
}

RunSpan defaultSpan(const Mechanism& m, bool kinematic, double tEnd) {
  RunSpan s;
  s.tEnd = tEnd > 0 ? tEnd : m.analysis.tEnd > 0 ? m.analysis.tEnd : 1.0;
  s.dt = m.analysis.dt > 0 ? m.analysis.dt : kinematic ? s.tEnd / 100 : 1e-3;
  return s;
}

}  // namespace lw
