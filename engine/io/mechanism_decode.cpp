// JSON -> Mechanism: every field checked, with the item and the reason of each problem (and a
// "did you mean" for a misspelt key or name).
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <initializer_list>
#include <sstream>

#include "io/json_document.h"
#include "io/mechanism_codec.h"
#include "mechanism/schema.h"
#include "mechanism/resolved.h"

namespace lw::io {
namespace {

std::string at(const std::string& list, std::size_t i) {
  return list + "[" + std::to_string(i) + "]";
}
std::string dot(const std::string& path, const char* key) {
  return path.empty() ? key : path + "." + key;
}

const char* typeName(const Json& j) {
  switch (j.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::boolean: return "true/false";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float: return "a number";
    case Json::value_t::string: return "a string";
    case Json::value_t::array: return "an array";
    case Json::value_t::object: return "an object";
    default: return "something else";
  }
}

std::size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> d(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) d[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t prev = d[0];
    d[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cur = d[j];
      d[j] = std::min({d[j] + 1, d[j - 1] + 1, prev + (a[i - 1] == b[j - 1] ? 0 : 1)});
      prev = cur;
    }
  }
  return d[b.size()];
}

// JSON -> Mechanism, with the structural checks: types, required and unknown keys, enum values,
// expression syntax. Everything semantic is left to resolve().
class Decoder {
 public:
  explicit Decoder(Diagnostics& out) : out_(out) {}

  Mechanism decode(const Json& root) {
    Mechanism m;
    if (!root.is_object()) {
      error("", std::string("the file must contain a JSON object describing a mechanism, not ") +
                    typeName(root));
      return m;
    }
    if (!root.contains("format") && !root.contains("version") && !root.contains("bodies")) {
      error("", "this is not a Linkwright mechanism file (it has no \"format\", \"version\" or "
                "\"bodies\")");
      return m;
    }
    if (!keys(root, "", {"format", "version", "name", "description", "dimension", "gravity",
                         "parameters", "ground", "bodies", "joints", "drivers", "forces",
                         "contacts", "limits", "switches", "initial_velocities", "independent_coordinates", "outputs",
                         "costs", "analysis", "study"},
              {"format", "version", "name", "dimension", "bodies"}))
      return m;
    const std::string format = str(root["format"], "format");
    if (!format.empty() && format != kFormatName) {
      error("format", "this is not a Linkwright mechanism file: \"format\" is \"" + format +
                          "\", expected \"" + kFormatName + "\"");
      return m;
    }
    const Json& v = root["version"];
    // 1.0 is a whole number too (JSON does not tell them apart)
    const bool whole = v.is_number_integer() || v.is_number_unsigned() ||
                       (v.is_number_float() && std::abs(v.get<double>()) < 1e9 && v.get<double>() == std::floor(v.get<double>()));
    if (!whole) {
      error("version", std::string("the format version must be a whole number, found ") + (v.is_number() ? v.dump() : typeName(v)));
      return m;
    }
    const auto version = v.is_number_float() ? static_cast<long long>(v.get<double>()) : v.get<long long>();
    if (version > kFormatVersion) {
      error("version", "this file uses format version " + std::to_string(version) +
                           ", but this Linkwright reads version " + std::to_string(kFormatVersion) +
                           "; it was written by a newer Linkwright");
      return m;
    }
    if (version < 1) {
      error("version", "unknown format version " + std::to_string(version) +
                           " (versions start at 1)");
      return m;
    }
    m.name = str(root["name"], "name");
    if (root.contains("description")) m.description = str(root["description"], "description");
    const Json& d = root["dimension"];
    if (!d.is_number_integer() && !d.is_number_unsigned()) {
      error("dimension", std::string("the dimension must be 2 or 3, found ") + typeName(d));
    } else {
      m.dimension = static_cast<int>(std::clamp<long long>(d.get<long long>(), -1, 99));
      dimension_ = m.dimension;
      if (m.dimension != 2 && m.dimension != 3)
        error("dimension", "the dimension must be 2 (planar) or 3 (spatial), not " + d.dump());
    }
    if (root.contains("gravity")) m.gravity = vector(root["gravity"], "gravity");
    list(root, "parameters", [&](const Json& j, const std::string& p) {
      m.parameters.push_back(parameter(j, p));
    });
    if (root.contains("ground")) m.ground = ground(root["ground"], "ground");
    list(root, "bodies", [&](const Json& j, const std::string& p) { m.bodies.push_back(body(j, p)); });
    list(root, "joints", [&](const Json& j, const std::string& p) { m.joints.push_back(joint(j, p)); });
    list(root, "drivers", [&](const Json& j, const std::string& p) { m.drivers.push_back(driver(j, p)); });
    list(root, "forces", [&](const Json& j, const std::string& p) { m.forces.push_back(force(j, p)); });
    list(root, "contacts", [&](const Json& j, const std::string& p) { m.contacts.push_back(contact(j, p)); });
    list(root, "limits", [&](const Json& j, const std::string& p) { m.limits.push_back(limit(j, p)); });
    list(root, "switches", [&](const Json& j, const std::string& p) { m.switches.push_back(switchOf(j, p)); });
    list(root, "initial_velocities", [&](const Json& j, const std::string& p) {
      m.initialVelocities.push_back(initialVelocity(j, p));
    });
    list(root, "independent_coordinates", [&](const Json& j, const std::string& p) {
      m.independentCoordinates.push_back(independentCoordinate(j, p));
    });
    list(root, "outputs", [&](const Json& j, const std::string& p) { m.outputs.push_back(output(j, p)); });
    list(root, "costs", [&](const Json& j, const std::string& p) { m.costs.push_back(cost(j, p)); });
    if (root.contains("study")) m.study = study(root["study"], "study");
    if (root.contains("analysis")) {
      const Json& a = root["analysis"];
      if (keys(a, "analysis", {"t_end", "dt"}, {})) {
        // 0 means "not given" in AnalysisDefaults: a 0 written in the file is an error, not a 1 s run
        if (a.contains("t_end")) {
          m.analysis.tEnd = literal(a["t_end"], "analysis.t_end");
          if (m.analysis.tEnd == 0) error("analysis.t_end", "the end time must be positive");
        }
        if (a.contains("dt")) {
          m.analysis.dt = literal(a["dt"], "analysis.dt");
          if (m.analysis.dt == 0) error("analysis.dt", "the time step must be positive");
        }
      }
    }
    return m;
  }

 private:
  void error(std::string path, std::string msg) {
    out_.push_back({Diagnostic::Severity::Error, std::move(path), std::move(msg)});
  }

  // object with known keys; returns false (and reports) if `j` is not an object
  bool keys(const Json& j, const std::string& path, std::initializer_list<const char*> allowed,
            std::initializer_list<const char*> required) {
    return keys(j, path, std::vector<const char*>(allowed), std::vector<const char*>(required));
  }
  // the keys an item kind of the schema allows and requires (of a typed kind: those of `type`)
  bool keys(const Json& j, const std::string& path, const schema::Kind& kind, const std::string& type = "") {
    std::vector<const char*> allowed, required;
    for (const schema::Field& f : kind.fields) {
      if (!schema::Kind::applies(f, type) || f.implied) continue;
      allowed.push_back(f.key.c_str());
      if (f.required && (f.types.empty() || !type.empty())) required.push_back(f.key.c_str());
    }
    return keys(j, path, allowed, required);
  }
  bool keys(const Json& j, const std::string& path, const std::vector<const char*>& allowed,
            const std::vector<const char*>& required) {
    if (!j.is_object()) {
      error(path, std::string("expected an object, found ") + typeName(j));
      return false;
    }
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string& k = it.key();
      if (std::none_of(allowed.begin(), allowed.end(), [&](const char* a) { return k == a; })) {
        std::string hint;
        for (const char* a : allowed)
          if (editDistance(k, a) <= 2) hint = std::string("; did you mean \"") + a + "\"?";
        error(dot(path, k.c_str()), "unknown key \"" + k + "\"" + hint);
        out_.back().atKey = true;
      }
    }
    bool complete = true;
    for (const char* r : required)
      if (!j.contains(r)) {
        error(path, std::string("the required key \"") + r + "\" is missing");
        complete = false;
      }
    return complete;  // the caller reads required keys only when all are there
  }

  template <class F>
  void list(const Json& parent, const char* key, F&& each) {
    if (!parent.contains(key)) return;
    const Json& arr = parent[key];
    if (!arr.is_array()) {
      error(key, std::string("expected an array, found ") + typeName(arr));
      return;
    }
    for (std::size_t i = 0; i < arr.size(); ++i) each(arr[i], at(key, i));
  }

  std::string str(const Json& j, const std::string& path) {
    if (!j.is_string()) {
      error(path, std::string("expected a string, found ") + typeName(j));
      return {};
    }
    return j.get<std::string>();
  }

  double literal(const Json& j, const std::string& path) {
    if (!j.is_number()) {
      error(path, std::string("expected a number, found ") + typeName(j));
      return 0;
    }
    const double v = j.get<double>();
    if (!std::isfinite(v)) error(path, "the number is not finite");
    return v;
  }

  Number number(const Json& j, const std::string& path) {
    Number n;
    if (j.is_number()) {
      n.value = j.get<double>();
      if (!std::isfinite(n.value)) error(path, "the number is not finite (too large?)");
    } else if (j.is_string()) {
      const std::string text = j.get<std::string>();
      ExpressionError e;
      if (text.find_first_not_of(" \t") == std::string::npos)
        error(path, "the expression is empty");
      else if (!Expression::parse(text, n.expression, e))
        error(path, "cannot read the expression '" + text + "': " + e.message + " (at character " +
                        std::to_string(e.offset + 1) + ")");
    } else {
      error(path, std::string("expected a number or an expression string, found ") + typeName(j));
    }
    return n;
  }

  NumberVector vector(const Json& j, const std::string& path) {
    NumberVector v;
    if (!j.is_array()) {
      error(path, std::string("expected an array of numbers, found ") + typeName(j));
      return v;
    }
    for (std::size_t i = 0; i < j.size(); ++i) v.push_back(number(j[i], at(path, i)));
    return v;
  }

  Ref ref(const Json& j, const std::string& path, const char* what) {
    const std::string s = str(j, path);
    if (s.empty()) return {};
    const auto d = s.find('.');
    if (d == std::string::npos || d == 0 || d + 1 == s.size() || s.find('.', d + 1) != std::string::npos) {
      error(path, "'" + s + "' is not a " + what + " reference: write \"body." + what +
                      "\", e.g. \"crank.B\"");
      return {};
    }
    return {s.substr(0, d), s.substr(d + 1)};
  }

  void refPair(const Json& j, const std::string& path, const char* what, Ref out[2]) {
    if (!j.is_array() || j.size() != 2) {
      error(path, std::string("expected two ") + what + " references, e.g. [\"ground.A\", \"crank.A\"]");
      return;
    }
    for (std::size_t i = 0; i < 2; ++i) out[i] = ref(j[i], at(path, i), what);
  }

  template <class E>
  E choice(const Json& j, const std::string& path, std::initializer_list<std::pair<const char*, E>> table) {
    const std::string s = str(j, path);
    for (const auto& [name, e] : table)
      if (s == name) return e;
    if (!s.empty() || j.is_string()) {
      std::string options;
      for (const auto& [name, e] : table) options += std::string(options.empty() ? "" : ", ") + name;
      error(path, "unknown value \"" + s + "\"; expected one of: " + options);
    }
    return table.begin()->second;
  }

  Component component(const Json& j, const std::string& path) {
    return choice<Component>(j, path, {{"x", Component::X}, {"y", Component::Y}, {"z", Component::Z}});
  }

  std::vector<NamedVector> named(const Json& j, const std::string& path) {
    std::vector<NamedVector> items;
    if (!j.is_object()) {
      error(path, std::string("expected an object of named vectors, e.g. {\"A\": [0, 0]}, found ") +
                      typeName(j));
      return items;
    }
    for (const auto& [k, v] : j.items()) items.push_back({k, vector(v, dot(path, k.c_str()))});
    return items;
  }

  // an item of a kind the schema describes: each field read by its type (a problem reported at
  // its path), then the item made from the fields' texts (schema.h). A typed kind's type is read
  // first: it says which fields the item has.
  bool schemaTexts(const Json& j, const std::string& p, const schema::Kind& kind, schema::Texts& texts) {
    std::string type;
    const schema::Field* typeField = kind.typeField();
    if (typeField && typeField->implied && j.is_object()) {  // which key is there says the type
      std::vector<std::string> present;
      for (auto it = j.begin(); it != j.end(); ++it) present.push_back(it.key());
      type = schema::impliedType(kind, present);
      if (type.empty()) {
        std::string keys;  // the keys that say a type: "joint", "point" or "body"
        for (std::size_t k = 0; k < typeField->choices.size(); ++k)
          keys += std::string(k == 0 ? "" : k + 1 == typeField->choices.size() ? " or " : ", ") + "a \"" + typeField->choices[k] + "\"";
        error(p, "a" + std::string(kind.singular[0] == 'i' ? "n " : " ") + kind.singular + " names " + keys);
        return false;
      }
      texts["type"] = type;
    } else if (const schema::Field* t = typeField; t && j.is_object() && j.contains("type")) {
      const std::size_t before = out_.size();
      type = choiceText(j["type"], p + ".type", *t);
      if (out_.size() != before) return false;  // an unknown type: its fields are unknown too
    }
    if (!keys(j, p, kind, type)) return false;
    const std::size_t problems = out_.size();
    for (const schema::Field& f : kind.fields) {
      if (!j.contains(f.key) || !schema::Kind::applies(f, type) || f.implied) continue;
      const std::string at = p + "." + f.key;
      const Json& v = j[f.key];
      switch (f.type) {
        case schema::FieldType::Name:
        case schema::FieldType::Item:
        case schema::FieldType::Text: texts[f.key] = str(v, at); break;
        case schema::FieldType::Bound: texts[f.key] = schema::numberText(literal(v, at)); break;
        case schema::FieldType::Number: texts[f.key] = schema::numberText(number(v, at)); break;
        case schema::FieldType::Constant:
        case schema::FieldType::Choice: texts[f.key] = choiceText(v, at, f); break;
        case schema::FieldType::Point: texts[f.key] = ref(v, at, "point").str(); break;
        case schema::FieldType::Vector: texts[f.key] = ref(v, at, "vector").str(); break;
        case schema::FieldType::PointPair:
        case schema::FieldType::VectorPair: {
          Ref pair[2];
          refPair(v, at, f.type == schema::FieldType::PointPair ? "point" : "vector", pair);
          texts[f.key] = schema::joinList({pair[0].str(), pair[1].str()});
          break;
        }
        case schema::FieldType::Items: texts[f.key] = schema::joinList(names(v, at)); break;
        case schema::FieldType::Formula: texts[f.key] = schema::numberText(number(v, at)); break;
        case schema::FieldType::Targets: texts[f.key] = schema::targetsText(targets(v, at, texts["timing"] == "free")); break;
        case schema::FieldType::Numbers: {
          std::vector<std::string> parts;
          for (const Number& n : v.is_array() ? vector(v, at) : NumberVector{number(v, at)}) parts.push_back(schema::numberText(n));
          texts[f.key] = schema::joinList(parts);
          break;
        }
      }
    }
    return out_.size() == problems;
  }

  std::string choiceText(const Json& v, const std::string& at, const schema::Field& f) {
    const std::string s = str(v, at);
    if (std::find(f.choices.begin(), f.choices.end(), s) == f.choices.end() && (!s.empty() || v.is_string())) {
      std::string options;
      for (const auto& c : f.choices) options += (options.empty() ? "" : ", ") + c;
      error(at, "unknown value \"" + s + "\"; expected one of: " + options);
    }
    return s;
  }

  // an item of a schema kind: its texts read, then the item made from them
  template <class Item>
  Item schemaItem(const Json& j, const std::string& p, const schema::Kind& kind,
                  bool (*from)(const schema::Texts&, Item&, std::string&)) {
    Item x;
    schema::Texts texts;
    std::string why;
    if (schemaTexts(j, p, kind, texts) && !from(texts, x, why)) error(p, why);
    return x;
  }

  Parameter parameter(const Json& j, const std::string& p) { return schemaItem(j, p, schema::parameterKind(), &schema::parameterFrom); }

  Ground ground(const Json& j, const std::string& p) {
    Ground g;
    if (!keys(j, p, {"points", "vectors"}, {})) return g;
    if (j.contains("points")) g.points = named(j["points"], p + ".points");
    if (j.contains("vectors")) g.vectors = named(j["vectors"], p + ".vectors");
    return g;
  }

  Body body(const Json& j, const std::string& p) {
    Body b;
    if (!keys(j, p, {"name", "position", "angle", "rotation", "mass", "com", "inertia", "points",
                     "vectors", "shape", "color"},
              {"name", "mass", "com", "inertia", "points"}))
      return b;
    b.name = str(j["name"], p + ".name");
    if (j.contains("position")) b.position = vector(j["position"], p + ".position");
    if (j.contains("angle")) b.angle = number(j["angle"], p + ".angle");
    // each dimension's own way of turning a body (the other was silently ignored, and dropped by
    // `format`)
    if (dimension_ == 2 && j.contains("rotation"))
      error(p + ".rotation", "a planar body turns by \"angle\" (radians); \"rotation\" (an axis and an angle) is for spatial mechanisms");
    if (dimension_ == 3 && j.contains("angle"))
      error(p + ".angle", "a spatial body turns by \"rotation\": {\"axis\": [x, y, z], \"angle\": a}; \"angle\" alone is for planar mechanisms");
    if (j.contains("rotation")) {
      const Json& r = j["rotation"];
      if (keys(r, p + ".rotation", {"axis", "angle"}, {"axis", "angle"})) {
        b.rotationAxis = vector(r["axis"], p + ".rotation.axis");
        b.rotationAngle = number(r["angle"], p + ".rotation.angle");
      }
    }
    b.mass = number(j["mass"], p + ".mass");
    b.com = vector(j["com"], p + ".com");
    const Json& in = j["inertia"];
    const std::string ip = p + ".inertia";
    if (in.is_number() || in.is_string()) {
      b.inertia.form = Inertia::Form::Scalar;
      b.inertia.values = {number(in, ip)};
    } else if (in.is_array() && !in.empty() && in[0].is_array()) {
      b.inertia.form = Inertia::Form::Full;
      if (in.size() != 3) error(ip, "a full inertia matrix has 3 rows");
      for (std::size_t r = 0; r < in.size() && r < 3; ++r) {
        const NumberVector row = vector(in[r], at(ip, r));
        if (row.size() != 3) error(at(ip, r), "each row of the inertia matrix has 3 entries");
        for (std::size_t c = 0; c < 3; ++c) b.inertia.values.push_back(c < row.size() ? row[c] : Number());
      }
    } else if (in.is_array()) {
      b.inertia.form = Inertia::Form::Diagonal;
      b.inertia.values = vector(in, ip);
      if (b.inertia.values.size() != 3) error(ip, "expected [Ixx, Iyy, Izz] or a 3x3 array");
    } else {
      error(ip, std::string("expected a number (planar) or [Ixx, Iyy, Izz] / a 3x3 array (spatial), found ") +
                    typeName(in));
    }
    b.points = named(j["points"], p + ".points");
    if (j.contains("vectors")) b.vectors = named(j["vectors"], p + ".vectors");
    if (j.contains("shape")) {
      const Json& s = j["shape"];
      const std::string sp = p + ".shape";
      if (keys(s, sp, {"type", "width", "radius", "size"}, {"type"})) {
        b.shape.type = choice<Shape::Type>(s["type"], sp + ".type",
                                           {{"auto", Shape::Type::Auto}, {"sphere", Shape::Type::Sphere},
                                            {"box", Shape::Type::Box}, {"none", Shape::Type::None}});
        if (s.contains("width")) b.shape.width = number(s["width"], sp + ".width");
        if (s.contains("radius")) b.shape.radius = number(s["radius"], sp + ".radius");
        if (s.contains("size")) b.shape.size = vector(s["size"], sp + ".size");
        if (b.shape.type == Shape::Type::Sphere && !s.contains("radius"))
          error(sp, "a sphere needs a \"radius\"");
        if (b.shape.type == Shape::Type::Box && !s.contains("size")) error(sp, "a box needs a \"size\"");
        // each type's own size (another's was silently ignored, and dropped by `format`)
        const char* own = b.shape.type == Shape::Type::Sphere ? "radius" : b.shape.type == Shape::Type::Box ? "size"
                          : b.shape.type == Shape::Type::Auto ? "width" : "";
        for (const char* k : {"width", "radius", "size"})
          if (s.contains(k) && std::string(k) != own)
            error(sp + "." + k, std::string("a shape of type \"") +
                                    (b.shape.type == Shape::Type::Sphere ? "sphere" : b.shape.type == Shape::Type::Box ? "box"
                                     : b.shape.type == Shape::Type::Auto ? "auto" : "none") + "\" takes " +
                                    (*own ? "\"" + std::string(own) + "\"" : std::string("no size")) + ", not \"" + k + "\"");
      }
    }
    if (j.contains("color")) b.color = str(j["color"], p + ".color");
    return b;
  }

  Joint joint(const Json& j, const std::string& p) { return schemaItem(j, p, schema::jointKind(), &schema::jointFrom); }
  Driver driver(const Json& j, const std::string& p) { return schemaItem(j, p, schema::driverKind(), &schema::driverFrom); }
  Force force(const Json& j, const std::string& p) { return schemaItem(j, p, schema::forceKind(), &schema::forceFrom); }
  Contact contact(const Json& j, const std::string& p) { return schemaItem(j, p, schema::contactKind(), &schema::contactFrom); }
  JointLimit limit(const Json& j, const std::string& p) { return schemaItem(j, p, schema::limitKind(), &schema::limitFrom); }
  Switch switchOf(const Json& j, const std::string& p) { return schemaItem(j, p, schema::switchKind(), &schema::switchFrom); }

  InitialVelocity initialVelocity(const Json& j, const std::string& p) {
    return schemaItem(j, p, schema::initialVelocityKind(), &schema::initialVelocityFrom);
  }

  IndependentCoordinate independentCoordinate(const Json& j, const std::string& p) {
    IndependentCoordinate c;
    if (j.is_object() && j.contains("joint")) {
      c.type = IndependentCoordinate::Type::Joint;
      if (keys(j, p, {"joint"}, {"joint"})) c.joint = str(j["joint"], p + ".joint");
    } else if (j.is_object() && j.contains("point")) {
      c.type = IndependentCoordinate::Type::PointComponent;
      if (keys(j, p, {"point", "component"}, {"point", "component"})) {
        c.point = ref(j["point"], p + ".point", "point");
        c.component = component(j["component"], p + ".component");
      }
    } else {
      error(p, "an independent coordinate is {\"joint\": ...} or {\"point\": ..., \"component\": ...}");
    }
    return c;
  }

  Output output(const Json& j, const std::string& p) { return schemaItem(j, p, schema::outputKind(), &schema::outputFrom); }

  std::vector<std::string> names(const Json& j, const std::string& p) {
    std::vector<std::string> out;
    if (!j.is_array()) {
      error(p, std::string("expected an array of names, found ") + typeName(j));
      return out;
    }
    for (std::size_t i = 0; i < j.size(); ++i) out.push_back(str(j[i], p + "[" + std::to_string(i) + "]"));
    return out;
  }

  StudySettings study(const Json& j, const std::string& p) {
    StudySettings s;
    s.present = true;
    if (!keys(j, p, {"analysis", "formulation", "method", "costs", "parameters", "tuning"}, {})) return s;
    if (j.contains("analysis")) {
      s.analysis = str(j["analysis"], p + ".analysis");
      if (s.analysis != "dynamics" && s.analysis != "kinematics")
        error(p + ".analysis", "the analysis is dynamics or kinematics, not '" + s.analysis + "'");
    }
    if (j.contains("formulation")) {
      s.formulation = str(j["formulation"], p + ".formulation");
      if (s.formulation != "matrix-r" && s.formulation != "penalty" && s.formulation != "index3" && s.formulation != "index1" &&
          s.formulation != "penalty-global")
        error(p + ".formulation", "the dynamics' formulation is matrix-r, penalty, index3, index1 or penalty-global, not '" + s.formulation + "'");
    }
    if (j.contains("method")) {
      s.method = str(j["method"], p + ".method");
      if (s.method != "ddm" && s.method != "avm" && s.method != "cs" && s.method != "fd" && s.method != "compare")
        error(p + ".method", "the method is ddm, avm, cs, fd or compare, not '" + s.method + "'");
    }
    if (j.contains("costs")) s.costs = names(j["costs"], p + ".costs");
    if (j.contains("parameters")) s.parameters = names(j["parameters"], p + ".parameters");
    if (!j.contains("tuning")) return s;
    const Json& t = j["tuning"];
    const std::string tp = p + ".tuning";
    if (!keys(t, tp, {"cost", "target", "algorithm", "max_evaluations", "constraints"}, {})) return s;
    if (t.contains("cost")) s.tuneCost = str(t["cost"], tp + ".cost");
    if (t.contains("target")) {
      s.hasTarget = true;
      s.target = literal(t["target"], tp + ".target");
    }
    if (t.contains("algorithm")) s.algorithm = str(t["algorithm"], tp + ".algorithm");
    if (t.contains("max_evaluations")) {
      const double n = literal(t["max_evaluations"], tp + ".max_evaluations");
      if (n < 1 || n > 1e7 || n != std::floor(n)) error(tp + ".max_evaluations", "a whole number from 1 to 10^7");
      else s.maxEvaluations = static_cast<int>(n);
    }
    if (t.contains("constraints")) {
      const Json& all = t["constraints"];
      if (!all.is_array()) {
        error(tp + ".constraints", std::string("expected an array, found ") + typeName(all));
        return s;
      }
      for (std::size_t i = 0; i < all.size(); ++i) {
        const std::string cp = tp + ".constraints[" + std::to_string(i) + "]";
        const Json& c = all[i];
        if (!keys(c, cp, {"name", "expression", "min", "max"}, {"name", "expression"})) continue;
        TuningConstraint k;
        k.name = str(c["name"], cp + ".name");
        const Number n = number(c["expression"], cp + ".expression");
        k.expression = n.isLiteral() ? Expression::constant(n.value) : n.expression;
        if (c.contains("min")) k.hasMin = true, k.min = literal(c["min"], cp + ".min");
        if (c.contains("max")) k.hasMax = true, k.max = literal(c["max"], cp + ".max");
        if (!k.hasMin && !k.hasMax) error(cp, "a constraint needs a \"min\" or a \"max\" (or both)");
        else if (k.hasMin && k.hasMax && k.min > k.max) error(cp + ".max", "the max is below the min");
        s.constraints.push_back(std::move(k));
      }
    }
    return s;
  }

  // a targets cost's points, each mistake at its path (the time order, a time before the start)
  std::vector<Cost::Target> targets(const Json& all, const std::string& p, bool free) {
    std::vector<Cost::Target> out;
    if (!all.is_array()) {
      error(p, std::string("expected an array of {\"t\": time, \"at\": [x, y]}, found ") + typeName(all));
      return out;
    }
    for (std::size_t i = 0; i < all.size(); ++i) {
      const Json& t = all[i];
      const std::string tp = p + "[" + std::to_string(i) + "]";
      Cost::Target target;
      if (!(free ? keys(t, tp, {"t", "at"}, {"at"}) : keys(t, tp, {"t", "at"}, {"t", "at"}))) continue;
      if (t.contains("t")) target.t = literal(t["t"], tp + ".t");
      if (target.t < 0) error(tp + ".t", "a target's time must be at least 0 (the run starts at t = 0)");
      if (!t["at"].is_array()) {
        error(tp + ".at", std::string("expected the target point's coordinates [x, y] or [x, y, z], found ") + typeName(t["at"]));
        continue;
      }
      for (std::size_t k = 0; k < t["at"].size(); ++k) target.at.push_back(literal(t["at"][k], tp + ".at[" + std::to_string(k) + "]"));
      if (!free && !out.empty() && target.t < out.back().t)
        error(tp + ".t", "the targets must be in time order (this one is earlier than the one before)");
      out.push_back(std::move(target));
    }
    if (out.empty()) error(p, "a targets cost needs at least one target point");
    return out;
  }

  Cost cost(const Json& j, const std::string& p) { return schemaItem(j, p, schema::costKind(), &schema::costFrom); }

  Diagnostics& out_;
  int dimension_ = 0;  // the file's, once read (a body's way of turning depends on it)
};

}  // namespace

Mechanism decodeMechanism(const Json& root, std::vector<Diagnostic>& diagnostics) { return Decoder(diagnostics).decode(root); }

}  // namespace lw::io
