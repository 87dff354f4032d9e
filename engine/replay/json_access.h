// Lenient reads of logged JSON for replay: a missing key or a value of the
// wrong kind reads as absent or empty, so a damaged log renders what it can
// instead of failing.
#ifndef RETRACE_ENGINE_REPLAY_JSON_ACCESS_H_
#define RETRACE_ENGINE_REPLAY_JSON_ACCESS_H_

#include <string>
#include <string_view>

#include "engine/json/value.h"
#include "engine/json/writer.h"

namespace retrace::replay {

inline const json::Value* Get(const json::Value& obj, std::string_view key) {
  return obj.is_object() ? obj.Find(key) : nullptr;
}
inline json::Value* Get(json::Value& obj, std::string_view key) { return obj.is_object() ? obj.Find(key) : nullptr; }
inline std::string Str(const json::Value* v) { return v && v->is_string() ? v->as_string() : std::string(); }
inline std::string Num(const json::Value* v) {
  return v && v->is_number() ? json::FormatNumber(v->as_number()) : std::string();
}
inline bool True(const json::Value* v) { return v && v->is_bool() && v->as_bool(); }

}  // namespace retrace::replay

#endif  // RETRACE_ENGINE_REPLAY_JSON_ACCESS_H_
