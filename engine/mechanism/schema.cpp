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

std::span<const Kind* const> kinds() {
  static const Kind* const all[] = {&parameterKind()};
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

}  // namespace lw::schema
