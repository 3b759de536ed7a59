#include "mechanism/fields.h"

namespace lw {
namespace {

struct Walker {
  const std::function<void(const FieldVisit&)>& fn;

  void one(const std::string& path, const Number& n, bool t = false) const {
    fn(FieldVisit{path, n, t});
  }
  void vec(const std::string& path, const NumberVector& v, bool t = false) const {
    for (std::size_t i = 0; i < v.size(); ++i) one(path + "[" + std::to_string(i) + "]", v[i], t);
  }
  void named(const std::string& path, const std::vector<NamedVector>& items) const {
    for (const auto& p : items) vec(path + "." + p.name, p.value);
  }
};

std::string at(const char* list, std::size_t i) {
  return std::string(list) + "[" + std::to_string(i) + "]";
}

}  // namespace

void forEachNumber(const Mechanism& m, const std::function<void(const FieldVisit&)>& fn) {
  const Walker w{fn};
  w.vec("gravity", m.gravity);
  w.named("ground.points", m.ground.points);
  w.named("ground.vectors", m.ground.vectors);
  for (std::size_t i = 0; i < m.bodies.size(); ++i) {
    const Body& b = m.bodies[i];
    const std::string p = at("bodies", i);
    w.vec(p + ".position", b.position);
    if (m.dimension == 2) {
      w.one(p + ".angle", b.angle);
    } else {
      w.vec(p + ".rotation.axis", b.rotationAxis);
      w.one(p + ".rotation.angle", b.rotationAngle);
    }
    w.one(p + ".mass", b.mass);
    w.vec(p + ".com", b.com);
    if (b.inertia.form == Inertia::Form::Scalar) {
      if (!b.inertia.values.empty()) w.one(p + ".inertia", b.inertia.values[0]);
    } else if (b.inertia.form == Inertia::Form::Diagonal) {
      w.vec(p + ".inertia", b.inertia.values);
    } else {
      for (std::size_t k = 0; k < b.inertia.values.size(); ++k)
        w.one(p + ".inertia[" + std::to_string(k / 3) + "][" + std::to_string(k % 3) + "]",
              b.inertia.values[k]);
    }
    w.named(p + ".points", b.points);
    w.named(p + ".vectors", b.vectors);
    switch (b.shape.type) {
      case Shape::Type::Auto: w.one(p + ".shape.width", b.shape.width); break;
      case Shape::Type::Sphere: w.one(p + ".shape.radius", b.shape.radius); break;
      case Shape::Type::Box: w.vec(p + ".shape.size", b.shape.size); break;
      case Shape::Type::None: break;
    }
  }
  for (std::size_t i = 0; i < m.drivers.size(); ++i)
    w.one(at("drivers", i) + ".function", m.drivers[i].function, true);
  for (std::size_t i = 0; i < m.forces.size(); ++i) {
    const Force& f = m.forces[i];
    const std::string p = at("forces", i);
    switch (f.type) {
      case Force::Type::Spring:
        w.one(p + ".stiffness", f.stiffness);
        w.one(p + ".damping", f.damping);
        w.one(p + ".natural_length", f.naturalLength);
        w.one(p + ".force", f.actuatorForce, true);
        break;
      case Force::Type::TorsionSpring:
        w.one(p + ".stiffness", f.stiffness);
        w.one(p + ".damping", f.damping);
        w.one(p + ".natural_angle", f.naturalAngle);
        break;
      case Force::Type::PointForce:
      case Force::Type::Torque:
        if (f.type == Force::Type::Torque && m.dimension == 2 && f.value.size() == 1)
          w.one(p + ".value", f.value[0], true);
        else
          w.vec(p + ".value", f.value, true);
        break;
      case Force::Type::Tyre:
        w.one(p + ".radius", f.radius);
        w.one(p + ".stiffness", f.stiffness);
        w.one(p + ".damping", f.damping);
        w.one(p + ".friction", f.friction);
        w.one(p + ".slip_velocity", f.slipVelocity);
        break;
    }
  }
  for (std::size_t i = 0; i < m.contacts.size(); ++i) {
    w.one(at("contacts", i) + ".radius", m.contacts[i].radius);
    w.one(at("contacts", i) + ".restitution", m.contacts[i].restitution);
  }
  for (std::size_t i = 0; i < m.limits.size(); ++i) {
    if (m.limits[i].hasMin) w.one(at("limits", i) + ".min", m.limits[i].min);
    if (m.limits[i].hasMax) w.one(at("limits", i) + ".max", m.limits[i].max);
    w.one(at("limits", i) + ".restitution", m.limits[i].restitution);
  }
  for (std::size_t i = 0; i < m.switches.size(); ++i) w.one(at("switches", i) + ".value", m.switches[i].value);
  for (std::size_t i = 0; i < m.initialVelocities.size(); ++i) {
    const InitialVelocity& v = m.initialVelocities[i];
    const std::string p = at("initial_velocities", i);
    if (v.type == InitialVelocity::Type::Body) {
      w.vec(p + ".velocity", v.velocity);
      if (m.dimension == 2 && v.angularVelocity.size() == 1)
        w.one(p + ".angular_velocity", v.angularVelocity[0]);
      else
        w.vec(p + ".angular_velocity", v.angularVelocity);
    } else {
      w.one(p + ".value", v.value);
    }
  }
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
