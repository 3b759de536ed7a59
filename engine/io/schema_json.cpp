#include "io/schema_json.h"

namespace lw::io {

Json jsonSchemaOfList(const schema::Kind& kind) {
  Json properties = Json::object(), required = Json::array();
  for (const auto& f : kind.fields) {
    switch (f.type) {
      case schema::FieldType::Name: properties[f.key] = {{"$ref", "#/definitions/name"}}; break;
      case schema::FieldType::Number: properties[f.key] = {{"$ref", "#/definitions/number"}}; break;
      case schema::FieldType::Bound: properties[f.key] = {{"type", "number"}}; break;
      case schema::FieldType::Text: properties[f.key] = {{"type", "string"}}; break;
      case schema::FieldType::Constant: properties[f.key] = {{"const", f.choices.front()}}; break;
      case schema::FieldType::Choice: properties[f.key] = {{"enum", f.choices}}; break;
      case schema::FieldType::Point:
      case schema::FieldType::Vector: properties[f.key] = {{"$ref", "#/definitions/ref"}}; break;
    }
    if (f.required) required.push_back(f.key);
  }
  Json item = {{"type", "object"}, {"properties", properties}, {"required", required}, {"additionalProperties", false}};
  return {{"type", "array"}, {"items", item}};
}

}  // namespace lw::io
