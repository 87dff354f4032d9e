#include "engine/log/tool_arguments.h"

#include "engine/json/parser.h"

namespace retrace::log {

json::Value ParseToolArguments(std::string_view text, NumberOverflow overflow) {
  if (text.empty()) return json::Value::MakeObject();
  Result<json::Value> parsed = json::Parse(text, {.overflow_to_infinity = overflow == NumberOverflow::kInfinity});
  return parsed.ok() ? std::move(parsed).value() : json::Value(text);
}

}  // namespace retrace::log
