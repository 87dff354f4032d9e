#include "engine/schema/validator.h"

#include <algorithm>
#include <cmath>

#include "engine/json/lossless.h"
#include "engine/json/writer.h"

namespace retrace::schema {
namespace {

using json::Value;

class Validator {
 public:
  explicit Validator(std::vector<std::string>& out) : out_(out) {}

  void Node(const Value& s, const Value& v, const std::string& path) {
    if (const Value* branches = s.Find("oneOf")) return OneOf(*branches, v, path);
    const Value* type = s.Find("type");
    if (type == nullptr) {  // annotation-only: any lossless JSON
      if (!json::IsLossless(v)) Add(Quote(path) + " must be a lossless JSON value");
      return;
    }
    const std::string& t = type->as_string();
    if (t == "object") return Object(s, v, path);
    if (t == "array") return Array(s, v, path);
    if (!Scalar(t, v, path)) return;
    if (const Value* e = s.Find("enum"); e != nullptr && !Contains(*e, v)) {
      Add(Quote(path) + " must be one of " + json::Serialize(*e));
    }
    if (const Value* c = s.Find("const"); c != nullptr && !(*c == v)) Add(Quote(path) + " must be " + json::Serialize(*c));
  }

 private:
  void OneOf(const Value& branches, const Value& v, const std::string& path) {
    int matched = 0;
    for (const Value& b : branches.as_array()) {
      std::vector<std::string> scratch;  // branch diagnostics are discarded
      Validator(scratch).Node(b, v, path);
      matched += scratch.empty() ? 1 : 0;
    }
    if (matched != 1) Add(Quote(path) + " must match exactly one oneOf branch (matched " + std::to_string(matched) + ")");
  }

  void Object(const Value& s, const Value& v, const std::string& path) {
    if (!v.is_object()) return Add(Quote(path) + " must be an object");
    const size_t before = out_.size();
    const Value* props = s.Find("properties");
    if (const Value* req = s.Find("required")) {
      for (const Value& name : req->as_array()) {
        if (v.Find(name.as_string()) == nullptr) Add("missing required property \"" + Child(path, name.as_string()) + "\"");
      }
    }
    if (props != nullptr) {
      for (const auto& [name, child] : props->as_object()) {
        if (const Value* present = v.Find(name)) Node(child, *present, Child(path, name));
      }
    }
    if (const Value* ap = s.Find("additionalProperties"); ap != nullptr && !ap->as_bool()) {
      for (const auto& [key, unused] : v.as_object()) {
        if (props == nullptr || props->Find(key) == nullptr) {
          Add("\"" + Child(path, key) + "\" is not a declared property (additionalProperties: false)");
        }
      }
    }
    if (out_.size() == before && !json::IsLossless(v)) Add(Quote(path) + " must be a lossless JSON object");
  }

  void Array(const Value& s, const Value& v, const std::string& path) {
    if (!v.is_array()) return Add(Quote(path) + " must be an array");
    const size_t before = out_.size();
    if (const Value* items = s.Find("items")) {
      for (size_t i = 0; i < v.as_array().size(); ++i) Node(*items, v.as_array()[i], path + "[" + std::to_string(i) + "]");
    }
    if (out_.size() == before && !json::IsLossless(v)) Add(Quote(path) + " must be a dense lossless JSON array");
  }

  // The type check of a scalar node; false when it failed.
  bool Scalar(const std::string& t, const Value& v, const std::string& path) {
    if (t == "string" && !v.is_string()) return Add(Quote(path) + " must be a string"), false;
    if (t == "boolean" && !v.is_bool()) return Add(Quote(path) + " must be a boolean"), false;
    if (t == "null" && !v.is_null()) return Add(Quote(path) + " must be null"), false;
    if (t == "number") {
      if (!v.is_number()) return Add(Quote(path) + " must be a number"), false;
      if (!json::IsLosslessNumber(v.as_number())) return Add(Quote(path) + " must be a finite JSON number"), false;
    }
    if (t == "integer" &&
        (!v.is_number() || !json::IsLosslessNumber(v.as_number()) || std::trunc(v.as_number()) != v.as_number())) {
      return Add(Quote(path) + " must be an integer"), false;
    }
    return true;
  }

  static bool Contains(const Value& list, const Value& v) {
    return std::any_of(list.as_array().begin(), list.as_array().end(), [&](const Value& e) { return e == v; });
  }

  // Display paths: the root label (or "arguments" when empty), "a.b", "a[0]".
  static std::string Quote(const std::string& path) { return "\"" + (path.empty() ? std::string("arguments") : path) + "\""; }
  static std::string Child(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

  void Add(std::string v) { out_.push_back(std::move(v)); }
  std::vector<std::string>& out_;
};

}  // namespace

std::vector<std::string> Validate(const Value& schema, const Value& value, std::string_view root_label) {
  std::vector<std::string> out;
  Validator(out).Node(schema, value, std::string(root_label));
  return out;
}

}  // namespace retrace::schema
