#include "engine/schema/schema_compiler.h"

#include <algorithm>
#include <array>
#include <string>
#include <string_view>

#include "engine/json/lenient.h"
#include "engine/schema/raw_schema_check.h"
#include "engine/schema/schema_error.h"

namespace retrace::schema {
namespace {

using json::Value;

constexpr std::array<std::string_view, 4> kAnnotations = {"description", "title", "default", "examples"};
constexpr std::array<std::string_view, 8> kTypes = {"string", "number", "integer", "boolean",
                                                    "null",   "array",  "object",  "json"};

// The keys a node of `kind` may carry besides annotations (and `required`
// on a property).
bool InVocabulary(std::string_view key, std::string_view kind) {
  if (std::find(kAnnotations.begin(), kAnnotations.end(), key) != kAnnotations.end()) return true;
  if (kind == "oneOf") return key == "oneOf";
  if (key == "type") return true;
  if (kind == "array") return key == "items";
  if (kind == "object") return key == "properties" || key == "additionalProperties";
  if (kind == "json") return false;
  return key == "enum" || key == "const";
}

// Thrown through the compile phase as a value: the first error wins.
class Compiler {
 public:
  Result<Value> Parameters(const Value& spec) {
    Value out = Value::MakeObject({{"type", "object"}});
    if (!PropertyMap(spec, "parameters", out)) return SchemaError({error_});
    return out;
  }

  Result<Value> Root(const Value& spec) {
    Value out;
    if (!Node(spec, "schema", /*is_property=*/false, out)) return SchemaError({error_});
    return out;
  }

 private:
  // Compiles a property map into out.properties / out.required.
  bool PropertyMap(const Value& map, const std::string& p, Value& out) {
    if (!map.is_object()) return Fail(p + " must be an object of value schemas");
    Value props = Value::MakeObject();
    Value::Array required;
    for (const auto& [name, spec] : map.as_object()) {
      Value child;
      if (!Node(spec, p + "." + name, /*is_property=*/true, child)) return false;
      props.as_object().emplace_back(name, std::move(child));
      const Value* req = spec.Find("required");
      if (req != nullptr) required.emplace_back(name);
    }
    out.Set("properties", std::move(props));
    if (!required.empty()) out.Set("required", Value(std::move(required)));
    return true;
  }

  bool Node(const Value& spec, const std::string& p, bool is_property, Value& out) {
    if (depth_ >= kMaxSchemaDepth) return Fail(p + " nests deeper than " + std::to_string(kMaxSchemaDepth) + " schema levels");
    ++depth_;
    const bool ok = NodeAtDepth(spec, p, is_property, out);
    --depth_;
    return ok;
  }

  bool NodeAtDepth(const Value& spec, const std::string& p, bool is_property, Value& out) {
    if (!spec.is_object()) return Fail(p + " must be a value schema object");
    if (const Value* req = spec.Find("required");
        is_property && req != nullptr && !json::True(req)) {
      return Fail(p + ".required must be true when present");
    }
    const Value* type = spec.Find("type");
    const Value* one_of = spec.Find("oneOf");
    if (type != nullptr && one_of != nullptr) return Fail(p + " cannot declare both type and oneOf");
    std::string kind = "oneOf";
    if (one_of == nullptr) {
      if (type == nullptr || !type->is_string() ||
          std::find(kTypes.begin(), kTypes.end(), type->as_string()) == kTypes.end()) {
        return Fail(p + ".type must be string/number/integer/boolean/null/array/object/json, or use oneOf");
      }
      kind = type->as_string();
    }
    for (const auto& [key, unused] : spec.as_object()) {
      if (!InVocabulary(key, kind) && !(is_property && key == "required")) {
        return Fail(p + "." + key + " is not supported by the value schema DSL");
      }
    }
    if (kind == "oneOf") return OneOf(spec, *one_of, p, out);
    if (kind == "json") {  // projects to an annotation-only node
      out = Value::MakeObject();
      Annotations(spec, out);
      return true;
    }
    out = Value::MakeObject({{"type", kind}});
    if (kind == "array") return Array(spec, p, out);
    if (kind == "object") return Object(spec, p, out);
    return Scalar(spec, p, out);
  }

  bool OneOf(const Value& spec, const Value& branches, const std::string& p, Value& out) {
    if (!branches.is_array()) return Fail(p + ".oneOf must be an array of at least two value schemas");
    Value::Array compiled;
    for (size_t i = 0; i < branches.as_array().size(); ++i) {
      Value b;
      if (!Node(branches.as_array()[i], p + ".oneOf[" + std::to_string(i) + "]", false, b)) return false;
      compiled.push_back(std::move(b));
    }
    out = Value::MakeObject({{"oneOf", Value(std::move(compiled))}});
    Annotations(spec, out);
    return true;
  }

  bool Array(const Value& spec, const std::string& p, Value& out) {
    Annotations(spec, out);
    if (const Value* items = spec.Find("items")) {
      Value compiled;
      if (!Node(*items, p + ".items", false, compiled)) return false;
      out.Set("items", std::move(compiled));
    }
    return true;
  }

  bool Object(const Value& spec, const std::string& p, Value& out) {
    const Value* ap = spec.Find("additionalProperties");
    if (ap == nullptr || !ap->is_bool()) return Fail(p + ".additionalProperties must be explicitly true or false");
    Annotations(spec, out);
    out.Set("additionalProperties", *ap);
    if (const Value* props = spec.Find("properties")) return PropertyMap(*props, p + ".properties", out);
    return true;
  }

  bool Scalar(const Value& spec, const std::string& p, Value& out) {
    Annotations(spec, out);
    if (const Value* e = spec.Find("enum")) {
      if (!e->is_array()) return Fail(p + ".enum must be a non-empty array of scalar values");
      out.Set("enum", *e);
    }
    if (const Value* c = spec.Find("const")) out.Set("const", *c);
    return true;
  }

  static void Annotations(const Value& spec, Value& out) {
    for (auto key : kAnnotations) {
      if (const Value* a = spec.Find(key)) out.Set(std::string(key), *a);
    }
  }

  bool Fail(std::string message) {
    error_ = std::move(message);
    return false;
  }

  std::string error_;
  int depth_ = 0;
};

Result<Value> Checked(Result<Value> compiled) {
  if (!compiled.ok()) return compiled;
  const std::vector<std::string> violations = CheckRawSchema(*compiled);
  if (!violations.empty()) return SchemaError(violations);
  return compiled;
}

}  // namespace

Result<Value> CompileParameters(const Value& spec) { return Checked(Compiler().Parameters(spec)); }
Result<Value> CompileValue(const Value& spec) { return Checked(Compiler().Root(spec)); }

}  // namespace retrace::schema
