// The shipped samples (and a few generated mechanisms) loaded for tests.
#pragma once

#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "io/mechanism_io.h"
#include "mechanism/generators.h"

namespace lw::test {

/// A shipped sample by file stem ("four-bar"); throws when it does not load.
inline Mechanism sampleMechanism(const std::string& name) {
  auto r = io::loadMechanismFile(std::string(LW_SAMPLES_DIR) + "/" + name + ".json");
  if (!r.ok()) throw std::runtime_error(name + ".json does not load");
  return *r.mechanism;
}

/// A mechanism and its resolved form together (the resolved one's run keeps pointers into it:
/// held by pointer, never copied).
struct Loaded {
  Mechanism mechanism;
  ResolvedMechanism resolved;
};
/// `m` resolved; throws when it does not resolve.
inline std::unique_ptr<Loaded> loaded(Mechanism m) {
  auto l = std::make_unique<Loaded>();
  l->mechanism = std::move(m);
  Diagnostics d;
  auto r = resolve(l->mechanism, d);
  if (!r) throw std::runtime_error("the mechanism does not resolve" + (d.empty() ? std::string() : ": " + d.front().format()));
  l->resolved = std::move(*r);
  return l;
}
/// A mechanism file's text, loaded and resolved; throws with the first problem.
inline std::unique_ptr<Loaded> loadedFromText(const std::string& text) {
  auto r = io::loadMechanismFromString(text);
  if (!r.ok()) throw std::runtime_error(r.diagnostics[0].format());
  return loaded(*r.mechanism);
}

/// A shipped sample, resolved.
inline ResolvedMechanism sampleResolved(const std::string& name) {
  Diagnostics d;
  return *resolve(sampleMechanism(name), d);
}

/// The mechanism without its contacts: the five-bar's springs, drivers and sensitivities as they
/// were tested before its impacts were simulated (its first is at t = 0.28 s)
inline Mechanism withoutContacts(Mechanism m) {
  m.contacts.clear();
  return m;
}
inline ResolvedMechanism sampleResolvedWithoutContacts(const std::string& name) {
  Diagnostics d;
  return *resolve(withoutContacts(sampleMechanism(name)), d);
}

/// Every sample that loads, by file stem, plus the generated spatial crank-slider and a small grid.
inline std::vector<std::pair<std::string, Mechanism>> samplesAndGenerated() {
  std::vector<std::pair<std::string, Mechanism>> out;
  for (const auto& e : std::filesystem::directory_iterator(LW_SAMPLES_DIR)) {
    if (e.path().extension() != ".json") continue;
    auto r = io::loadMechanismFile(e.path().string());
    if (r.ok()) out.emplace_back(e.path().stem().string(), *r.mechanism);
  }
  out.emplace_back("crank-slider-3d", generate::crankSlider3d(2));
  out.emplace_back("grid-2x3", generate::grid(2, 3));
  return out;
}

// the RSSR, its bars with an even inertia: a slender bar's spin between two ball joints would
// make the motion's conditioning, not the kernels, what a comparison measures; and without its
// motor
inline Mechanism rssrEvenInertias() {
  Mechanism m = sampleMechanism("rssr");
  for (Body& b : m.bodies) b.inertia = {Inertia::Form::Diagonal, {Number(0.1), Number(0.12), Number(0.14)}};
  return m;
}
inline Mechanism rssrWithoutMotor() {
  Mechanism m = rssrEvenInertias();
  m.drivers.clear();
  return m;
}

// that RSSR with its revolute D a ball joint: the tree's ball joints are quaternion nodes and the
// cut falls on a ball joint whose points' rows read them
inline Mechanism rssrBallAtD() {
  Mechanism m = rssrWithoutMotor();
  for (Joint& j : m.joints)
    if (j.name == "D") {
      j.type = JointType::Spherical;
      j.axes.clear();
    }
  std::erase_if(m.outputs, [](const Output& o) { return o.joint == "D"; });
  return m;
}

// that RSSR with its ball joint C a revolute about n = (0, 0.6, 0.8) on both bars: the cut falls
// on C, a spatial revolute whose axis rows the coupler's ball joint B turns (no mobility left: a
// model for derivatives at a state, not for a run)
inline Mechanism rssrRevoluteAtC() {
  Mechanism m = rssrWithoutMotor();
  for (Body& b : m.bodies)
    if (b.name == "coupler" || b.name == "rocker") b.vectors.push_back({"n", {Number(0.0), Number(0.6), Number(0.8)}});
  for (Joint& j : m.joints)
    if (j.name == "C") {
      j.type = JointType::Revolute;
      j.axes = {{"coupler", "n"}, {"rocker", "n"}};
    }
  return m;
}

// the five-bar with a driver (one freedom left): `kind` "joint" drives its crank A (a tree
// joint's coordinate), "coordinate" the height of P2 on bar_23, "distance" P2's distance from A
inline Mechanism fiveBarDriven(const std::string& kind) {
  Mechanism m = sampleMechanism("five-bar");
  Driver d;
  d.name = "drive";
  if (kind == "joint") {
    d.joint = "A";
    d.function = Number::expr("0.5*t");
  } else if (kind == "coordinate") {
    d.type = Driver::Type::Coordinate;
    d.point = {"bar_23", "P2"};
    d.component = Component::Y;
    d.function = Number::expr("-2 + 0.1*t");
  } else {
    d.type = Driver::Type::Distance;
    d.points[0] = {"ground", "A"};
    d.points[1] = {"bar_23", "P2"};
    d.function = Number::expr("sqrt(4.25) + 0.05*t");
  }
  m.drivers.push_back(d);
  m.independentCoordinates.pop_back();  // P2's x alone
  return m;
}

// every force element kind on `m`: damping on its springs, a torsion spring on every rotary joint,
// a body-frame force and a torque on its first and last moving bodies
inline Mechanism withEveryForce(Mechanism m) {
  for (auto& f : m.forces)
    if (f.type == Force::Type::Spring) f.damping = 0.7;
  const int dim = m.dimension;
  for (const auto& j : m.joints) {
    if (j.type != JointType::Pin && j.type != JointType::Revolute) continue;
    Force t;
    t.name = "torsion_" + j.name;
    t.type = Force::Type::TorsionSpring;
    t.joint = j.name;
    t.stiffness = 3;
    t.damping = 0.4;
    t.naturalAngle = 0.2;
    m.forces.push_back(t);
  }
  const Body& first = m.bodies.front();
  Force p;
  p.name = "push";
  p.type = Force::Type::PointForce;
  p.point = {first.name, first.points.back().name};
  p.frame = Force::Frame::Body;
  for (int k = 0; k < dim; ++k) p.value.push_back(Number::expr(std::to_string(k + 1) + " * sin(2 * t)"));
  m.forces.push_back(p);
  Force q;
  q.name = "twist";
  q.type = Force::Type::Torque;
  q.body = m.bodies.back().name;
  q.frame = Force::Frame::Body;
  for (int k = 0; k < (dim == 2 ? 1 : 3); ++k) q.value.push_back(Number::expr("0.5 + " + std::to_string(k) + " * t"));
  m.forces.push_back(q);
  // a spring between two moving bodies (a non-tree coupling of the pattern)
  Force s;
  s.name = "between";
  s.type = Force::Type::Spring;
  s.points[0] = {first.name, first.points.front().name};
  s.points[1] = {m.bodies.back().name, m.bodies.back().points.front().name};
  s.stiffness = 40;
  s.damping = 0.9;
  s.naturalLength = 0.5;
  m.forces.push_back(s);
  return m;
}

}  // namespace lw::test
