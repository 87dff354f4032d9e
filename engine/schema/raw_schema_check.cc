#include "engine/schema/raw_schema_check.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>

#include "engine/json/lossless.h"

namespace retrace::schema {
namespace {

using json::Value;

constexpr std::array<std::string_view, 4> kAnnotations = {"description", "title", "default", "examples"};
constexpr std::array<std::string_view, 6> kConstraints = {"properties", "required", "additionalProperties",
                                                          "items",      "enum",     "const"};
constexpr std::array<std::string_view, 7> kTypes = {"object", "array", "string", "number", "integer", "boolean", "null"};

template <size_t N>
bool In(const std::array<std::string_view, N>& set, std::string_view s) {
  return std::find(set.begin(), set.end(), s) != set.end();
}

// Whether `v` is a value of scalar type `t`.
bool IsOfType(const Value& v, std::string_view t) {
  if (t == "string") return v.is_string();
  if (t == "boolean") return v.is_bool();
  if (t == "null") return v.is_null();
  if (!v.is_number() || !json::IsLosslessNumber(v.as_number())) return false;
  return t == "number" || std::trunc(v.as_number()) == v.as_number();
}

bool AllowedOn(std::string_view keyword, std::string_view type) {
  if (type == "object") return keyword == "properties" || keyword == "required" || keyword == "additionalProperties";
  if (type == "array") return keyword == "items";
  return keyword == "enum" || keyword == "const";
}

class Checker {
 public:
  std::vector<std::string> Run(const Value& root) {
    Node(root, "schema");
    return std::move(out_);
  }

 private:
  void Node(const Value& n, const std::string& p) {
    if (depth_ >= kMaxSchemaDepth) return Add(p + " nests deeper than " + std::to_string(kMaxSchemaDepth) + " schema levels");
    ++depth_;
    NodeAtDepth(n, p);
    --depth_;
  }

  void NodeAtDepth(const Value& n, const std::string& p) {
    if (!n.is_object()) return Add(p + " must be a schema object");
    Keywords(n, p);
    const Value* type = n.Find("type");
    const Value* one_of = n.Find("oneOf");
    if (type != nullptr && one_of != nullptr) return Add(p + " cannot declare both type and oneOf");
    if (type == nullptr && one_of == nullptr) {
      for (auto kw : kConstraints) {
        if (n.Find(kw) != nullptr) Add(p + "." + std::string(kw) + " requires type or oneOf");
      }
      return;
    }
    if (one_of != nullptr) return OneOf(n, *one_of, p);
    if (type->is_array()) return Add(p + ".type must be a single type string (type arrays are not supported)");
    if (!type->is_string() || !In(kTypes, type->as_string())) {
      return Add(p + ".type must be one of object/array/string/number/integer/boolean/null");
    }
    Typed(n, type->as_string(), p);
  }

  void Keywords(const Value& n, const std::string& p) {
    for (const auto& [key, v] : n.as_object()) {
      if (In(kAnnotations, key)) {
        if (!json::IsLossless(v)) Add(p + "." + key + " annotation must be lossless JSON data");
      } else if (key != "type" && key != "oneOf" && !In(kConstraints, key)) {
        Add(p + "." + key +
            " is not a supported keyword (subset: type/oneOf/properties/required/additionalProperties/items/enum/const + "
            "annotations)");
      }
    }
    if (const Value* d = n.Find("description"); d != nullptr && !d->is_string()) Add(p + ".description must be a string");
    if (const Value* t = n.Find("title"); t != nullptr && !t->is_string()) Add(p + ".title must be a string");
  }

  void OneOf(const Value& n, const Value& branches, const std::string& p) {
    if (!branches.is_array() || branches.as_array().size() < 2) {
      Add(p + ".oneOf must be an array of at least two schemas");
    } else {
      for (size_t i = 0; i < branches.as_array().size(); ++i) {
        Node(branches.as_array()[i], p + ".oneOf[" + std::to_string(i) + "]");
      }
    }
    for (auto kw : kConstraints) {
      if (n.Find(kw) != nullptr) Add(p + "." + std::string(kw) + " is not supported beside oneOf");
    }
  }

  void Typed(const Value& n, const std::string& t, const std::string& p) {
    for (auto kw : kConstraints) {
      if (n.Find(kw) != nullptr && !AllowedOn(kw, t)) {
        Add(p + "." + std::string(kw) + " is not supported on type \"" + t + "\"");
      }
    }
    if (t == "object") return Object(n, p);
    if (t == "array") {
      if (const Value* items = n.Find("items")) Node(*items, p + ".items");
      return;
    }
    Scalar(n, t, p);
  }

  void Object(const Value& n, const std::string& p) {
    const Value* props = n.Find("properties");
    if (props != nullptr) {
      if (!props->is_object()) {
        Add(p + ".properties must be an object of schemas");
      } else {
        for (const auto& [k, child] : props->as_object()) Node(child, p + ".properties." + k);
      }
    }
    if (const Value* req = n.Find("required")) {
      const bool strings = req->is_array() && std::all_of(req->as_array().begin(), req->as_array().end(),
                                                          [](const Value& v) { return v.is_string(); });
      if (!strings) {
        Add(p + ".required must be an array of strings");
      } else {
        for (const Value& name : req->as_array()) {
          if (props == nullptr || !props->is_object() || props->Find(name.as_string()) == nullptr) {
            Add(p + ".required names \"" + name.as_string() + "\" which is not in properties");
          }
        }
      }
    }
    if (const Value* ap = n.Find("additionalProperties"); ap != nullptr && !ap->is_bool()) {
      Add(p + ".additionalProperties must be a boolean");
    }
  }

  void Scalar(const Value& n, const std::string& t, const std::string& p) {
    const Value* e = n.Find("enum");
    const Value* c = n.Find("const");
    bool enum_ok = false, const_ok = false;
    if (e != nullptr) {
      enum_ok = e->is_array() && !e->as_array().empty() &&
                std::all_of(e->as_array().begin(), e->as_array().end(), [&](const Value& v) { return IsOfType(v, t); });
      if (!enum_ok) Add(p + ".enum must be a non-empty array of " + t + " values");
    }
    if (c != nullptr) {
      const_ok = IsOfType(*c, t);
      if (!const_ok) Add(p + ".const must be a " + t + " value");  // sic: dsh does not adjust the article
    }
    if (enum_ok && const_ok &&
        std::none_of(e->as_array().begin(), e->as_array().end(), [&](const Value& v) { return v == *c; })) {
      Add(p + ".const must be one of " + p + ".enum when both are declared");
    }
  }

  void Add(std::string v) { out_.push_back(std::move(v)); }
  std::vector<std::string> out_;
  int depth_ = 0;
};

}  // namespace

std::vector<std::string> CheckRawSchema(const Value& schema) { return Checker().Run(schema); }

}  // namespace retrace::schema
