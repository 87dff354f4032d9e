// Where two JSON values first differ, as a JSON Pointer-like path
// ("/display/result/lines/3/text"), comparing as serialization would: object
// keys in order, numbers by value, strings byte for byte.
#ifndef RETRACE_CHECK_JSON_DIFF_H_
#define RETRACE_CHECK_JSON_DIFF_H_

#include <optional>
#include <string>

#include <retrace/engine/json/value.h>

namespace retrace::check {

struct JsonDifference {
  std::string path;      // "" for the root
  std::string expected;  // the values there, serialized and cut to a readable length
  std::string actual;
};

std::optional<JsonDifference> FirstDifference(const json::Value& expected, const json::Value& actual);

}  // namespace retrace::check

#endif  // RETRACE_CHECK_JSON_DIFF_H_
