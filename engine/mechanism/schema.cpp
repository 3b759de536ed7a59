#include "mechanism/schema.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <tuple>

#include "mechanism/schema_read.h"

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

namespace detail {

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

std::string get(const Texts& texts, const std::string& key) {
  const auto it = texts.find(key);
  return it == texts.end() ? std::string() : trimmed(it->second);
}

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
  if (d == std::string::npos || d == 0 || d + 1 == text.size() || text.find('.', d + 1) != std::string::npos) {
    why = "the " + label + " '" + text + "' is not a reference: write body.item (ground.A, crank.B)";
    return false;
  }
  out = {text.substr(0, d), text.substr(d + 1)};
  return true;
}

bool readPair(const std::string& text, const std::string& label, Ref out[2], std::string& why) {
  const std::vector<std::string> parts = splitList(text);
  if (parts.size() != 2) {
    why = "the " + label + " '" + text + "' are not two references: write body.item, body.item";
    return false;
  }
  return readRef(parts[0], label, out[0], why) && readRef(parts[1], label, out[1], why);
}

bool readNumbers(const std::string& text, const std::string& label, NumberVector& out, std::string& why) {
  out.clear();
  for (const std::string& part : splitList(text)) {
    Number n;
    if (!readField(part, label, n, why)) return false;
    out.push_back(n);
  }
  return true;
}

std::string numbersText(const NumberVector& v) {
  std::vector<std::string> parts;
  for (const Number& n : v) parts.push_back(numberText(n));
  return joinList(parts);
}

bool requiredPresent(const Kind& kind, const Texts& texts, const std::string& type, std::string& why) {
  // an empty name is a new item's: the edit gives it a fresh one (a file's is required by its keys)
  for (const Field& f : kind.fields)
    if (f.required && f.type != FieldType::Name && Kind::applies(f, type) && get(texts, f.key).empty()) {
      why = f.label + " is required";
      return false;
    }
  return true;
}

}  // namespace detail

using namespace detail;

std::string numberText(const Number& n) { return n.isLiteral() ? numberText(n.value) : n.expression.text(); }

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> parts;
  if (trimmed(text).empty()) return parts;
  int depth = 0;
  std::string part;
  for (char c : text) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(trimmed(part));
      part.clear();
    } else {
      part += c;
    }
  }
  parts.push_back(trimmed(part));
  return parts;
}

std::string joinList(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

const Field* Kind::typeField() const {
  for (const Field& f : fields)
    if (f.key == "type" && f.type == FieldType::Choice) return &f;
  return nullptr;
}

const Kind& parameterKind() {
  static const Kind kind{
      "parameters",
      "parameter",
      {F("name", FieldType::Name, "Name", "used in expressions of other fields: letters, digits and _").required(),
       F("value", FieldType::Number, "Value", "a number, or an expression of other parameters").required(),
       F("unit", FieldType::Text, "Unit", "as shown beside the value (m, kg, N/m, rad...)"),
       F("min", FieldType::Bound, "Minimum", "the least value a tuning, a study or an edit may give it (empty: none)"),
       F("max", FieldType::Bound, "Maximum", "the greatest value a tuning, a study or an edit may give it (empty: none)"),
       F("description", FieldType::Text, "Description", "what it is, for the Parameters panel and the file")}};
  return kind;
}

const Kind& contactKind() {
  static const Kind kind{
      "contacts",
      "contact",
      {F("name", FieldType::Name, "Name", "names the contact in the impact log and the plots").required(),
       F("type", FieldType::Constant, "Type", "a point against a plane").required().choices({"point_plane"}),
       F("point", FieldType::Point, "Point", "the centre of the ball or wheel that touches the plane").required().moving(),
       F("plane_point", FieldType::Point, "Plane point", "a point of the plane (a line in a planar model)").required(),
       F("plane_normal", FieldType::Vector, "Plane normal", "a vector of the same body, pointing to the side where the point stays")
           .required(),
       F("radius", FieldType::Number, "Radius", "the contact happens when the point is this far from the plane")
           .quantity(Quantity::Length)
           .byDefault("0"),
       F("law", FieldType::Choice, "Impact law", "how the normal velocity changes at an impact")
           .choices({"newton", "kinematic"}, {"Newton: v⁺ = −e v⁻", "Kinematic (energetic) restitution"})
           .byDefault("newton", true),
       F("restitution", FieldType::Number, "Restitution e", "0 (plastic) to 1 (elastic)").byDefault("1", true)}};
  return kind;
}

std::span<const Kind* const> kinds() {
  static const Kind* const all[] = {&parameterKind(), &jointKind(),  &driverKind(), &forceKind(),          &contactKind(),
                                    &limitKind(),     &switchKind(), &outputKind(), &initialVelocityKind(), &costKind()};
  return all;
}

Texts textsOf(const Parameter& p) {
  return {{"name", p.name},
          {"value", numberText(p.value)},
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


Texts textsOf(const Contact& c) {
  return {{"name", c.name},
          {"type", "point_plane"},
          {"point", c.point.str()},
          {"plane_point", c.planePoint.str()},
          {"plane_normal", c.planeNormal.str()},
          {"radius", numberText(c.radius)},
          {"law", toString(c.law)},
          {"restitution", numberText(c.restitution)}};
}

bool contactFrom(const Texts& texts, Contact& out, std::string& why) {
  Contact c;
  c.name = get(texts, "name");
  if (!readRef(get(texts, "point"), "point", c.point, why) || !readRef(get(texts, "plane_point"), "plane point", c.planePoint, why) ||
      !readRef(get(texts, "plane_normal"), "plane normal", c.planeNormal, why))
    return false;
  const std::string radius = get(texts, "radius"), restitution = get(texts, "restitution"), law = get(texts, "law");
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
