// The item kinds with types (joints, drivers, forces, limits, switches, outputs): their fields as
// data, and each item to and from its field texts.
#include "mechanism/schema.h"
#include "mechanism/schema_read.h"

#include <algorithm>

namespace lw::schema {

using namespace detail;

namespace {

const F name(std::string help) { return F("name", FieldType::Name, "Name", std::move(help)).required(); }

// a Number field's text read when the field belongs to `type` and has one
bool optionalNumber(const Texts& texts, const char* key, const std::string& label, Number& out, std::string& why) {
  const std::string t = get(texts, key);
  return t.empty() || readField(t, label, out, why);
}

}  // namespace

// ---------------------------------------------------------------------------------------- joints

const Kind& jointKind() {
  static const Kind kind{
      "joints",
      "joint",
      {name("names the joint in outputs, drivers and the structure"),
       F("type", FieldType::Choice, "Type", "how the two bodies may move relative to each other")
           .required()
           .choices({"pin", "slider", "revolute", "prismatic", "cylindrical", "universal", "spherical", "fixed"},
                    {"Pin (planar rotation)", "Slider (planar translation)", "Revolute", "Prismatic", "Cylindrical",
                     "Universal", "Spherical", "Fixed"})
           .planar({"pin", "slider", "fixed"}),
       F("points", FieldType::PointPair, "Points", "a point on each body; they coincide in the drawn position").required(),
       F("axes", FieldType::VectorPair, "Axes",
         "a vector on each body, parallel in the drawn position (perpendicular for a universal joint); a slider's "
         "line in the plane")
           .types({"slider", "revolute", "prismatic", "cylindrical", "universal"})}};
  return kind;
}

Texts textsOf(const Joint& j) {
  return {{"name", j.name},
          {"type", toString(j.type)},
          {"points", joinList({j.points[0].str(), j.points[1].str()})},
          {"axes", j.axes.size() == 2 ? joinList({j.axes[0].str(), j.axes[1].str()}) : std::string()}};
}

bool jointFrom(const Texts& texts, Joint& out, std::string& why) {
  Joint j;
  j.name = get(texts, "name");
  if (!readChoice(get(texts, "type"), "type",
                  {JointType::Pin, JointType::Slider, JointType::Revolute, JointType::Prismatic, JointType::Cylindrical,
                   JointType::Universal, JointType::Spherical, JointType::Fixed},
                  j.type, why) ||
      !requiredPresent(jointKind(), texts, toString(j.type), why) || !readPair(get(texts, "points"), "points", j.points, why))
    return false;
  if (const std::string axes = get(texts, "axes"); !axes.empty()) {
    Ref a[2];
    if (!readPair(axes, "axes", a, why)) return false;
    j.axes = {a[0], a[1]};
  }
  out = j;
  return true;
}

// --------------------------------------------------------------------------------------- drivers

const Kind& driverKind() {
  static const Kind kind{
      "drivers",
      "driver",
      {name("names the driver in outputs (its effort) and the structure"),
       F("type", FieldType::Choice, "Drives", "what the function of time prescribes")
           .required()
           .choices({"joint", "coordinate", "distance"},
                    {"Joint coordinate (angle or slide)", "Point coordinate (x, y or z)", "Distance between two points"}),
       F("joint", FieldType::Item, "Joint", "the joint whose angle (rad) or slide (m), from the drawn position, is driven")
           .required()
           .of("joints")
           .types({"joint"}),
       F("point", FieldType::Point, "Point", "the point whose world coordinate (m) is driven").required().types({"coordinate"}),
       F("component", FieldType::Choice, "Coordinate", "which world coordinate")
           .required()
           .types({"coordinate"})
           .choices({"x", "y", "z"})
           .planar({"x", "y"}),
       F("points", FieldType::PointPair, "Points", "the two points whose distance (m) is driven: a linear actuator")
           .required()
           .types({"distance"}),
       F("function", FieldType::Number, "Value at time t",
         "a function of time t and the design parameters, e.g. 2*pi*t (one turn per second) or 0.1*sin(2*pi*t)")
           .required()
           .timed()}};
  return kind;
}

Texts textsOf(const Driver& d) {
  Texts t{{"name", d.name}, {"type", toString(d.type)}, {"function", numberText(d.function)}};
  switch (d.type) {
    case Driver::Type::Joint: t["joint"] = d.joint; break;
    case Driver::Type::Coordinate:
      t["point"] = d.point.str();
      t["component"] = toString(d.component);
      break;
    case Driver::Type::Distance: t["points"] = joinList({d.points[0].str(), d.points[1].str()}); break;
  }
  return t;
}

bool driverFrom(const Texts& texts, Driver& out, std::string& why) {
  Driver d;
  d.name = get(texts, "name");
  if (!readChoice(get(texts, "type"), "type", {Driver::Type::Joint, Driver::Type::Coordinate, Driver::Type::Distance}, d.type, why) ||
      !requiredPresent(driverKind(), texts, toString(d.type), why))
    return false;
  switch (d.type) {
    case Driver::Type::Joint: d.joint = get(texts, "joint"); break;
    case Driver::Type::Coordinate:
      if (!readRef(get(texts, "point"), "point", d.point, why) ||
          !readChoice(get(texts, "component"), "coordinate", {Component::X, Component::Y, Component::Z}, d.component, why))
        return false;
      break;
    case Driver::Type::Distance:
      if (!readPair(get(texts, "points"), "points", d.points, why)) return false;
      break;
  }
  if (!readField(get(texts, "function"), "function", d.function, why)) return false;
  out = d;
  return true;
}

// ---------------------------------------------------------------------------------------- forces

const Kind& forceKind() {
  const std::vector<std::string> elastic{"spring", "torsion_spring", "tyre"};
  static const Kind kind{
      "forces",
      "force",
      {name("names the force in switches, outputs and the plots"),
       F("type", FieldType::Choice, "Type", "what kind of force element")
           .required()
           .choices({"spring", "torsion_spring", "force", "torque", "tyre"},
                    {"Spring-damper between two points", "Torsion spring on a joint", "Force on a point", "Torque on a body",
                     "Tyre (wheel on a ground plane)"})
           .planar({"spring", "torsion_spring", "force", "torque"}),
       F("points", FieldType::PointPair, "Points", "the spring's two ends").required().types({"spring"}),
       F("joint", FieldType::Item, "Joint", "the joint whose angle the spring resists").required().of("joints").types({"torsion_spring"}),
       F("point", FieldType::Point, "Point", "where the force acts (a tyre: the wheel's centre)").required().types({"force", "tyre"}),
       F("body", FieldType::Item, "Body", "the body the torque acts on").required().of("bodies").types({"torque"}),
       F("axis", FieldType::Vector, "Spin axis", "the wheel's axle, a vector of its body").required().types({"tyre"}),
       F("radius", FieldType::Number, "Radius", "the wheel's radius").required().types({"tyre"}).quantity(Quantity::Length),
       F("stiffness", FieldType::Number, "Stiffness", "N/m for a spring or a tyre, N·m/rad for a torsion spring")
           .required()
           .types(elastic),
       F("damping", FieldType::Number, "Damping", "N·s/m, or N·m·s/rad for a torsion spring").types(elastic).byDefault("0"),
       F("natural_length", FieldType::Number, "Natural length", "the length at which the spring pulls nothing")
           .types({"spring"})
           .quantity(Quantity::Length)
           .byDefault("0"),
       F("force", FieldType::Number, "Actuator force", "a force along the spring, positive pushing the ends apart")
           .types({"spring"})
           .quantity(Quantity::Force)
           .byDefault("0"),
       F("natural_angle", FieldType::Number, "Natural angle", "the joint angle at which the spring is relaxed")
           .types({"torsion_spring"})
           .quantity(Quantity::Angle)
           .byDefault("0"),
       F("friction", FieldType::Number, "Friction coefficient", "Coulomb friction at the contact point").types({"tyre"}).byDefault("0"),
       F("slip_velocity", FieldType::Number, "Slip velocity", "below it the friction grows linearly (regularised)")
           .types({"tyre"})
           .quantity(Quantity::Velocity)
           .byDefault("0.1"),
       F("value", FieldType::Numbers, "Value",
         "the force's components (N), or the torque (N·m; one number in the plane, three in space), functions of t")
           .required()
           .types({"force", "torque"})
           .single()
           .timed(),
       F("frame", FieldType::Choice, "Axes", "the axes the components are given in")
           .types({"force", "torque"})
           .choices({"world", "body"}, {"World axes", "The body's axes (turn with it)"})
           .byDefault("world"),
       F("plane_point", FieldType::Point, "Ground plane point", "a point of the plane the wheel rolls on").required().types({"tyre"}),
       F("plane_normal", FieldType::Vector, "Ground plane normal", "the plane's normal, pointing to the wheel's side")
           .required()
           .types({"tyre"})}};
  return kind;
}

Texts textsOf(const Force& f) {
  Texts t{{"name", f.name}, {"type", toString(f.type)}};
  switch (f.type) {
    case Force::Type::Spring:
      t["points"] = joinList({f.points[0].str(), f.points[1].str()});
      t["stiffness"] = numberText(f.stiffness), t["damping"] = numberText(f.damping);
      t["natural_length"] = numberText(f.naturalLength), t["force"] = numberText(f.actuatorForce);
      break;
    case Force::Type::TorsionSpring:
      t["joint"] = f.joint;
      t["stiffness"] = numberText(f.stiffness), t["damping"] = numberText(f.damping), t["natural_angle"] = numberText(f.naturalAngle);
      break;
    case Force::Type::PointForce:
    case Force::Type::Torque:
      if (f.type == Force::Type::PointForce) t["point"] = f.point.str();
      else t["body"] = f.body;
      t["value"] = numbersText(f.value);
      t["frame"] = f.frame == Force::Frame::Body ? "body" : "world";
      break;
    case Force::Type::Tyre:
      t["point"] = f.point.str(), t["axis"] = f.axis.str();
      t["radius"] = numberText(f.radius), t["stiffness"] = numberText(f.stiffness), t["damping"] = numberText(f.damping);
      t["friction"] = numberText(f.friction), t["slip_velocity"] = numberText(f.slipVelocity);
      t["plane_point"] = f.planePoint.str(), t["plane_normal"] = f.planeNormal.str();
      break;
  }
  return t;
}

bool forceFrom(const Texts& texts, Force& out, std::string& why) {
  Force f;
  f.name = get(texts, "name");
  if (!readChoice(get(texts, "type"), "type",
                  {Force::Type::Spring, Force::Type::TorsionSpring, Force::Type::PointForce, Force::Type::Torque, Force::Type::Tyre},
                  f.type, why) ||
      !requiredPresent(forceKind(), texts, toString(f.type), why))
    return false;
  const bool elastic = f.type == Force::Type::Spring || f.type == Force::Type::TorsionSpring || f.type == Force::Type::Tyre;
  if (elastic && (!readField(get(texts, "stiffness"), "stiffness", f.stiffness, why) ||
                  !optionalNumber(texts, "damping", "damping", f.damping, why)))
    return false;
  switch (f.type) {
    case Force::Type::Spring:
      if (!readPair(get(texts, "points"), "points", f.points, why) ||
          !optionalNumber(texts, "natural_length", "natural length", f.naturalLength, why) ||
          !optionalNumber(texts, "force", "actuator force", f.actuatorForce, why))
        return false;
      break;
    case Force::Type::TorsionSpring:
      f.joint = get(texts, "joint");
      if (!optionalNumber(texts, "natural_angle", "natural angle", f.naturalAngle, why)) return false;
      break;
    case Force::Type::PointForce:
    case Force::Type::Torque: {
      if (f.type == Force::Type::PointForce && !readRef(get(texts, "point"), "point", f.point, why)) return false;
      if (f.type == Force::Type::Torque) f.body = get(texts, "body");
      if (!readNumbers(get(texts, "value"), "value", f.value, why)) return false;
      const std::string frame = get(texts, "frame");
      if (frame == "body") f.frame = Force::Frame::Body;
      else if (!frame.empty() && frame != "world") {
        why = "the axes '" + frame + "' are not one of: world, body";
        return false;
      }
      break;
    }
    case Force::Type::Tyre:
      if (!readRef(get(texts, "point"), "point", f.point, why) || !readRef(get(texts, "axis"), "spin axis", f.axis, why) ||
          !readRef(get(texts, "plane_point"), "plane point", f.planePoint, why) ||
          !readRef(get(texts, "plane_normal"), "plane normal", f.planeNormal, why) ||
          !readField(get(texts, "radius"), "radius", f.radius, why) ||
          !optionalNumber(texts, "friction", "friction coefficient", f.friction, why) ||
          !optionalNumber(texts, "slip_velocity", "slip velocity", f.slipVelocity, why))
        return false;
      break;
  }
  out = f;
  return true;
}

// ---------------------------------------------------------------------------------------- limits

const Kind& limitKind() {
  static const Kind kind{
      "limits",
      "limit",
      {name("names the end stop in the impact log"),
       F("joint", FieldType::Item, "Joint", "the joint whose coordinate is stopped").required().of("joints"),
       F("min", FieldType::Number, "Lowest", "the least coordinate: rad for a rotation, m for a slide (empty: none)"),
       F("max", FieldType::Number, "Highest", "the greatest coordinate: rad for a rotation, m for a slide (empty: none)"),
       F("law", FieldType::Choice, "Impact law", "how the joint's rate changes at the stop")
           .choices({"newton", "kinematic"}, {"Newton: v⁺ = −e v⁻", "Kinematic (energetic) restitution"})
           .byDefault("newton", true),
       F("restitution", FieldType::Number, "Restitution e", "0 (plastic) to 1 (elastic)").byDefault("1", true)}};
  return kind;
}

Texts textsOf(const JointLimit& l) {
  return {{"name", l.name},
          {"joint", l.joint},
          {"min", l.hasMin ? numberText(l.min) : std::string()},
          {"max", l.hasMax ? numberText(l.max) : std::string()},
          {"law", toString(l.law)},
          {"restitution", numberText(l.restitution)}};
}

bool limitFrom(const Texts& texts, JointLimit& out, std::string& why) {
  JointLimit l;
  l.name = get(texts, "name");
  if (!requiredPresent(limitKind(), texts, "", why)) return false;
  l.joint = get(texts, "joint");
  const std::string min = get(texts, "min"), max = get(texts, "max"), law = get(texts, "law");
  if ((l.hasMin = !min.empty()) && !readField(min, "lowest coordinate", l.min, why)) return false;
  if ((l.hasMax = !max.empty()) && !readField(max, "highest coordinate", l.max, why)) return false;
  if (!law.empty() && !readChoice(law, "impact law", {Contact::Law::Newton, Contact::Law::Kinematic}, l.law, why)) return false;
  if (!optionalNumber(texts, "restitution", "restitution", l.restitution, why)) return false;
  out = l;
  return true;
}

// -------------------------------------------------------------------------------------- switches

const Kind& switchKind() {
  static const Kind kind{
      "switches",
      "switch",
      {name("names the switch in the impact log"),
       F("point", FieldType::Point, "Point", "the point whose world coordinate is watched (or give a joint)").moving(),
       F("component", FieldType::Choice, "Coordinate", "the point's world coordinate that is watched")
           .choices({"x", "y", "z"})
           .planar({"x", "y"})
           .byDefault("y", true),
       F("joint", FieldType::Item, "Joint", "the joint whose coordinate is watched (or give a point)").of("joints"),
       F("value", FieldType::Number, "Value", "the coordinate's value (m or rad) whose crossing switches").required(),
       F("direction", FieldType::Choice, "Direction", "the crossing that switches")
           .choices({"falling", "rising"}, {"Falling (crossing downwards)", "Rising (crossing upwards)"})
           .byDefault("falling", true),
       F("enable", FieldType::Items, "Enable", "the forces that act from the crossing on (they start off)").of("forces"),
       F("disable", FieldType::Items, "Disable", "the forces that stop at the crossing").of("forces")}};
  return kind;
}

Texts textsOf(const Switch& s) {
  return {{"name", s.name},
          {"point", s.point.str()},
          {"component", s.point.empty() ? std::string() : std::string(toString(s.component))},
          {"joint", s.joint},
          {"value", numberText(s.value)},
          {"direction", s.falling ? "falling" : "rising"},
          {"enable", joinList(s.enable)},
          {"disable", joinList(s.disable)}};
}

bool switchFrom(const Texts& texts, Switch& out, std::string& why) {
  Switch s;
  s.name = get(texts, "name");
  if (!requiredPresent(switchKind(), texts, "", why)) return false;
  if (const std::string point = get(texts, "point"); !point.empty()) {
    if (!readRef(point, "point", s.point, why)) return false;
    const std::string component = get(texts, "component");
    if (!component.empty() && !readChoice(component, "coordinate", {Component::X, Component::Y, Component::Z}, s.component, why))
      return false;
  }
  s.joint = get(texts, "joint");
  if (!readField(get(texts, "value"), "value", s.value, why)) return false;
  const std::string direction = get(texts, "direction");
  if (direction == "rising") s.falling = false;
  else if (!direction.empty() && direction != "falling") {
    why = "the direction '" + direction + "' is not one of: falling, rising";
    return false;
  }
  s.enable = splitList(get(texts, "enable"));
  s.disable = splitList(get(texts, "disable"));
  out = s;
  return true;
}

// --------------------------------------------------------------------------------------- outputs

const Kind& outputKind() {
  const std::vector<std::string> points{"point_position", "point_velocity", "point_acceleration"};
  static const Kind kind{
      "outputs",
      "output",
      {name("the CSV columns' and the plots' name (a point's: NAME.x, NAME.y)"),
       F("type", FieldType::Choice, "Records", "what the output measures at each step")
           .required()
           .choices({"point_position", "point_velocity", "point_acceleration", "joint_coordinate", "joint_rate", "spring_length",
                     "energy", "constraint_residual", "joint_reaction", "driver_effort"},
                    {"A point's position", "A point's velocity", "A point's acceleration", "A joint's coordinate (angle or slide)",
                     "A joint's rate", "A spring's length", "Energy", "Constraint residual",
                     "A joint's reaction (force and moment on a body)", "A driver's effort (motor torque or force)"}),
       F("point", FieldType::Point, "Point", "the point measured, in world axes").required().types(points),
       F("joint", FieldType::Item, "Joint", "the joint measured (a coordinate from the drawn position)")
           .required()
           .of("joints")
           .types({"joint_coordinate", "joint_rate", "joint_reaction"}),
       F("on", FieldType::Item, "On body", "which of the joint's two bodies the reaction acts on")
           .required()
           .of("bodies")
           .types({"joint_reaction"}),
       F("force", FieldType::Item, "Spring", "the spring whose length is measured").required().of("forces").types({"spring_length"}),
       F("which", FieldType::Choice, "Energy", "which energy")
           .required()
           .types({"energy"})
           .choices({"kinetic", "potential", "total"}, {"Kinetic", "Potential (gravity and springs)", "Total"}),
       F("driver", FieldType::Item, "Driver", "the driver whose torque or force is measured")
           .required()
           .of("drivers")
           .types({"driver_effort"})}};
  return kind;
}

Texts textsOf(const Output& o) {
  Texts t{{"name", o.name}, {"type", toString(o.type)}};
  switch (o.type) {
    case Output::Type::PointPosition:
    case Output::Type::PointVelocity:
    case Output::Type::PointAcceleration: t["point"] = o.point.str(); break;
    case Output::Type::JointCoordinate:
    case Output::Type::JointRate: t["joint"] = o.joint; break;
    case Output::Type::SpringLength: t["force"] = o.spring; break;
    case Output::Type::Energy: t["which"] = toString(o.which); break;
    case Output::Type::ConstraintResidual: break;
    case Output::Type::JointReaction: t["joint"] = o.joint, t["on"] = o.on; break;
    case Output::Type::DriverEffort: t["driver"] = o.driver; break;
  }
  return t;
}

bool outputFrom(const Texts& texts, Output& out, std::string& why) {
  using T = Output::Type;
  Output o;
  o.name = get(texts, "name");
  if (!readChoice(get(texts, "type"), "type",
                  {T::PointPosition, T::PointVelocity, T::PointAcceleration, T::JointCoordinate, T::JointRate, T::SpringLength,
                   T::Energy, T::ConstraintResidual, T::JointReaction, T::DriverEffort},
                  o.type, why) ||
      !requiredPresent(outputKind(), texts, toString(o.type), why))
    return false;
  switch (o.type) {
    case T::PointPosition:
    case T::PointVelocity:
    case T::PointAcceleration:
      if (!readRef(get(texts, "point"), "point", o.point, why)) return false;
      break;
    case T::JointCoordinate:
    case T::JointRate: o.joint = get(texts, "joint"); break;
    case T::SpringLength: o.spring = get(texts, "force"); break;
    case T::Energy:
      if (!readChoice(get(texts, "which"), "energy", {Output::Energy::Kinetic, Output::Energy::Potential, Output::Energy::Total},
                      o.which, why))
        return false;
      break;
    case T::ConstraintResidual: break;
    case T::JointReaction: o.joint = get(texts, "joint"), o.on = get(texts, "on"); break;
    case T::DriverEffort: o.driver = get(texts, "driver"); break;
  }
  out = o;
  return true;
}

// ---------------------------------------------------------------------------- initial velocities

const Kind& initialVelocityKind() {
  static const Kind kind{
      "initial_velocities",
      "initial velocity",
      {F("type", FieldType::Choice, "Sets", "what the velocity is given for")
           .required()
           .choices({"joint", "point", "body"}, {"Joint rate (angular or sliding)", "Velocity of a point along x, y or z",
                                                 "Velocity and angular velocity of a body"})
           .implied(),
       F("joint", FieldType::Item, "Joint", "the joint whose rate is given").required().of("joints").types({"joint"}),
       F("point", FieldType::Point, "Point", "the point whose velocity component is given").required().moving().types({"point"}),
       F("component", FieldType::Choice, "Along", "the world axis of the component")
           .required()
           .types({"point"})
           .choices({"x", "y", "z"})
           .planar({"x", "y"}),
       F("value", FieldType::Number, "Value",
         "rad/s for a revolute joint, m/s for a slide or a point; an expression of the parameters is allowed")
           .required()
           .types({"joint", "point"}),
       F("body", FieldType::Item, "Body", "the free body whose velocity is given").required().of("bodies").types({"body"}),
       F("velocity", FieldType::Numbers, "Velocity", "of the body's frame origin in world axes, comma-separated")
           .types({"body"})
           .quantity(Quantity::Velocity),
       F("angular_velocity", FieldType::Numbers, "Angular velocity",
         "one number in the plane (counter-clockwise), three in space (about world x, y, z)")
           .types({"body"})
           .quantity(Quantity::AngularVelocity)
           .single()}};
  return kind;
}

Texts textsOf(const InitialVelocity& v) {
  switch (v.type) {
    case InitialVelocity::Type::Joint: return {{"type", "joint"}, {"joint", v.joint}, {"value", numberText(v.value)}};
    case InitialVelocity::Type::PointComponent:
      return {{"type", "point"}, {"point", v.point.str()}, {"component", toString(v.component)}, {"value", numberText(v.value)}};
    case InitialVelocity::Type::Body:
      return {{"type", "body"},
              {"body", v.body},
              {"velocity", numbersText(v.velocity)},
              {"angular_velocity", numbersText(v.angularVelocity)}};
  }
  return {};
}

bool initialVelocityFrom(const Texts& texts, InitialVelocity& out, std::string& why) {
  InitialVelocity v;
  const std::string type = get(texts, "type");
  if (type == "joint") v.type = InitialVelocity::Type::Joint;
  else if (type == "point") v.type = InitialVelocity::Type::PointComponent;
  else if (type == "body") v.type = InitialVelocity::Type::Body;
  else {
    why = "an initial velocity names a \"joint\", a \"point\" or a \"body\"";
    return false;
  }
  if (!requiredPresent(initialVelocityKind(), texts, type, why)) return false;
  switch (v.type) {
    case InitialVelocity::Type::Joint: v.joint = get(texts, "joint"); break;
    case InitialVelocity::Type::PointComponent:
      if (!readRef(get(texts, "point"), "point", v.point, why) ||
          !readChoice(get(texts, "component"), "component", {Component::X, Component::Y, Component::Z}, v.component, why))
        return false;
      break;
    case InitialVelocity::Type::Body:
      v.body = get(texts, "body");
      if (!readNumbers(get(texts, "velocity"), "velocity", v.velocity, why) ||
          !readNumbers(get(texts, "angular_velocity"), "angular velocity", v.angularVelocity, why))
        return false;
      break;
  }
  if (v.type != InitialVelocity::Type::Body && !readField(get(texts, "value"), "value", v.value, why)) return false;
  out = v;
  return true;
}

// ----------------------------------------------------------------------------------------- costs

const Kind& costKind() {
  const std::vector<std::string> expressions{"integral", "terminal", "minimum", "maximum"};
  static const Kind kind{
      "costs",
      "cost",
      {name("what studies, tunings and sweeps call it"),
       F("type", FieldType::Choice, "Type", "what of the run it measures")
           .required()
           .choices({"integral", "terminal", "targets", "minimum", "maximum"},
                    {"Integral over the run", "Value at the end", "Through target points", "Least value over the run",
                     "Greatest value over the run"}),
       F("expression", FieldType::Formula, "Expression",
         "of outputs' components (P.x, crank_angle), initial(...), parameters and t, e.g. (P.x - 1)^2")
           .required()
           .types(expressions),
       F("output", FieldType::Item, "Point output", "the point output (its position) that should pass through the targets")
           .required()
           .of("outputs")
           .types({"targets"}),
       F("timing", FieldType::Choice, "Timing", "when each target is to be met")
           .types({"targets"})
           .choices({"prescribed", "free"}, {"At its time t", "Anywhere along the path (path generation)"})
           .byDefault("prescribed"),
       F("targets", FieldType::Targets, "Targets", "t: x, y; t: x, y ... (the sketch's Add Target Path makes them by clicking)")
           .required()
           .types({"targets"})}};
  return kind;
}

std::string targetsText(const std::vector<Cost::Target>& targets) {
  std::string out;
  for (const Cost::Target& t : targets) {
    std::vector<std::string> at;
    for (double x : t.at) at.push_back(numberText(x));
    out += (out.empty() ? "" : "; ") + numberText(t.t) + ": " + joinList(at);
  }
  return out;
}

bool readTargets(const std::string& text, std::vector<Cost::Target>& out, std::string& why) {
  out.clear();
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(';', start), text.size());
    const std::string one = trimmed(text.substr(start, end - start));
    start = end + 1;
    if (one.empty()) continue;
    Cost::Target target;
    const std::size_t colon = one.find(':');
    const std::vector<std::string> at = splitList(colon == std::string::npos ? one : one.substr(colon + 1));
    bool ok = colon != std::string::npos && readNumber(one.substr(0, colon), target.t) && at.size() >= 2 && at.size() <= 3;
    for (const std::string& x : at) ok = ok && readNumber(x, target.at.emplace_back());
    if (!ok) {
      why = "the target '" + one + "' is not a time and a point: write t: x, y";
      return false;
    }
    out.push_back(std::move(target));
  }
  if (out.empty()) {
    why = "a targets cost needs at least one target point";
    return false;
  }
  return true;
}

Texts textsOf(const Cost& c) {
  if (c.type == Cost::Type::Targets)
    return {{"name", c.name},
            {"type", "targets"},
            {"output", c.output},
            {"timing", c.timing == Cost::Timing::Free ? "free" : "prescribed"},
            {"targets", targetsText(c.targets)}};
  return {{"name", c.name}, {"type", toString(c.type)}, {"expression", c.expression.text()}};
}

bool costFrom(const Texts& texts, Cost& out, std::string& why) {
  Cost c;
  c.name = get(texts, "name");
  if (!readChoice(get(texts, "type"), "type",
                  {Cost::Type::Integral, Cost::Type::Terminal, Cost::Type::Targets, Cost::Type::Minimum, Cost::Type::Maximum}, c.type,
                  why) ||
      !requiredPresent(costKind(), texts, toString(c.type), why))
    return false;
  if (c.type == Cost::Type::Targets) {
    c.output = get(texts, "output");
    const std::string timing = get(texts, "timing");
    if (timing == "free") c.timing = Cost::Timing::Free;
    else if (!timing.empty() && timing != "prescribed") {
      why = "the timing '" + timing + "' is not one of: prescribed, free";
      return false;
    }
    if (!readTargets(get(texts, "targets"), c.targets, why)) return false;
    if (c.timing == Cost::Timing::Prescribed)
      for (std::size_t k = 1; k < c.targets.size(); ++k)
        if (c.targets[k].t < c.targets[k - 1].t) {
          why = "the targets must be in time order (target " + std::to_string(k + 1) + " is earlier than the one before)";
          return false;
        }
  } else {
    const std::string expression = get(texts, "expression");
    ExpressionError error;
    if (!Expression::parse(expression, c.expression, error)) {
      why = "the expression '" + expression + "' does not parse at character " + std::to_string(error.offset + 1) + ": " + error.message;
      return false;
    }
  }
  out = c;
  return true;
}

std::string impliedType(const Kind& kind, const std::vector<std::string>& keys) {
  const Field* type = kind.typeField();
  if (!type) return {};
  for (const std::string& t : type->choices)
    for (const Field& f : kind.fields)
      if (f.types.size() == 1 && f.types.front() == t && std::find(keys.begin(), keys.end(), f.key) != keys.end()) return t;
  return {};
}

}  // namespace lw::schema
