#include "sensitivity/semi_analytical.h"

#include <algorithm>
#include <cmath>

#include "mechanism/parameters.h"

namespace lw::sens::detail {
namespace {

// ---- the elements of seed 003's local semi-analytical method ----
// An element is what a field path starts with: a body ("bodies[2]", the ground "ground"), a force,
// a driver, a contact, an initial velocity, the gravity.
struct Element {
  enum class Kind { Body, Force, Driver, Contact, InitialRate, Gravity } kind;
  std::size_t index = 0;  // in MechanismNumbers' lists (bodies: 0 the ground)
  bool operator==(const Element&) const = default;
};

std::vector<Element> elementsOf(const std::vector<std::string>& paths) {
  std::vector<Element> out;
  auto indexAfter = [](const std::string& p, const std::string& list) -> long {
    if (p.rfind(list + "[", 0) != 0) return -1;
    return std::stol(p.substr(list.size() + 1));
  };
  for (const auto& p : paths) {
    Element e{Element::Kind::Gravity, 0};
    long i;
    if (p.rfind("gravity", 0) == 0) e = {Element::Kind::Gravity, 0};
    else if (p.rfind("ground", 0) == 0) e = {Element::Kind::Body, 0};
    else if ((i = indexAfter(p, "bodies")) >= 0) e = {Element::Kind::Body, static_cast<std::size_t>(i) + 1};
    else if ((i = indexAfter(p, "forces")) >= 0) e = {Element::Kind::Force, static_cast<std::size_t>(i)};
    else if ((i = indexAfter(p, "drivers")) >= 0) e = {Element::Kind::Driver, static_cast<std::size_t>(i)};
    else if ((i = indexAfter(p, "contacts")) >= 0) e = {Element::Kind::Contact, static_cast<std::size_t>(i)};
    else if ((i = indexAfter(p, "initial_velocities")) >= 0) e = {Element::Kind::InitialRate, static_cast<std::size_t>(i)};
    else continue;  // outputs, costs, analysis: no numbers of the model
    if (std::find(out.begin(), out.end(), e) == out.end()) out.push_back(e);
  }
  return out;
}

// the element's part of `moved` into `into`: the numbers (MechanismNumbers) or the resolved
// mechanism, whose lists have the same names
template <class Mechanismish>
void moveElement(const Element& e, const Mechanismish& moved, Mechanismish& into) {
  switch (e.kind) {
    case Element::Kind::Body: into.bodies[e.index] = moved.bodies[e.index]; break;
    case Element::Kind::Force: into.forces[e.index] = moved.forces[e.index]; break;
    case Element::Kind::Driver: into.drivers[e.index] = moved.drivers[e.index]; break;
    case Element::Kind::Contact: into.contacts[e.index] = moved.contacts[e.index]; break;
    case Element::Kind::InitialRate: into.initialRates[e.index] = moved.initialRates[e.index]; break;
    case Element::Kind::Gravity: into.gravity = moved.gravity; break;
  }
}

}  // namespace

MovedNumbers movedNumbers(const Study& st, Partials partials, double delta) {
  MovedNumbers out;
  const NumbersOn<double> nominal(st, {}, {});
  const auto uses = fieldsByParameter(*st.mechanism, st.table());
  for (std::size_t k : st.parameters) {
    const double value = st.table().values()[k];
    const double d = delta * std::max(1.0, std::abs(value));
    out.deltas.push_back(d);
    auto all = std::make_unique<NumbersOn<double>>(st, std::vector<std::size_t>{k}, std::vector<double>{value + d});
    std::vector<std::unique_ptr<NumbersOn<double>>> sets;
    if (partials == Partials::GlobalSemiAnalytical) {
      sets.push_back(std::move(all));
    } else {
      for (const auto& element : elementsOf(uses.at(st.table().names()[k]))) {
        MechanismNumbers<double> mixed = nominal.tree.mech;
        moveElement(element, all->tree.mech, mixed);
        sets.push_back(std::make_unique<NumbersOn<double>>(all->parameters, dyn::treeNumbers<double>(st.model.tree, std::move(mixed))));
      }
    }
    out.moved.push_back(std::move(sets));
  }
  return out;
}

std::vector<std::vector<std::shared_ptr<const ResolvedMechanism>>> movedMechanisms(const Study& st, Partials partials, double delta) {
  std::vector<std::vector<std::shared_ptr<const ResolvedMechanism>>> out;
  if (partials == Partials::AutomaticDifferentiation) return out;
  const auto uses = fieldsByParameter(*st.mechanism, st.table());
  for (std::size_t k : st.parameters) {
    const double value = st.table().values()[k];
    Mechanism moved = *st.mechanism;
    moved.parameters[k].value = Number(value + delta * std::max(1.0, std::abs(value)));
    Diagnostics d;
    auto all = resolve(moved, d);
    std::vector<std::shared_ptr<const ResolvedMechanism>> sets;
    if (!all) {  // the caller refuses the parameter: a δ that breaks the mechanism
      out.push_back({});
      continue;
    }
    if (partials == Partials::GlobalSemiAnalytical) {
      sets.push_back(std::make_shared<const ResolvedMechanism>(std::move(*all)));
    } else {
      for (const auto& element : elementsOf(uses.at(st.table().names()[k]))) {
        auto mixed = std::make_shared<ResolvedMechanism>(st.resolved);
        moveElement(element, *all, *mixed);
        sets.push_back(std::move(mixed));
      }
    }
    out.push_back(std::move(sets));
  }
  return out;
}

}  // namespace lw::sens::detail
