#include "mechanism/schema.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <tuple>

namespace lw::schema {
std::string numberText(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  // the shortest text that reads back the same
  for (int digits = 1; digits <= 17; ++digits) {
    char shorter[32];
    std::snprintf(shorter, sizeof shorter, "%.*g", digits, v);
    if (std::strtod(shorter, nullptr) == v) return shorter;
  }
  return buffer;
}

namespace {

bool readNumber(const std::string& text, double& out) {
  std::size_t b = text.find_first_not_of(" \t"), e = text.find_last_not_of(" \t");
  if (b == std::string::npos) return false;
  const char* first = text.data() + b;
  const char* last = text.data() + e + 1;
  const auto r = std::from_chars(first, last, out);
  return r.ec == std::errc() && r.ptr == last && std::isfinite(out);
}

std::string trimmed(const std::string& s) {
  const std::size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

}  // namespace

const Kind& parameterKind() {
  static const Kind kind{
      "parameters",
      "parameter",
      {
          {"name", FieldType::Name, true, "Name", "used in expressions of other fields: letters, digits and _", Quantity::None},
          {"value", FieldType::Number, true, "Value", "a number, or an expression of other parameters", Quantity::None},
          {"unit", FieldType::Text, false, "Unit", "as shown beside the value (m, kg, N/m, rad...)", Quantity::None},
          {"min", FieldType::Bound, false, "Minimum", "the least value a tuning, a study or an edit may give it (empty: none)", Quantity::None},
          {"max", FieldType::Bound, false, "Maximum", "the greatest value a tuning, a study or an edit may give it (empty: none)", Quantity::None},
          {"description", FieldType::Text, false, "Description", "what it is, for the Parameters panel and the file", Quantity::None},
      }};
  return kind;
}

const Kind& contactKind() {
  auto field = [](std::string key, FieldType type, bool required, std::string label, std::string help) {
    Field f;
    f.key = std::move(key), f.type = type, f.required = required, f.label = std::move(label), f.help = std::move(help);
    return f;
  };
  static const Kind kind = [&] {
    Kind k{"contacts", "contact", {}};
    k.fields.push_back(field("name", FieldType::Name, true, "Name", "names the contact in the impact log and the plots"));
    Field type = field("type", FieldType::Constant, true, "Type", "a point against a plane");
    type.choices = {"point_plane"};
    k.fields.push_back(type);
    Field point = field("point", FieldType::Point, true, "Point", "the centre of the ball or wheel that touches the plane");
    point.moving = true;
    k.fields.push_back(point);
    k.fields.push_back(field("plane_point", FieldType::Point, true, "Plane point", "a point of the plane (a line in a planar model)"));
    k.fields.push_back(field("plane_normal", FieldType::Vector, true, "Plane normal",
                             "a vector of the same body, pointing to the side where the point stays"));
    Field radius = field("radius", FieldType::Number, false, "Radius", "the contact happens when the point is this far from the plane");
    radius.quantity = Quantity::Length;
    radius.byDefault = "0";
    k.fields.push_back(radius);
    Field law = field("law", FieldType::Choice, false, "Impact law", "how the normal velocity changes at an impact");
    law.choices = {"newton", "kinematic"};
    law.labels = {"Newton: v⁺ = −e v⁻", "Kinematic (energetic) restitution"};
    law.byDefault = "newton";
    law.written = true;
    k.fields.push_back(law);
    Field restitution = field("restitution", FieldType::Number, false, "Restitution e", "0 (plastic) to 1 (elastic)");
    restitution.byDefault = "1";
    restitution.written = true;
    k.fields.push_back(restitution);
    return k;
  }();
  return kind;
}

std::span<const Kind* const> kinds() {
  static const Kind* const all[] = {&parameterKind(), &contactKind()};
  return all;
}

Texts textsOf(const Parameter& p) {
  return {{"name", p.name},
          {"value", p.value.isLiteral() ? numberText(p.value.value) : p.value.expression.text()},
          {"unit", p.unit},
          {"min", p.hasMin ? numberText(p.min) : ""},
          {"max", p.hasMax ? numberText(p.max) : ""},
          {"description", p.description}};
}

bool parameterFrom(const Texts& texts, Parameter& out, std::string& why) {
  auto text = [&](const std::string& key) {
    const auto it = texts.find(key);
    return it == texts.end() ? std::string() : trimmed(it->second);
  };
  Parameter p;
  p.name = text("name");
  if (p.name.empty()) {
    why = "Name: a parameter needs a name";
    return false;
  }
  const std::string value = text("value");
  double v = 0;
  if (value.empty()) {
    why = "Value: a parameter needs a value";
    return false;
  }
  if (readNumber(value, v)) {
    p.value = Number(v);
  } else {
    ExpressionError error;
    if (!Expression::parse(value, p.value.expression, error)) {
      why = "Value: " + error.message + " in '" + value + "'";
      return false;
    }
  }
  p.unit = text("unit");
  p.description = text("description");
  for (const auto& [key, label, has, bound] : {std::tuple{"min", "Minimum", &p.hasMin, &p.min}, std::tuple{"max", "Maximum", &p.hasMax, &p.max}}) {
    const std::string t = text(key);
    *has = !t.empty();
    if (*has && !readNumber(t, *bound)) {
      why = std::string(label) + ": '" + t + "' is not a number";
      return false;
    }
  }
  out = p;
  return true;
}

namespace {

std::string text(const Number& n) { return n.isLiteral() ? numberText(n.value) : n.expression.text(); }

// a Number field's text: a number or an expression; false with "the <label> '<text>' is not valid"
bool readField(const std::string& text, const std::string& label, Number& out, std::string& why) {
  double v = 0;
  if (readNumber(text, v)) {
    out = Number(v);
    return true;
  }
  ExpressionError error;
  Number n;
  if (!Expression::parse(text, n.expression, error)) {
    why = "the " + label + " '" + text + "' is not valid: " + error.message;
    return false;
  }
  out = n;
  return true;
}

bool readRef(const std::string& text, const std::string& label, Ref& out, std::string& why) {
  const auto d = text.find('.');
  if (d == std::string::npos || d == 0 || d + 1 == text.size()) {
    why = "the " + label + " '" + text + "' is not a reference: write body.item (ground.A, crank.B)";
    return false;
  }
  out = {text.substr(0, d), text.substr(d + 1)};
  return true;
}

}  // namespace

Texts textsOf(const Contact& c) {
  return {{"name", c.name},
          {"type", "point_plane"},
          {"point", c.point.str()},
          {"plane_point", c.planePoint.str()},
          {"plane_normal", c.planeNormal.str()},
          {"radius", text(c.radius)},
          {"law", toString(c.law)},
          {"restitution", text(c.restitution)}};
}

bool contactFrom(const Texts& texts, Contact& out, std::string& why) {
  auto get = [&](const std::string& key) {
    const auto it = texts.find(key);
    return it == texts.end() ? std::string() : trimmed(it->second);
  };
  Contact c;
  c.name = get("name");
  if (!readRef(get("point"), "point", c.point, why) || !readRef(get("plane_point"), "plane point", c.planePoint, why) ||
      !readRef(get("plane_normal"), "plane normal", c.planeNormal, why))
    return false;
  const std::string radius = get("radius"), restitution = get("restitution"), law = get("law");
  if (!radius.empty() && !readField(radius, "radius", c.radius, why)) return false;
  if (!restitution.empty() && !readField(restitution, "restitution", c.restitution, why)) return false;
  if (law == "kinematic") c.law = Contact::Law::Kinematic;
  else if (law.empty() || law == "newton") c.law = Contact::Law::Newton;
  else {
    why = "the impact law '" + law + "' is not one of: newton, kinematic";
    return false;
  }
  out = c;
  return true;
}

}  // namespace lw::schema
