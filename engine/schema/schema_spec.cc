#include "engine/schema/schema_spec.h"

namespace retrace::schema {

Spec Typed(std::string type) { return Spec(json::Value::MakeObject({{"type", std::move(type)}})); }

Spec Array(const Spec& items) { return Spec(json::Value::MakeObject({{"type", "array"}, {"items", items.dsl()}})); }

Spec Object(bool additional_properties, const Properties& properties) {
  json::Value node = json::Value::MakeObject({{"type", "object"}, {"additionalProperties", additional_properties}});
  if (!properties.empty()) node.Set("properties", Parameters(properties));
  return Spec(std::move(node));
}

Spec OneOf(std::initializer_list<Spec> branches) {
  json::Value::Array list;
  for (const Spec& b : branches) list.push_back(b.dsl());
  return Spec(json::Value::MakeObject({{"oneOf", json::Value(std::move(list))}}));
}

json::Value Parameters(const Properties& properties) {
  json::Value map = json::Value::MakeObject();
  for (const auto& [name, spec] : properties) map.Set(name, spec.dsl());
  return map;
}

}  // namespace retrace::schema
