// A C++ authoring API for the value schema DSL (dsh-tool-contract §2.1),
// about as short as dsh's TypeScript:
//
//   using namespace retrace::schema;
//   json::Value params = Parameters({
//       {"path", String().Description("Absolute path").Required()},
//       {"limit", Integer().Description("Max lines")},
//       {"mode", String().Enum({"fast", "full"})},
//       {"opts", Object(/*additional_properties=*/false, {{"x", Boolean().Required()}})},
//       {"u", OneOf({String(), Null()})},
//   });
//
// The builders produce the DSL as json::Value; CompileParameters/CompileValue
// (schema_compiler.h) still check it, e.g. that enum entries fit the type.
#ifndef RETRACE_ENGINE_SCHEMA_SCHEMA_SPEC_H_
#define RETRACE_ENGINE_SCHEMA_SCHEMA_SPEC_H_

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include <retrace/engine/json/value.h>

namespace retrace::schema {

class Spec {
 public:
  // Annotations and modifiers; each returns the modified spec.
  Spec Description(std::string text) const { return With("description", std::move(text)); }
  Spec Title(std::string text) const { return With("title", std::move(text)); }
  Spec Default(json::Value v) const { return With("default", std::move(v)); }
  Spec Examples(json::Value v) const { return With("examples", std::move(v)); }
  Spec Enum(json::Value::Array values) const { return With("enum", json::Value(std::move(values))); }
  Spec Const(json::Value v) const { return With("const", std::move(v)); }
  // Only meaningful on a property (Parameters, Object).
  Spec Required() const { return With("required", true); }

  const json::Value& dsl() const { return node_; }
  // A spec is its DSL value, so it can initialize a json::Value field directly.
  operator json::Value() const { return node_; }  // NOLINT: implicit by design

 private:
  friend Spec Typed(std::string type);
  friend Spec OneOf(std::initializer_list<Spec> branches);
  friend Spec Object(bool additional_properties, const std::vector<std::pair<std::string, Spec>>& properties);
  friend Spec Array(const Spec& items);
  explicit Spec(json::Value node) : node_(std::move(node)) {}
  Spec With(const std::string& key, json::Value v) const {
    Spec s = *this;
    s.node_.Set(key, std::move(v));
    return s;
  }
  json::Value node_;
};

using Properties = std::vector<std::pair<std::string, Spec>>;

Spec Typed(std::string type);
inline Spec String() { return Typed("string"); }
inline Spec Number() { return Typed("number"); }
inline Spec Integer() { return Typed("integer"); }
inline Spec Boolean() { return Typed("boolean"); }
inline Spec Null() { return Typed("null"); }
inline Spec Json() { return Typed("json"); }  // any lossless JSON
inline Spec Array() { return Typed("array"); }
Spec Array(const Spec& items);
// Explicit objects must say whether undeclared keys are allowed.
Spec Object(bool additional_properties, const Properties& properties = {});
// Exactly one branch must match; at least two branches.
Spec OneOf(std::initializer_list<Spec> branches);

// A ParameterSchemaSpec: the implicit open root object of tool parameters.
json::Value Parameters(const Properties& properties);

}  // namespace retrace::schema

#endif  // RETRACE_ENGINE_SCHEMA_SCHEMA_SPEC_H_
