#include "mechanism/fields.h"

namespace lw {
namespace {

using Q = Quantity;

struct Walker {
  const std::function<void(const FieldVisit&)>& fn;

  void one(const std::string& path, const Number& n, Q q, bool t = false) const { fn(FieldVisit{path, n, t, q}); }
  void vec(const std::string& path, const NumberVector& v, Q q, bool t = false) const {
    for (std::size_t i = 0; i < v.size(); ++i) one(path + "[" + std::to_string(i) + "]", v[i], q, t);
  }
  void named(const std::string& path, const std::vector<NamedVector>& items, Q q) const {
    for (const auto& p : items) vec(path + "." + p.name, p.value, q);
  }
};

// a joint's coordinate: an angle for the turning joints, a length for the sliding ones
Q jointCoordinate(const Mechanism& m, const std::string& joint, bool rate = false) {
  for (const auto& j : m.joints)
    if (j.name == joint && (j.type == JointType::Slider || j.type == JointType::Prismatic))
      return rate ? Q::Velocity : Q::Length;
  return rate ? Q::AngularVelocity : Q::Angle;
}

std::string at(const char* list, std::size_t i) {
  return std::string(list) + "[" + std::to_string(i) + "]";
}

}  // namespace

void forEachNumber(const Mechanism& m, const std::function<void(const FieldVisit&)>& fn) {
  const Walker w{fn};
  w.vec("gravity", m.gravity, Q::Acceleration);
  w.named("ground.points", m.ground.points, Q::Length);
  w.named("ground.vectors", m.ground.vectors, Q::None);
  for (std::size_t i = 0; i < m.bodies.size(); ++i) {
    const Body& b = m.bodies[i];
    const std::string p = at("bodies", i);
    w.vec(p + ".position", b.position, Q::Length);
    if (m.dimension == 2) {
      w.one(p + ".angle", b.angle, Q::Angle);
    } else {
      w.vec(p + ".rotation.axis", b.rotationAxis, Q::None);
      w.one(p + ".rotation.angle", b.rotationAngle, Q::Angle);
    }
    w.one(p + ".mass", b.mass, Q::Mass);
    w.vec(p + ".com", b.com, Q::Length);
    if (b.inertia.form == Inertia::Form::Scalar) {
      if (!b.inertia.values.empty()) w.one(p + ".inertia", b.inertia.values[0], Q::Inertia);
    } else if (b.inertia.form == Inertia::Form::Diagonal) {
      w.vec(p + ".inertia", b.inertia.values, Q::Inertia);
    } else {
      for (std::size_t k = 0; k < b.inertia.values.size(); ++k)
        w.one(p + ".inertia[" + std::to_string(k / 3) + "][" + std::to_string(k % 3) + "]",
              b.inertia.values[k], Q::Inertia);
    }
    w.named(p + ".points", b.points, Q::Length);
    w.named(p + ".vectors", b.vectors, Q::None);
    switch (b.shape.type) {
      case Shape::Type::Auto: w.one(p + ".shape.width", b.shape.width, Q::Length); break;
      case Shape::Type::Sphere: w.one(p + ".shape.radius", b.shape.radius, Q::Length); break;
      case Shape::Type::Box: w.vec(p + ".shape.size", b.shape.size, Q::Length); break;
      case Shape::Type::None: break;
    }
  }
  for (std::size_t i = 0; i < m.drivers.size(); ++i) {
    const Driver& d = m.drivers[i];
    w.one(at("drivers", i) + ".function", d.function, d.type == Driver::Type::Joint ? jointCoordinate(m, d.joint) : Q::Length, true);
  }
  for (std::size_t i = 0; i < m.forces.size(); ++i) {
    const Force& f = m.forces[i];
    const std::string p = at("forces", i);
    switch (f.type) {
      case Force::Type::Spring:
        w.one(p + ".stiffness", f.stiffness, Q::LinearStiffness);
        w.one(p + ".damping", f.damping, Q::LinearDamping);
        w.one(p + ".natural_length", f.naturalLength, Q::Length);
        w.one(p + ".force", f.actuatorForce, Q::Force, true);
        break;
      case Force::Type::TorsionSpring:
        w.one(p + ".stiffness", f.stiffness, Q::RotaryStiffness);
        w.one(p + ".damping", f.damping, Q::RotaryDamping);
        w.one(p + ".natural_angle", f.naturalAngle, Q::Angle);
        break;
      case Force::Type::PointForce:
      case Force::Type::Torque:
        if (f.type == Force::Type::Torque && m.dimension == 2 && f.value.size() == 1)
          w.one(p + ".value", f.value[0], Q::Torque, true);
        else
          w.vec(p + ".value", f.value, f.type == Force::Type::Torque ? Q::Torque : Q::Force, true);
        break;
      case Force::Type::Tyre:
        w.one(p + ".radius", f.radius, Q::Length);
        w.one(p + ".stiffness", f.stiffness, Q::LinearStiffness);
        w.one(p + ".damping", f.damping, Q::LinearDamping);
        w.one(p + ".friction", f.friction, Q::None);
        w.one(p + ".slip_velocity", f.slipVelocity, Q::Velocity);
        break;
    }
  }
  for (std::size_t i = 0; i < m.contacts.size(); ++i) {
    w.one(at("contacts", i) + ".radius", m.contacts[i].radius, Q::Length);
    w.one(at("contacts", i) + ".restitution", m.contacts[i].restitution, Q::None);
  }
  for (std::size_t i = 0; i < m.limits.size(); ++i) {
    const Q q = jointCoordinate(m, m.limits[i].joint);
    if (m.limits[i].hasMin) w.one(at("limits", i) + ".min", m.limits[i].min, q);
    if (m.limits[i].hasMax) w.one(at("limits", i) + ".max", m.limits[i].max, q);
    w.one(at("limits", i) + ".restitution", m.limits[i].restitution, Q::None);
  }
  for (std::size_t i = 0; i < m.switches.size(); ++i)
    w.one(at("switches", i) + ".value", m.switches[i].value, m.switches[i].joint.empty() ? Q::Length : jointCoordinate(m, m.switches[i].joint));
  for (std::size_t i = 0; i < m.initialVelocities.size(); ++i) {
    const InitialVelocity& v = m.initialVelocities[i];
    const std::string p = at("initial_velocities", i);
    if (v.type == InitialVelocity::Type::Body) {
      w.vec(p + ".velocity", v.velocity, Q::Velocity);
      if (m.dimension == 2 && v.angularVelocity.size() == 1)
        w.one(p + ".angular_velocity", v.angularVelocity[0], Q::AngularVelocity);
      else
        w.vec(p + ".angular_velocity", v.angularVelocity, Q::AngularVelocity);
    } else {
      w.one(p + ".value", v.value, v.type == InitialVelocity::Type::Joint ? jointCoordinate(m, v.joint, true) : Q::Velocity);
    }
  }
}

const char* siUnit(Quantity q) {
  switch (q) {
    case Q::None: return "";
    case Q::Length: return "m";
    case Q::Angle: return "rad";
    case Q::Mass: return "kg";
    case Q::Inertia: return "kg·m²";
    case Q::Acceleration: return "m/s²";
    case Q::Velocity: return "m/s";
    case Q::AngularVelocity: return "rad/s";
    case Q::Force: return "N";
    case Q::Torque: return "N·m";
    case Q::LinearStiffness: return "N/m";
    case Q::RotaryStiffness: return "N·m/rad";
    case Q::LinearDamping: return "N·s/m";
    case Q::RotaryDamping: return "N·m·s/rad";
  }
  return "";
}

Number* numberAt(Mechanism& m, const std::string& path) {
  Number* found = nullptr;
  // forEachNumber hands out references into `m`, which is not const here
  forEachNumber(m, [&](const FieldVisit& v) {
    if (!found && v.path == path) found = const_cast<Number*>(&v.number);
  });
  return found;
}

}  // namespace lw
