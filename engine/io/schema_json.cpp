#include "io/schema_json.h"

#include <algorithm>

namespace lw::io {

namespace {

Json fieldSchema(const schema::Field& f) {
  const Json name = {{"$ref", "#/definitions/name"}}, number = {{"$ref", "#/definitions/number"}},
             vector = {{"$ref", "#/definitions/vector"}};
  switch (f.type) {
    case schema::FieldType::Name:
    case schema::FieldType::Item: return name;
    case schema::FieldType::Number: return number;
    case schema::FieldType::Bound: return {{"type", "number"}};
    case schema::FieldType::Text: return {{"type", "string"}};
    case schema::FieldType::Constant: return {{"const", f.choices.front()}};
    case schema::FieldType::Choice: return {{"enum", f.choices}};
    case schema::FieldType::Point:
    case schema::FieldType::Vector: return {{"$ref", "#/definitions/ref"}};
    case schema::FieldType::PointPair:
    case schema::FieldType::VectorPair: return {{"$ref", "#/definitions/pair"}};
    case schema::FieldType::Items: return {{"type", "array"}, {"items", name}};
    case schema::FieldType::Numbers: return f.single ? Json{{"oneOf", Json::array({number, vector})}} : vector;
    case schema::FieldType::Formula: return number;
    case schema::FieldType::Targets: {
      const Json numbers = {{"type", "array"}, {"items", {{"type", "number"}}}, {"minItems", 2}, {"maxItems", 3}};
      const Json time = {{"type", "number"}, {"minimum", 0}, {"description", "required with prescribed timing"}};
      const Json target = {{"type", "object"},
                           {"properties", {{"t", time}, {"at", numbers}}},
                           {"required", Json::array({"at"})},
                           {"additionalProperties", false}};
      return {{"type", "array"}, {"minItems", 1}, {"items", target}};
    }
  }
  return Json::object();
}

// the object of one item: its fields that belong to `type` ("" : an untyped kind's every field)
Json itemSchema(const schema::Kind& kind, const std::string& type) {
  Json properties = Json::object(), required = Json::array();
  for (const auto& f : kind.fields) {
    if (!schema::Kind::applies(f, type) || f.implied) continue;
    properties[f.key] = !type.empty() && f.key == "type" ? Json{{"const", type}} : fieldSchema(f);
    if (f.required) required.push_back(f.key);
  }
  return {{"type", "object"}, {"properties", properties}, {"required", required}, {"additionalProperties", false}};
}

}  // namespace

Json jsonSchemaOfList(const schema::Kind& kind) {
  const schema::Field* type = kind.typeField();
  if (!type) return {{"type", "array"}, {"items", itemSchema(kind, "")}};
  // one object per set of fields, its "type" the types that have them (a constant for one)
  std::vector<std::vector<std::string>> groups;
  auto keysOf = [&](const std::string& t) {
    std::vector<std::string> keys;
    for (const auto& f : kind.fields)
      if (schema::Kind::applies(f, t)) keys.push_back(f.key);
    return keys;
  };
  for (const std::string& t : type->choices) {
    auto same = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return keysOf(g.front()) == keysOf(t); });
    if (same == groups.end()) groups.push_back({t});
    else same->push_back(t);
  }
  if (groups.size() == 1) return {{"type", "array"}, {"items", itemSchema(kind, "")}};
  Json alternatives = Json::array();
  for (const auto& g : groups) {
    Json item = itemSchema(kind, g.front());
    if (!type->implied) item["properties"]["type"] = g.size() == 1 ? Json{{"const", g.front()}} : Json{{"enum", g}};
    alternatives.push_back(item);
  }
  return {{"type", "array"}, {"items", {{"oneOf", alternatives}}}};
}

}  // namespace lw::io
