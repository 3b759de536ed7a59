// Mechanism -> JSON in the canonical layout: defaults omitted, literals as numbers, expressions as
// their text.
#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "io/mechanism_codec.h"
#include "mechanism/schema.h"

namespace lw::io {
namespace {

Json num(const Number& n) {
  if (!n.isLiteral()) return n.expression.text();
  if (n.value == std::floor(n.value) && std::abs(n.value) < 1e15)
    return static_cast<long long>(n.value);
  return n.value;
}
bool isZero(const Number& n) { return n.isLiteral() && n.value == 0; }
bool allZero(const NumberVector& v) { return std::all_of(v.begin(), v.end(), isZero); }
Json vec(const NumberVector& v) {
  Json a = Json::array();
  for (const auto& x : v) a.push_back(num(x));
  return a;
}
Json named(const std::vector<NamedVector>& items) {
  Json o = Json::object();
  for (const auto& it : items) o[it.name] = vec(it.value);
  return o;
}
// an item of a kind the schema describes, from its fields' texts: in the schema's order, optional
// fields left out when empty or at their default (unless `written`), numbers as numbers
Json schemaItem(const schema::Kind& kind, const schema::Texts& texts) {
  auto numberJson = [](const std::string& text) {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    const bool number = !text.empty() && end == text.c_str() + text.size() && std::isfinite(v);
    return number ? num(Number(v)) : Json(text);
  };
  const schema::Field* typeField = kind.typeField();
  const auto typeText = typeField ? texts.find("type") : texts.end();
  const std::string type = typeText == texts.end() ? std::string() : typeText->second;
  Json o = Json::object();
  for (const schema::Field& f : kind.fields) {
    const auto it = texts.find(f.key);
    if (it == texts.end() || !schema::Kind::applies(f, type) || f.implied ||
        (!f.required && (it->second.empty() || (!f.written && it->second == f.byDefault))))
      continue;
    const std::string& text = it->second;
    switch (f.type) {
      case schema::FieldType::Name:
      case schema::FieldType::Item:
      case schema::FieldType::Text:
      case schema::FieldType::Choice:
      case schema::FieldType::Point:
      case schema::FieldType::Vector: o[f.key] = text; break;
      case schema::FieldType::Constant: o[f.key] = f.choices.front(); break;
      case schema::FieldType::Bound:
      case schema::FieldType::Number: o[f.key] = numberJson(text); break;
      case schema::FieldType::PointPair:
      case schema::FieldType::VectorPair:
      case schema::FieldType::Items: o[f.key] = schema::splitList(text); break;
      case schema::FieldType::Formula: o[f.key] = text; break;  // a cost's expression stays text
      case schema::FieldType::Targets: {
        std::vector<Cost::Target> targets;
        std::string why;
        schema::readTargets(text, targets, why);
        Json a = Json::array();
        for (const auto& t : targets) a.push_back(Json{{"t", t.t}, {"at", t.at}});
        o[f.key] = a;
        break;
      }
      case schema::FieldType::Numbers: {
        const std::vector<std::string> parts = schema::splitList(text);
        if (f.single && parts.size() == 1) {
          o[f.key] = numberJson(parts[0]);
        } else {
          Json a = Json::array();
          for (const std::string& part : parts) a.push_back(numberJson(part));
          o[f.key] = a;
        }
        break;
      }
    }
  }
  return o;
}
template <class Item>
Json schemaList(const schema::Kind& kind, const std::vector<Item>& items) {
  Json a = Json::array();
  for (const Item& x : items) a.push_back(schemaItem(kind, schema::textsOf(x)));
  return a;
}

Json encodeBody(const Mechanism& m, const Body& b) {
  Json o;
  o["name"] = b.name;
  if (!b.position.empty() && !allZero(b.position)) o["position"] = vec(b.position);
  if (m.dimension == 2 && !isZero(b.angle)) o["angle"] = num(b.angle);
  if (m.dimension == 3 && !b.rotationAxis.empty())
    o["rotation"] = Json{{"axis", vec(b.rotationAxis)}, {"angle", num(b.rotationAngle)}};
  o["mass"] = num(b.mass);
  o["com"] = vec(b.com);
  switch (b.inertia.form) {
    case Inertia::Form::Scalar:
      o["inertia"] = b.inertia.values.empty() ? Json(0) : num(b.inertia.values[0]);
      break;
    case Inertia::Form::Diagonal: o["inertia"] = vec(b.inertia.values); break;
    case Inertia::Form::Full: {
      Json rows = Json::array();
      for (std::size_t r = 0; r < 3; ++r)
        rows.push_back(vec(NumberVector(b.inertia.values.begin() + static_cast<long>(3 * r),
                                        b.inertia.values.begin() + static_cast<long>(3 * r + 3))));
      o["inertia"] = rows;
      break;
    }
  }
  o["points"] = named(b.points);
  if (!b.vectors.empty()) o["vectors"] = named(b.vectors);
  switch (b.shape.type) {
    case Shape::Type::Auto:
      if (!isZero(b.shape.width)) o["shape"] = Json{{"type", "auto"}, {"width", num(b.shape.width)}};
      break;
    case Shape::Type::Sphere: o["shape"] = Json{{"type", "sphere"}, {"radius", num(b.shape.radius)}}; break;
    case Shape::Type::Box: o["shape"] = Json{{"type", "box"}, {"size", vec(b.shape.size)}}; break;
    case Shape::Type::None: o["shape"] = Json{{"type", "none"}}; break;
  }
  if (!b.color.empty()) o["color"] = b.color;
  return o;
}

Json encodeJoint(const Joint& x) { return schemaItem(schema::jointKind(), schema::textsOf(x)); }

Json encode(const Mechanism& m) {
  Json j;
  j["format"] = kFormatName;
  j["version"] = kFormatVersion;
  j["name"] = m.name;
  if (!m.description.empty()) j["description"] = m.description;
  j["dimension"] = m.dimension;
  if (!m.gravity.empty()) j["gravity"] = vec(m.gravity);
  if (!m.parameters.empty()) j["parameters"] = schemaList(schema::parameterKind(), m.parameters);
  if (!m.ground.points.empty() || !m.ground.vectors.empty()) {
    Json& g = j["ground"] = Json::object();
    if (!m.ground.points.empty()) g["points"] = named(m.ground.points);
    if (!m.ground.vectors.empty()) g["vectors"] = named(m.ground.vectors);
  }
  // the bodies and joints (thousands in a generated grid) are written one at a time by
  // writeMechanism: here an empty array keeps their place in the key order
  j["bodies"] = Json::array();
  if (!m.joints.empty()) j["joints"] = Json::array();
  if (!m.drivers.empty()) j["drivers"] = schemaList(schema::driverKind(), m.drivers);
  if (!m.forces.empty()) j["forces"] = schemaList(schema::forceKind(), m.forces);
  if (!m.contacts.empty()) j["contacts"] = schemaList(schema::contactKind(), m.contacts);
  if (!m.limits.empty()) j["limits"] = schemaList(schema::limitKind(), m.limits);
  if (!m.switches.empty()) j["switches"] = schemaList(schema::switchKind(), m.switches);
  if (!m.initialVelocities.empty()) j["initial_velocities"] = schemaList(schema::initialVelocityKind(), m.initialVelocities);
  if (!m.independentCoordinates.empty()) {
    Json& a = j["independent_coordinates"] = Json::array();
    for (const auto& c : m.independentCoordinates) {
      if (c.type == IndependentCoordinate::Type::Joint) a.push_back(Json{{"joint", c.joint}});
      else a.push_back(Json{{"point", c.point.str()}, {"component", toString(c.component)}});
    }
  }
  if (!m.outputs.empty()) j["outputs"] = schemaList(schema::outputKind(), m.outputs);
  if (!m.costs.empty()) j["costs"] = schemaList(schema::costKind(), m.costs);
  if (m.study.present) {
    const StudySettings& st = m.study;
    Json& s = j["study"] = Json::object();
    s["analysis"] = st.analysis;
    if (st.formulation != "matrix-r") s["formulation"] = st.formulation;
    s["method"] = st.method;
    if (!st.costs.empty()) s["costs"] = st.costs;
    if (!st.parameters.empty()) s["parameters"] = st.parameters;
    Json t = Json::object();
    if (!st.tuneCost.empty()) t["cost"] = st.tuneCost;
    if (st.hasTarget) t["target"] = st.target;
    t["algorithm"] = st.algorithm;
    t["max_evaluations"] = st.maxEvaluations;
    if (!st.constraints.empty()) {
      Json& a = t["constraints"] = Json::array();
      for (const auto& c : st.constraints) {
        Json x{{"name", c.name}, {"expression", c.expression.text()}};
        if (c.hasMin) x["min"] = c.min;
        if (c.hasMax) x["max"] = c.max;
        a.push_back(x);
      }
    }
    s["tuning"] = t;
  }
  if (m.analysis.tEnd > 0 || m.analysis.dt > 0) {
    Json& a = j["analysis"] = Json::object();
    if (m.analysis.tEnd > 0) a["t_end"] = num(m.analysis.tEnd);
    if (m.analysis.dt > 0) a["dt"] = num(m.analysis.dt);
  }
  return j;
}

}  // namespace

bool writeMechanism(const Mechanism& m, const std::function<bool(std::string_view)>& sink) {
  const Json head = encode(m);  // the bodies' and joints' arrays empty: written here item by item
  std::string s = "{\n";
  std::size_t i = 0;
  for (auto it = head.begin(); it != head.end(); ++it, ++i) {
    const std::string key = Json(it.key()).dump() + ": ";
    s += "  " + key;
    const bool bodies = it.key() == "bodies", joints = it.key() == "joints";
    const std::size_t count = bodies ? m.bodies.size() : joints ? m.joints.size() : 0;
    if (count == 0) {
      formatJsonInto(*it, s, 2, 2 + key.size());
    } else {  // an array of objects: one per line block, as formatJson lays it out
      s += "[\n";
      for (std::size_t k = 0; k < count; ++k) {
        s += "    ";
        formatJsonInto(bodies ? encodeBody(m, m.bodies[k]) : encodeJoint(m.joints[k]), s, 4, 4);
        if (k + 1 < count) s += ',';
        s += '\n';
        if (s.size() >= (std::size_t{1} << 16)) {
          if (!sink(s)) return false;
          s.clear();
        }
      }
      s += "  ]";
    }
    if (i + 1 < head.size()) s += ',';
    s += '\n';
  }
  s += "}\n";
  return sink(s);
}

}  // namespace lw::io
