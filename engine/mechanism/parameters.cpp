#include "mechanism/parameters.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "mechanism/fields.h"

namespace lw {

int ParameterTable::find(std::string_view name) const {
  for (std::size_t i = 0; i < names_.size(); ++i)
    if (names_[i] == name) return static_cast<int>(i);
  return -1;
}

std::optional<ParameterTable> ParameterTable::build(const Mechanism& m, Diagnostics& out) {
  ParameterTable table;
  const std::size_t n = m.parameters.size();
  for (const auto& p : m.parameters) table.names_.push_back(p.name);
  table.slotNames_.push_back("t");
  table.slotNames_.insert(table.slotNames_.end(), table.names_.begin(), table.names_.end());
  const std::size_t errorsBefore = out.size();
  auto error = [&](std::size_t i, std::string msg) {
    out.push_back({Diagnostic::Severity::Error, "parameters[" + std::to_string(i) + "].value",
                   std::move(msg)});
  };

  // direct dependencies
  std::vector<std::vector<std::size_t>> deps(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (const auto& v : m.parameters[i].value.expression.variables()) {
      const int j = table.find(v);
      if (v == "t")
        error(i, "a parameter cannot depend on the time t");
      else if (j < 0)
        error(i, "unknown parameter '" + v + "' in the expression '" +
                     m.parameters[i].value.expression.text() + "'");
      else
        deps[i].push_back(static_cast<std::size_t>(j));
    }
  }
  if (out.size() != errorsBefore) return std::nullopt;

  // topological order; a cycle is reported with its members
  std::vector<int> state(n, 0);  // 0 new, 1 on stack, 2 done
  std::vector<std::size_t> order, stack;
  bool cycle = false;
  std::function<void(std::size_t)> visit = [&](std::size_t i) {
    if (cycle || state[i] == 2) return;
    if (state[i] == 1) {
      auto it = std::find(stack.begin(), stack.end(), i);
      std::string loop;
      for (; it != stack.end(); ++it) loop += table.names_[*it] + " -> ";
      error(i, "the parameters depend on each other in a cycle: " + loop + table.names_[i]);
      cycle = true;
      return;
    }
    state[i] = 1;
    stack.push_back(i);
    for (std::size_t j : deps[i]) visit(j);
    stack.pop_back();
    state[i] = 2;
    order.push_back(i);
  };
  for (std::size_t i = 0; i < n && !cycle; ++i) visit(i);
  if (cycle) return std::nullopt;

  // values in dependency order
  table.values_.assign(n, 0.0);
  for (std::size_t i : order) {
    const double v = table.evaluate(m.parameters[i].value);
    if (!std::isfinite(v)) {
      error(i, "the value of parameter '" + table.names_[i] + "' is not a finite number");
      return std::nullopt;
    }
    table.values_[i] = v;
  }

  // total derivatives dValue_[j][k], forward through the dependency order
  table.dValue_.assign(n, std::vector<double>(n, 0.0));
  table.reaches_.assign(n, std::vector<char>(n, 0));
  for (std::size_t k = 0; k < n; ++k) {
    for (std::size_t j : order) {
      if (j == k) {
        table.dValue_[j][k] = 1;
        table.reaches_[j][k] = 1;
        continue;
      }
      double d = 0;
      for (std::size_t i : deps[j]) {
        if (table.reaches_[i][k]) table.reaches_[j][k] = 1;
        if (table.dValue_[i][k] == 0) continue;
        const Expression partial = m.parameters[j].value.expression.derivative(table.names_[i]);
        std::vector<double> slots{0.0};
        slots.insert(slots.end(), table.values_.begin(), table.values_.end());
        d += partial.evaluate<double>(table.slotNames_, slots) * table.dValue_[i][k];
      }
      table.dValue_[j][k] = d;
    }
  }
  return table;
}

double ParameterTable::evaluate(const Number& n, double t) const {
  if (n.isLiteral()) return n.value;
  std::vector<double> slots{t};
  slots.insert(slots.end(), values_.begin(), values_.end());
  return n.expression.evaluate<double>(slotNames_, slots);
}

double ParameterTable::derivative(const Number& n, std::size_t k, double t) const {
  if (n.isLiteral()) return 0;
  std::vector<double> slots{t};
  slots.insert(slots.end(), values_.begin(), values_.end());
  double d = 0;
  for (const auto& v : n.expression.variables()) {
    const int j = find(v);
    if (j < 0 || dValue_[static_cast<std::size_t>(j)][k] == 0) continue;
    d += n.expression.derivative(v).evaluate<double>(slotNames_, slots) *
         dValue_[static_cast<std::size_t>(j)][k];
  }
  return d;
}

std::vector<std::size_t> ParameterTable::dependencies(const Number& n) const {
  std::vector<std::size_t> result;
  for (const auto& v : n.expression.variables()) {
    const int j = find(v);
    if (j < 0) continue;
    for (std::size_t k = 0; k < names_.size(); ++k)
      if (reaches_[static_cast<std::size_t>(j)][k]) result.push_back(k);
  }
  std::sort(result.begin(), result.end());
  result.erase(std::unique(result.begin(), result.end()), result.end());
  return result;
}

std::map<std::string, std::vector<std::string>> fieldsByParameter(const Mechanism& m,
                                                                 const ParameterTable& p) {
  std::map<std::string, std::vector<std::string>> result;
  for (const auto& name : p.names()) result[name];
  forEachNumber(m, [&](const FieldVisit& f) {
    for (std::size_t k : p.dependencies(f.number)) result[p.names()[k]].push_back(f.path);
  });
  return result;
}

}  // namespace lw
