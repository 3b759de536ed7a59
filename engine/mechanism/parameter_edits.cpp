#include "mechanism/parameter_edits.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

#include "mechanism/fields.h"
#include "mechanism/parameters.h"

namespace lw::edit {
namespace {

// every expression a parameter can be used in, with its path, writable
void forEachExpression(Mechanism& m, const std::function<void(const std::string&, Expression&)>& fn) {
  forEachNumber(m, [&](const FieldVisit& v) {
    if (!v.number.isLiteral()) fn(v.path, const_cast<Number&>(v.number).expression);  // m is not const here
  });
  for (std::size_t i = 0; i < m.parameters.size(); ++i)
    if (!m.parameters[i].value.isLiteral()) fn("parameters[" + std::to_string(i) + "].value", m.parameters[i].value.expression);
  for (std::size_t i = 0; i < m.costs.size(); ++i)
    if (!m.costs[i].expression.empty()) fn("costs[" + std::to_string(i) + "].expression", m.costs[i].expression);
  for (std::size_t i = 0; i < m.study.constraints.size(); ++i)
    if (!m.study.constraints[i].expression.empty())
      fn("study.tuning.constraints[" + std::to_string(i) + "].expression", m.study.constraints[i].expression);
}

bool uses(const Expression& e, const std::string& name) {
  const auto vars = e.variables();
  return std::find(vars.begin(), vars.end(), name) != vars.end();
}

Parameter* find(Mechanism& m, const std::string& name) {
  for (auto& p : m.parameters)
    if (p.name == name) return &p;
  return nullptr;
}

bool isFunctionName(const std::string& name) {
  for (const char* args : {"(1)", "(1,1)", "(1,1,1)"}) {
    Expression e;
    ExpressionError error;
    if (Expression::parse(name + args, e, error)) return true;
    if (error.message.find("unknown function") == std::string::npos) return true;
  }
  return false;
}

std::string shortNumber(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.12g", v);
  return buffer;
}

std::string freshParameterName(const Mechanism& m, const std::string& base) {
  auto taken = [&](const std::string& n) {
    return std::any_of(m.parameters.begin(), m.parameters.end(), [&](const Parameter& p) { return p.name == n; }) ||
           std::any_of(m.outputs.begin(), m.outputs.end(), [&](const Output& o) { return o.name == n; });
  };
  if (!base.empty() && !taken(base) && base != "t" && base != "pi" && isIdentifier(base) && !isFunctionName(base)) return base;
  const std::string stem = base.empty() ? "p" : base + "_";
  for (int k = 1;; ++k)
    if (!taken(stem + std::to_string(k))) return stem + std::to_string(k);
}

// a range end a user reads at a glance: two significant digits, rounded outwards
double roundOutwards(double x, bool up) {
  if (x == 0 || !std::isfinite(x)) return x;
  const double unit = std::pow(10.0, std::floor(std::log10(std::abs(x))) - 1);
  return (up ? std::ceil(x / unit - 1e-9) : std::floor(x / unit + 1e-9)) * unit;
}

void defaultRange(Parameter& p, double v) {
  p.hasMin = p.hasMax = true;
  p.min = v == 0 ? -1 : roundOutwards(v - std::abs(v) / 2, false);
  p.max = v == 0 ? 1 : roundOutwards(v + std::abs(v) / 2, true);
  // the scaled unit leaves digits like 1.5000000000000002: the number its short text reads as
  p.min = std::stod(shortNumber(p.min));
  p.max = std::stod(shortNumber(p.max));
}

// the expression `origin + slope·name` of one coordinate, as a user would write it
Number affine(double origin, double slope, const std::string& name) {
  const double eps = 1e-12;
  if (std::abs(slope) < eps) return Number(origin);
  std::string text = std::abs(slope - 1) < eps ? name
                     : std::abs(slope + 1) < eps ? "-" + name
                     : std::abs(slope - 0.5) < eps ? name + "/2"
                                                   : shortNumber(slope) + "*" + name;
  if (std::abs(origin) >= eps) text = shortNumber(origin) + " + " + text;
  return Number::expr(text);
}

}  // namespace

std::vector<std::string> parameterUses(const Mechanism& m, const std::string& name) {
  std::vector<std::string> out;
  forEachExpression(const_cast<Mechanism&>(m), [&](const std::string& path, Expression& e) {  // read only
    if (uses(e, name)) out.push_back(path);
  });
  if (std::find(m.study.parameters.begin(), m.study.parameters.end(), name) != m.study.parameters.end())
    out.push_back("study.parameters");
  return out;
}

std::string parameterProblem(const Mechanism& m, const Parameter& p, const std::string& except) {
  if (!isIdentifier(p.name))
    return "'" + p.name + "' is not a name: letters, digits and _, starting with a letter or _";
  if (p.name == "t" || p.name == "pi" || isFunctionName(p.name))
    return "'" + p.name + "' is reserved (time, pi or a function)";
  if (p.name != except) {
    for (const auto& q : m.parameters)
      if (q.name == p.name) return "there is a parameter '" + p.name + "' already";
    for (const auto& o : m.outputs)
      if (o.name == p.name) return "'" + p.name + "' is an output's name: costs could not tell them apart";
  }
  if (!std::isfinite(p.min) || !std::isfinite(p.max)) return "parameter '" + p.name + "': its range is not a number";
  if (p.hasMin && p.hasMax && !(p.min < p.max))
    return "parameter '" + p.name + "': its minimum " + shortNumber(p.min) + " is not below its maximum " + shortNumber(p.max);
  if (p.value.isLiteral()) {
    if (!std::isfinite(p.value.value)) return "parameter '" + p.name + "': its value is not a number";
    if (std::string why = outsideRange(p, p.value.value); !why.empty()) return why;
  } else if (uses(p.value.expression, p.name)) {
    return "parameter '" + p.name + "' would be defined by itself";
  }
  return {};
}

EditResult addParameter(Mechanism& m, Parameter p) {
  EditResult r;
  if (p.name.empty()) p.name = freshParameterName(m, "");
  if (r.error = parameterProblem(m, p); !r.error.empty()) return r;
  m.parameters.push_back(p);
  r.ok = true;
  r.item = p.name;
  r.description = "Add parameter " + p.name;
  return r;
}

EditResult changeParameter(Mechanism& m, std::string name, Parameter p) {
  EditResult r;
  Parameter* old = find(m, name);
  if (!old) {
    r.error = "there is no parameter '" + name + "'";
    return r;
  }
  if (r.error = parameterProblem(m, p, name); !r.error.empty()) return r;
  *old = p;
  if (p.name != name) {
    forEachExpression(m, [&](const std::string&, Expression& e) {
      if (uses(e, name)) e = e.renamed(name, p.name);
    });
    std::replace(m.study.parameters.begin(), m.study.parameters.end(), name, p.name);
  }
  r.ok = true;
  r.item = p.name;
  r.description = p.name != name ? "Rename parameter " + name + " to " + p.name : "Change parameter " + name;
  return r;
}

EditResult deleteParameter(Mechanism& m, std::string name, bool replaceUsesByValue) {
  EditResult r;
  const auto it = std::find_if(m.parameters.begin(), m.parameters.end(), [&](const Parameter& p) { return p.name == name; });
  if (it == m.parameters.end()) {
    r.error = "there is no parameter '" + name + "'";
    return r;
  }
  const auto used = parameterUses(m, name);
  if (!used.empty() && !replaceUsesByValue) {
    r.error = "parameter '" + name + "' is used by ";
    for (std::size_t i = 0; i < used.size() && i < 6; ++i) r.error += (i ? ", " : "") + used[i];
    if (used.size() > 6) r.error += " and " + std::to_string(used.size() - 6) + " more";
    return r;
  }
  double value = it->value.value;
  if (!it->value.isLiteral()) {
    Diagnostics d;
    const auto table = ParameterTable::build(m, d);
    if (!table) {
      r.error = "parameter '" + name + "' has no value to put in its place: the parameters do not evaluate";
      return r;
    }
    value = table->values()[static_cast<std::size_t>(table->find(name))];
  }
  const std::string names[] = {name};
  const double values[] = {value};
  forEachNumber(m, [&](const FieldVisit& v) {
    auto& n = const_cast<Number&>(v.number);  // m is not const here
    if (n.isLiteral() || !uses(n.expression, name)) return;
    Expression e = n.expression.substitute(names, values);
    if (e.isConstant()) n = Number(e.evaluate<double>({}, std::span<const double>{}));
    else n.expression = e;
  });
  m.parameters.erase(std::find_if(m.parameters.begin(), m.parameters.end(), [&](const Parameter& p) { return p.name == name; }));
  for (auto& p : m.parameters)
    if (!p.value.isLiteral() && uses(p.value.expression, name)) {
      Expression e = p.value.expression.substitute(names, values);
      p.value = e.isConstant() ? Number(e.evaluate<double>({}, std::span<const double>{})) : Number();
      if (!e.isConstant()) p.value.expression = e;
    }
  for (auto& c : m.costs)
    if (!c.expression.empty() && uses(c.expression, name)) c.expression = c.expression.substitute(names, values);
  for (auto& c : m.study.constraints)
    if (!c.expression.empty() && uses(c.expression, name)) c.expression = c.expression.substitute(names, values);
  std::erase(m.study.parameters, name);
  r.ok = true;
  r.item = name;
  r.description = "Delete parameter " + name;
  return r;
}

std::string parameterNameFor(const Mechanism& m, const std::string& path) {
  // "bodies[2].points.P2[0]" → "link2_P2_x": items by name, components by axis
  std::string out;
  std::size_t pos = 0;
  const char* axes[] = {"x", "y", "z"};
  auto named = [&](const std::string& list, std::size_t i) -> std::string {
    if (list == "bodies" && i < m.bodies.size()) return m.bodies[i].name;
    if (list == "joints" && i < m.joints.size()) return m.joints[i].name;
    if (list == "drivers" && i < m.drivers.size()) return m.drivers[i].name;
    if (list == "forces" && i < m.forces.size()) return m.forces[i].name;
    if (list == "contacts" && i < m.contacts.size()) return m.contacts[i].name;
    if (list == "limits" && i < m.limits.size()) return m.limits[i].name;
    if (list == "switches" && i < m.switches.size()) return m.switches[i].name;
    return list + std::to_string(i);
  };
  while (pos < path.size()) {
    std::size_t end = path.find_first_of(".[", pos);
    std::string word = path.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    pos = end == std::string::npos ? path.size() : end;
    std::string piece = word;
    if (pos < path.size() && path[pos] == '[') {
      const std::size_t close = path.find(']', pos);
      const auto i = static_cast<std::size_t>(std::stoul(path.substr(pos + 1, close - pos - 1)));
      piece = word.empty() ? (i < 3 ? axes[i] : std::to_string(i)) : (word == "inertia" ? word + std::to_string(i) : named(word, i));
      if (!word.empty() && word != "bodies" && word != "joints" && word != "drivers" && word != "forces" && word != "contacts" &&
          word != "limits" && word != "switches" && word != "inertia")
        piece = word + "_" + (i < 3 ? axes[i] : std::to_string(i));
      pos = close + 1;
    }
    if (pos < path.size() && path[pos] == '.') ++pos;
    if (piece == "points" || piece == "ground" || piece == "vectors" || piece == "function" || piece.empty()) continue;
    out += (out.empty() ? "" : "_") + piece;
  }
  std::string clean;
  for (char c : out) clean += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  if (clean.empty() || std::isdigit(static_cast<unsigned char>(clean[0]))) clean = "p_" + clean;
  return freshParameterName(m, clean);
}

EditResult makeDesignParameter(Mechanism& m, const std::string& path) {
  EditResult r;
  const Number* field = nullptr;
  Quantity quantity = Quantity::None;
  forEachNumber(m, [&](const FieldVisit& v) {
    if (!field && v.path == path) {
      field = &v.number;
      quantity = v.quantity;
    }
  });
  if (!field) {
    r.error = "there is no number at " + path;
    return r;
  }
  if (!field->isLiteral()) {
    r.error = path + " is an expression already (" + field->expression.text() + "): edit its parameters";
    return r;
  }
  Parameter p;
  p.name = parameterNameFor(m, path);
  p.value = Number(field->value);
  p.unit = siUnit(quantity);
  p.description = "made from " + path;
  defaultRange(p, field->value);
  if (r.error = parameterProblem(m, p); !r.error.empty()) return r;
  m.parameters.push_back(p);
  *numberAt(m, path) = Number::expr(p.name);
  r.ok = true;
  r.item = p.name;
  r.description = "Make " + path + " the parameter " + p.name;
  return r;
}

EditResult parameteriseLength(Mechanism& m, std::string body) {
  EditResult r;
  auto b = std::find_if(m.bodies.begin(), m.bodies.end(), [&](const Body& x) { return x.name == body; });
  if (b == m.bodies.end()) {
    r.error = "there is no link '" + body + "'";
    return r;
  }
  if (b->points.size() < 2) {
    r.error = "link '" + body + "' has fewer than two points: it has no length";
    return r;
  }
  const NumberVector& a = b->points[0].value;
  NumberVector& e = b->points[1].value;
  const auto literal = [](const NumberVector& v) {
    return std::all_of(v.begin(), v.end(), [](const Number& n) { return n.isLiteral(); });
  };
  if (!literal(a) || !literal(e) || a.size() != e.size()) {
    r.error = "link '" + body + "': its points " + b->points[0].name + " and " + b->points[1].name +
              " are expressions already; edit their parameters";
    return r;
  }
  double length = 0;
  for (std::size_t c = 0; c < a.size(); ++c) length += (e[c].value - a[c].value) * (e[c].value - a[c].value);
  length = std::sqrt(length);
  if (length < 1e-9) {
    r.error = "link '" + body + "': its points " + b->points[0].name + " and " + b->points[1].name + " coincide";
    return r;
  }
  Parameter p;
  p.name = freshParameterName(m, body + "_length");
  p.value = Number(length);
  p.unit = "m";
  p.description = "length of " + body + " (" + b->points[0].name + " to " + b->points[1].name + ")";
  defaultRange(p, length);
  const NumberVector end = e;
  const bool comMidway = literal(b->com) && b->com.size() == a.size() && [&] {
    for (std::size_t c = 0; c < a.size(); ++c)
      if (std::abs(b->com[c].value - (a[c].value + end[c].value) / 2) > 1e-9 * length) return false;
    return true;
  }();
  for (std::size_t c = 0; c < a.size(); ++c) {
    const double u = (end[c].value - a[c].value) / length;
    e[c] = affine(a[c].value, u, p.name);
    if (comMidway) b->com[c] = affine(a[c].value, u / 2, p.name);
  }
  // other points of the body on the moved end (a pin placed there) move with it
  for (std::size_t k = 2; k < b->points.size(); ++k) {
    NumberVector& q = b->points[k].value;
    if (!literal(q) || q.size() != end.size()) continue;
    bool same = true;
    for (std::size_t c = 0; c < q.size(); ++c) same = same && std::abs(q[c].value - end[c].value) < 1e-9 * length;
    if (same) q = e;
  }
  m.parameters.push_back(p);
  r.ok = true;
  r.item = p.name;
  r.description = "Parameterise the length of " + body;
  return r;
}

EditResult parameteriseGroundDistance(Mechanism& m, std::string from, std::string to) {
  EditResult r;
  auto find = [&](const std::string& name) {
    return std::find_if(m.ground.points.begin(), m.ground.points.end(), [&](const NamedVector& p) { return p.name == name; });
  };
  const auto a = find(from), e = find(to);
  if (a == m.ground.points.end() || e == m.ground.points.end()) {
    r.error = "there is no ground point '" + (a == m.ground.points.end() ? from : to) + "'";
    return r;
  }
  if (a == e) {
    r.error = "ground point '" + from + "' has no distance to itself";
    return r;
  }
  const auto literal = [](const NumberVector& v) { return std::all_of(v.begin(), v.end(), [](const Number& n) { return n.isLiteral(); }); };
  if (!literal(a->value) || !literal(e->value) || a->value.size() != e->value.size()) {
    r.error = "ground points '" + from + "' and '" + to + "': one of them is an expression already; edit its parameters";
    return r;
  }
  double length = 0;
  for (std::size_t c = 0; c < a->value.size(); ++c) length += std::pow(e->value[c].value - a->value[c].value, 2);
  length = std::sqrt(length);
  if (length < 1e-9) {
    r.error = "ground points '" + from + "' and '" + to + "' coincide";
    return r;
  }
  Parameter p;
  p.name = freshParameterName(m, "ground_" + from + "_" + to);
  p.value = Number(length);
  p.unit = "m";
  p.description = "distance between the ground pivots " + from + " and " + to;
  defaultRange(p, length);
  const NumberVector start = a->value, end = e->value;
  for (std::size_t c = 0; c < start.size(); ++c) e->value[c] = affine(start[c].value, (end[c].value - start[c].value) / length, p.name);
  m.parameters.push_back(p);
  r.ok = true;
  r.item = p.name;
  r.description = "Parameterise the distance from ground." + from + " to ground." + to;
  return r;
}

}  // namespace lw::edit
