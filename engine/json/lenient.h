// Lenient reads of logged JSON: a missing key, or a value of another kind,
// reads as absent or empty instead of failing, so that a damaged log still
// replays, indexes and renders what it can. Strict checks belong to the
// validators (engine/log/session_checker.h); these are for readers.
#ifndef RETRACE_ENGINE_JSON_LENIENT_H_
#define RETRACE_ENGINE_JSON_LENIENT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <retrace/engine/json/value.h>
#include <retrace/engine/json/writer.h>

namespace retrace::json {

// The member `key` of an object; nullptr for anything else.
inline const Value* Get(const Value* obj, std::string_view key) {
  return obj != nullptr && obj->is_object() ? obj->Find(key) : nullptr;
}
inline const Value* Get(const Value& obj, std::string_view key) { return Get(&obj, key); }
// The mutable form, for readers that move a member out of an event they own.
inline Value* Get(Value& obj, std::string_view key) { return obj.is_object() ? obj.Find(key) : nullptr; }

// The text of a string; "" for anything else.
inline std::string_view StrView(const Value* v) {
  return v != nullptr && v->is_string() ? std::string_view(v->as_string()) : std::string_view();
}
inline std::string Str(const Value* v) { return std::string(StrView(v)); }

// True only for the boolean true.
inline bool True(const Value* v) { return v != nullptr && v->is_bool() && v->as_bool(); }

// A number as JavaScript writes it; "" for anything else.
inline std::string Num(const Value* v) { return v != nullptr && v->is_number() ? FormatNumber(v->as_number()) : ""; }

// A safe integer (|x| <= 2^53-1); nullopt for anything else.
inline std::optional<int64_t> SafeInt(const Value* v) {
  if (v == nullptr || !v->is_safe_integer()) return std::nullopt;
  return static_cast<int64_t>(v->as_number());
}

}  // namespace retrace::json

#endif  // RETRACE_ENGINE_JSON_LENIENT_H_
