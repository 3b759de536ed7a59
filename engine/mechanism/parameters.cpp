#include "mechanism/parameters.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <unordered_map>

#include "core/status.h"
#include "mechanism/fields.h"
#include "numeric/dual.h"

namespace lw {

int ParameterTable::find(std::string_view name) const {
  const auto it = index_.find(std::string(name));
  return it == index_.end() ? -1 : static_cast<int>(it->second);
}

std::vector<double> ParameterTable::slotValues(const std::vector<std::string>& variables, double t) const {
  std::vector<double> v(variables.size());
  for (std::size_t i = 0; i < variables.size(); ++i) {
    if (variables[i] == "t") {
      v[i] = t;
      continue;
    }
    const int k = find(variables[i]);
    if (k < 0) throw std::invalid_argument("unknown parameter '" + variables[i] + "'");
    v[i] = values_[static_cast<std::size_t>(k)];
  }
  return v;
}

std::optional<ParameterTable> ParameterTable::build(const Mechanism& m, Diagnostics& out) {
  ParameterTable table;
  const std::size_t n = m.parameters.size();
  table.names_.reserve(n);
  table.index_.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    table.names_.push_back(m.parameters[i].name);
    table.index_.emplace(m.parameters[i].name, i);
  }
  const std::size_t errorsBefore = out.size();
  auto error = [&](std::size_t i, std::string msg) {
    out.push_back({Diagnostic::Severity::Error, "parameters[" + std::to_string(i) + "].value",
                   std::move(msg)});
  };

  // direct dependencies
  table.deps_.assign(n, {});
  std::vector<std::vector<std::string>> variables(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (m.parameters[i].value.isLiteral()) continue;
    variables[i] = m.parameters[i].value.expression.variables();
    for (const auto& v : variables[i]) {
      const int j = table.find(v);
      if (v == "t")
        error(i, "a parameter cannot depend on the time t");
      else if (j < 0)
        error(i, "unknown parameter '" + v + "' in the expression '" +
                     m.parameters[i].value.expression.text() + "'");
      else
        table.deps_[i].push_back(static_cast<std::size_t>(j));
    }
  }
  if (out.size() != errorsBefore) return std::nullopt;

  // topological order by an iterative depth-first search (a chain of 50 000 parameters written
  // in reverse overflowed the stack of a recursive one); a cycle is reported with its members
  std::vector<char> state(n, 0);  // 0 new, 1 on the path, 2 done
  std::vector<std::size_t> order;
  order.reserve(n);
  std::vector<std::pair<std::size_t, std::size_t>> path;  // (parameter, next dependency to visit)
  for (std::size_t root = 0; root < n; ++root) {
    if (state[root] != 0) continue;
    path.emplace_back(root, 0);
    state[root] = 1;
    while (!path.empty()) {
      auto& [i, next] = path.back();
      if (next < table.deps_[i].size()) {
        const std::size_t j = table.deps_[i][next++];
        if (state[j] == 2) continue;
        if (state[j] == 1) {
          std::string loop;
          auto it = std::find_if(path.begin(), path.end(), [&](const auto& e) { return e.first == j; });
          for (; it != path.end(); ++it) loop += table.names_[it->first] + " -> ";
          error(j, "the parameters depend on each other in a cycle: " + loop + table.names_[j]);
          return std::nullopt;
        }
        state[j] = 1;
        path.emplace_back(j, 0);
        continue;
      }
      state[i] = 2;
      order.push_back(i);
      path.pop_back();
    }
  }

  // values in dependency order, with the direct partial derivatives at them
  table.order_ = order;
  table.expressions_.resize(n);
  for (std::size_t i = 0; i < n; ++i) table.expressions_[i] = m.parameters[i].value.expression;
  table.values_.assign(n, 0.0);
  table.partials_.assign(n, {});
  for (std::size_t i : order) {
    const Number& v = m.parameters[i].value;
    const double x = table.evaluate(v);
    if (!std::isfinite(x)) {
      error(i, "the value of parameter '" + table.names_[i] + "' is not a finite number");
      return std::nullopt;
    }
    table.values_[i] = x;
    for (std::size_t j : table.deps_[i]) {
      const Expression partial = v.expression.derivative(table.names_[j]);
      const auto vars = partial.variables();
      table.partials_[i].push_back(partial.evaluate<double>(vars, table.slotValues(vars, 0.0)));
    }
  }
  return table;
}

double ParameterTable::evaluate(const Number& n, double t) const {
  if (n.isLiteral()) return n.value;
  const auto vars = n.expression.variables();
  return n.expression.evaluate<double>(vars, slotValues(vars, t));
}

// d value_j / d p_k = [j = k] + Σ_m ∂value_j/∂value_{deps_j[m]} · d value_{deps_j[m]} / d p_k,
// over j's cone of dependencies (an iterative post-order walk; each parameter once)
double ParameterTable::totalDerivative(std::size_t j, std::size_t k) const {
  if (j == k) return 1;
  if (deps_[j].empty()) return 0;
  std::unordered_map<std::size_t, double> done;
  std::vector<std::pair<std::size_t, std::size_t>> path{{j, 0}};
  while (!path.empty()) {
    auto& [i, next] = path.back();
    if (i == k || deps_[i].empty()) {
      done[i] = i == k ? 1.0 : 0.0;
      path.pop_back();
      continue;
    }
    if (next < deps_[i].size()) {
      const std::size_t d = deps_[i][next++];
      if (!done.count(d)) path.emplace_back(d, 0);
      continue;
    }
    double sum = 0;
    for (std::size_t m = 0; m < deps_[i].size(); ++m) sum += partials_[i][m] * done.at(deps_[i][m]);
    done[i] = sum;
    path.pop_back();
  }
  return done.at(j);
}

double ParameterTable::derivative(const Number& n, std::size_t k, double t) const {
  if (n.isLiteral()) return 0;
  double d = 0;
  for (const auto& v : n.expression.variables()) {
    const int j = find(v);
    if (j < 0) continue;
    const double dj = totalDerivative(static_cast<std::size_t>(j), k);
    if (dj == 0) continue;
    const Expression partial = n.expression.derivative(v);
    const auto vars = partial.variables();
    d += partial.evaluate<double>(vars, slotValues(vars, t)) * dj;
  }
  return d;
}

std::vector<std::size_t> ParameterTable::dependencies(const Number& n) const {
  std::vector<std::size_t> result, stack;
  if (n.isLiteral()) return result;
  for (const auto& v : n.expression.variables()) {
    const int j = find(v);
    if (j >= 0) stack.push_back(static_cast<std::size_t>(j));
  }
  std::unordered_map<std::size_t, char> mark;
  while (!stack.empty()) {
    const std::size_t i = stack.back();
    stack.pop_back();
    if (!mark.emplace(i, 1).second) continue;
    result.push_back(i);
    for (std::size_t d : deps_[i]) stack.push_back(d);
  }
  std::sort(result.begin(), result.end());
  return result;
}

template <class P>
std::vector<P> ParameterTable::valuesOn(std::span<const std::size_t> seeded, std::span<const P> seeds) const {
  std::vector<P> v(values_.size());
  std::vector<int> seedOf(values_.size(), -1);
  for (std::size_t i = 0; i < seeded.size(); ++i) seedOf[seeded[i]] = static_cast<int>(i);
  for (std::size_t i : order_) {
    P x = P(values_[i]);
    if (!expressions_[i].empty()) {
      const auto vars = expressions_[i].variables();
      std::vector<P> slots;
      slots.reserve(vars.size());
      for (const auto& name : vars) slots.push_back(v[static_cast<std::size_t>(find(name))]);
      x = expressions_[i].evaluate<P>(vars, slots);
    }
    // a seeded parameter moves by its own seed, beside what moves it through its expression (so a
    // parameter seeded together with one it depends on still carries that one's derivative)
    if (seedOf[i] >= 0) x = x + (seeds[static_cast<std::size_t>(seedOf[i])] - P(values_[i]));
    v[i] = x;
  }
  return v;
}

template <class P>
P ParameterTable::evaluateOn(const Number& n, std::span<const P> values, double t) const {
  if (n.isLiteral()) return P(n.value);
  const auto vars = n.expression.variables();
  std::vector<P> slots;
  slots.reserve(vars.size());
  for (const auto& name : vars) {
    if (name == "t") {
      slots.push_back(P(t));
      continue;
    }
    const int k = find(name);
    if (k < 0) throw std::invalid_argument("unknown parameter '" + name + "'");
    slots.push_back(values[static_cast<std::size_t>(k)]);
  }
  return n.expression.evaluate<P>(vars, slots);
}

#define LW_PARAMETERS_ON(P)                                                                                  \
  template std::vector<P> ParameterTable::valuesOn<P>(std::span<const std::size_t>, std::span<const P>) const; \
  template P ParameterTable::evaluateOn<P>(const Number&, std::span<const P>, double) const;
LW_PARAMETERS_ON(double)
LW_PARAMETERS_ON(std::complex<double>)
LW_PARAMETERS_ON(num::Dual8)
#undef LW_PARAMETERS_ON

std::string outsideRange(const Parameter& p, double value) {
  const bool below = p.hasMin && value < p.min, above = p.hasMax && value > p.max;
  if (!below && !above) return {};
  const std::string unit = p.unit.empty() ? "" : " " + p.unit;
  const std::string range = p.hasMin && p.hasMax ? "its range " + shortNumber(p.min) + " ... " + shortNumber(p.max) + unit
                            : p.hasMin           ? "its minimum " + shortNumber(p.min) + unit
                                                 : "its maximum " + shortNumber(p.max) + unit;
  return "parameter '" + p.name + "' = " + shortNumber(value) + unit + " is outside " + range;
}

std::map<std::string, std::vector<std::string>> fieldsByParameter(const Mechanism& m,
                                                                 const ParameterTable& p) {
  std::map<std::string, std::vector<std::string>> result;
  for (const auto& name : p.names()) result[name];
  forEachNumber(m, [&](const FieldVisit& f) {
    for (std::size_t k : p.dependencies(f.number)) result[p.names()[k]].push_back(f.path);
  });
  // a cost's expression may use parameters too (P.y + 2*w): its gradient is not zero
  for (std::size_t i = 0; i < m.costs.size(); ++i) {
    if (m.costs[i].expression.empty()) continue;
    Number n;
    n.expression = m.costs[i].expression;
    for (std::size_t k : p.dependencies(n)) result[p.names()[k]].push_back("costs[" + std::to_string(i) + "].expression");
  }
  return result;
}

}  // namespace lw
