// Edits of the items that name others: drivers, forces, contacts, limits, switches, initial
// velocities and outputs (Model > Add ..., Change Selected..., Delete Selected).
#include <algorithm>

#include "mechanism/edit_support.h"

namespace lw::edit {
using namespace detail;

EditResult addDriver(Mechanism& m, Driver d) {
  const std::string name = d.name.empty() ? freshName(m, "motor") : d.name;
  const std::string description = "Add driver " + name + " (" + toString(d.type) + ")";
  return addNamed(m.drivers, std::move(d), name, description);
}

EditResult changeDriver(Mechanism& m, std::string name, Driver d) { return replaceNamed(m.drivers, name, &d, "driver"); }

EditResult deleteDriver(Mechanism& m, std::string name) {
  EditResult r = replaceNamed<Driver>(m.drivers, name, nullptr, "driver");
  if (r.ok) dropOutputs(m, [&](const Output& o) { return o.driver == name; });  // its effort
  return r;
}

EditResult addForce(Mechanism& m, Force f) {
  const std::string name = f.name.empty() ? freshName(m, f.type == Force::Type::Spring ? "spring" : "force") : f.name;
  const std::string description = std::string("Add ") + toString(f.type) + " " + name;
  return addNamed(m.forces, std::move(f), name, description);
}

EditResult changeForce(Mechanism& m, std::string name, Force f) {
  const auto it = std::find_if(m.forces.begin(), m.forces.end(), [&](const Force& x) { return x.name == name; });
  const bool wasSpring = it != m.forces.end() && it->type == Force::Type::Spring;
  EditResult r = replaceNamed(m.forces, name, &f, "force");
  // a spring's length outputs lose their meaning when it becomes another kind of force
  if (r.ok && wasSpring && f.type != Force::Type::Spring) dropOutputs(m, [&](const Output& o) { return o.spring == name; });
  return r;
}

EditResult deleteForce(Mechanism& m, std::string name) {
  EditResult r = replaceNamed<Force>(m.forces, name, nullptr, "force");
  if (r.ok) dropOutputs(m, [&](const Output& o) { return o.spring == name; });
  return r;
}

EditResult addContact(Mechanism& m, Contact c) {
  const std::string name = c.name.empty() ? freshName(m, "contact") : c.name;
  const std::string description = "Add contact " + name + " (" + c.point.str() + ")";
  return addNamed(m.contacts, std::move(c), name, description);
}

EditResult changeContact(Mechanism& m, std::string name, Contact c) { return replaceNamed(m.contacts, name, &c, "contact"); }

EditResult deleteContact(Mechanism& m, std::string name) { return replaceNamed<Contact>(m.contacts, name, nullptr, "contact"); }


EditResult addLimit(Mechanism& m, JointLimit l) {
  const std::string name = l.name.empty() ? freshNameAmong(m.limits, "limit") : l.name;
  const std::string description = "Add limit " + name + " (joint " + l.joint + ")";
  return addNamed(m.limits, std::move(l), name, description);
}

EditResult changeLimit(Mechanism& m, std::string name, JointLimit l) { return replaceNamed(m.limits, name, &l, "limit"); }

EditResult deleteLimit(Mechanism& m, std::string name) { return replaceNamed<JointLimit>(m.limits, name, nullptr, "limit"); }

EditResult addSwitch(Mechanism& m, Switch s) {
  const std::string name = s.name.empty() ? freshNameAmong(m.switches, "switch") : s.name;
  const std::string description = "Add switch " + name;
  return addNamed(m.switches, std::move(s), name, description);
}

EditResult changeSwitch(Mechanism& m, std::string name, Switch s) { return replaceNamed(m.switches, name, &s, "switch"); }

EditResult deleteSwitch(Mechanism& m, std::string name) { return replaceNamed<Switch>(m.switches, name, nullptr, "switch"); }

std::string describe(const InitialVelocity& v) {
  switch (v.type) {
    case InitialVelocity::Type::Joint: return "joint " + v.joint;
    case InitialVelocity::Type::PointComponent: return v.point.str() + "." + toString(v.component);
    case InitialVelocity::Type::Body: return "body " + v.body;
  }
  return {};
}

EditResult addInitialVelocity(Mechanism& m, InitialVelocity v) {
  EditResult r;
  r.item = describe(v);
  const auto same = std::find_if(m.initialVelocities.begin(), m.initialVelocities.end(),
                                 [&](const InitialVelocity& x) { return describe(x) == r.item; });
  r.description = (same == m.initialVelocities.end() ? "Set initial velocity of " : "Change initial velocity of ") + r.item;
  if (same == m.initialVelocities.end()) m.initialVelocities.push_back(std::move(v));
  else *same = std::move(v);
  r.ok = true;
  return r;
}

EditResult changeInitialVelocity(Mechanism& m, std::size_t index, const InitialVelocity* v) {
  EditResult r;
  if (index >= m.initialVelocities.size()) {
    r.error = "there is no initial velocity number " + std::to_string(index + 1);
    return r;
  }
  r.item = describe(v ? *v : m.initialVelocities[index]);
  r.description = (v ? "Change initial velocity of " : "Delete initial velocity of ") + r.item;
  if (v) m.initialVelocities[index] = *v;
  else m.initialVelocities.erase(m.initialVelocities.begin() + static_cast<std::ptrdiff_t>(index));
  r.ok = true;
  return r;
}

EditResult addOutput(Mechanism& m, Output o) {
  const std::string name = o.name.empty() ? freshNameAmong(m.outputs, "output") : o.name;
  const std::string description = std::string("Add output ") + name + " (" + toString(o.type) + ")";
  return addNamed(m.outputs, std::move(o), name, description);
}

EditResult changeOutput(Mechanism& m, std::string name, Output o) { return replaceNamed(m.outputs, name, &o, "output"); }

EditResult deleteOutput(Mechanism& m, std::string name) {
  EditResult r = replaceNamed<Output>(m.outputs, name, nullptr, "output");
  if (!r.ok) return r;
  const std::size_t costs = m.costs.size();
  dropCostsReading(m, {name});  // the costs that read it go with it
  if (m.costs.size() < costs) r.description += " and the costs on it";
  return r;
}

}  // namespace lw::edit
