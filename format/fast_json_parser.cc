#include "format/fast_json_parser.h"

#include <simdjson.h>

#include "engine/json/parser.h"
#include "format/line_source.h"

namespace retrace::format {
namespace {

using json::Value;

// Recursion is bounded by simdjson's maximum depth (1024). With `blank`,
// strings convert as "" (kinds and structure are kept, contents are not).
Value Convert(simdjson::dom::element el, bool blank = false) {
  switch (el.type()) {
    case simdjson::dom::element_type::OBJECT: {
      const simdjson::dom::object obj(el);
      Value::Object members;
      members.reserve(obj.size());
      for (auto field : obj) members.emplace_back(std::string(field.key), Convert(field.value, blank));
      return Value::MakeObject(std::move(members));
    }
    case simdjson::dom::element_type::ARRAY: {
      Value::Array a;
      const simdjson::dom::array arr(el);
      a.reserve(arr.size());
      for (simdjson::dom::element child : arr) a.push_back(Convert(child, blank));
      return Value(std::move(a));
    }
    case simdjson::dom::element_type::STRING:
      return blank ? Value(std::string()) : Value(std::string_view(el.get_string().value_unsafe()));
    case simdjson::dom::element_type::INT64: return Value(static_cast<double>(el.get_int64().value_unsafe()));
    case simdjson::dom::element_type::UINT64: return Value(static_cast<double>(el.get_uint64().value_unsafe()));
    case simdjson::dom::element_type::DOUBLE: return Value(el.get_double().value_unsafe());
    case simdjson::dom::element_type::BOOL: return Value(el.get_bool().value_unsafe());
    case simdjson::dom::element_type::NULL_VALUE: return Value();
  }
  return Value();
}

}  // namespace

struct FastJsonParser::Impl {
  simdjson::dom::parser parser;
};

FastJsonParser::FastJsonParser() : impl_(std::make_unique<Impl>()) {}
FastJsonParser::~FastJsonParser() = default;

static_assert(LineSource::kLinePadding >= simdjson::SIMDJSON_PADDING);

Result<Value> FastJsonParser::Parse(std::string_view text, bool padded) {
  simdjson::dom::element doc;
  // realloc_if_needed: unless padded, the text is copied into a padded buffer.
  if (impl_->parser.parse(text.data(), text.size(), !padded).get(doc) != simdjson::SUCCESS) return json::Parse(text);
  return Convert(doc);
}

Result<Value> FastJsonParser::ParseUnlessNeeded(std::string_view text, const std::function<bool(std::string_view)>& need,
                                                bool padded) {
  simdjson::dom::element doc;
  if (impl_->parser.parse(text.data(), text.size(), !padded).get(doc) != simdjson::SUCCESS) return json::Parse(text);
  std::string_view type;
  if (doc.type() != simdjson::dom::element_type::OBJECT || doc["type"].get(type) != simdjson::SUCCESS || need(type)) {
    return Convert(doc);
  }
  // A packed chunk row's data keeps its shape (the row checks read it); a
  // plain event's data is not looked at, so it is not converted at all.
  const bool packed = type.size() > 7 && type.substr(type.size() - 7) == "-chunks";
  const simdjson::dom::object envelope(doc);
  Value::Object members;
  members.reserve(envelope.size());
  for (auto field : envelope) {
    const bool data = field.key == "data";
    members.emplace_back(std::string(field.key), data && !packed ? Value() : Convert(field.value, data));
  }
  return Value::MakeObject(std::move(members));
}

}  // namespace retrace::format
