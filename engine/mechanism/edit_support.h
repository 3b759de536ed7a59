// What the edits share (internal to mechanism/): fresh names, adding and replacing a named item,
// dropping the outputs (and the costs on them) that lose their subject.
#pragma once

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "mechanism/edits.h"

namespace lw::edit::detail {

inline bool nameTaken(const Mechanism& m, const std::string& name) {
  for (const auto& b : m.bodies)
    if (b.name == name) return true;
  for (const auto& j : m.joints)
    if (j.name == name) return true;
  for (const auto& d : m.drivers)
    if (d.name == name) return true;
  for (const auto& p : m.ground.points)
    if (p.name == name) return true;
  return false;
}

// the first free name "prefix1", "prefix2", ...
inline std::string freshName(const Mechanism& m, const std::string& prefix) {
  for (int k = 1;; ++k) {
    const std::string n = prefix + std::to_string(k);
    if (!nameTaken(m, n)) return n;
  }
}

// removes the costs that read any of `outputs` (a column of one, or a targets cost on one)
inline void dropCostsReading(Mechanism& m, const std::set<std::string>& outputs) {
  std::erase_if(m.costs, [&](const Cost& c) {
    if (c.type == Cost::Type::Targets) return outputs.count(c.output) > 0;
    for (const auto& v : c.expression.variables()) {
      const auto dot = v.find('.');
      if (outputs.count(dot == std::string::npos ? v : v.substr(0, dot))) return true;
    }
    return false;
  });
}

// removes the outputs matching `drop`, and the costs that read them
template <class Pred>
void dropOutputs(Mechanism& m, Pred drop) {
  std::set<std::string> outputs;
  std::erase_if(m.outputs, [&](const Output& o) {
    const bool d = drop(o);
    if (d) outputs.insert(o.name);
    return d;
  });
  dropCostsReading(m, outputs);
}

template <class Item>
EditResult addNamed(std::vector<Item>& items, Item item, const std::string& name, const std::string& description) {
  EditResult r;
  item.name = name;
  r.item = name;
  r.description = description;
  items.push_back(std::move(item));
  r.ok = true;
  return r;
}

// replaces (or with `item` null deletes) the item called `name`; `kind` names it in messages
template <class Item>
EditResult replaceNamed(std::vector<Item>& items, const std::string& name, const Item* item, const std::string& kind) {
  EditResult r;
  const auto it = std::find_if(items.begin(), items.end(), [&](const Item& i) { return i.name == name; });
  if (it == items.end()) {
    r.error = "there is no " + kind + " '" + name + "'";
    return r;
  }
  if (item) {
    *it = *item;
    it->name = name;
  } else {
    items.erase(it);
  }
  r.ok = true;
  r.item = name;
  r.description = (item ? "Change " : "Delete ") + kind + " " + name;
  return r;
}

// the first "prefix1", "prefix2", ... that no item of `items` has (limits and switches have their
// own names, apart from the bodies' and joints')
template <class Item>
std::string freshNameAmong(const std::vector<Item>& items, const std::string& prefix) {
  for (int k = 1;; ++k) {
    const std::string n = prefix + std::to_string(k);
    if (std::none_of(items.begin(), items.end(), [&](const Item& x) { return x.name == n; })) return n;
  }
}

}  // namespace lw::edit::detail
