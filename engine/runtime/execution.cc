#include "engine/runtime/execution.h"

#include "engine/json/parser.h"

namespace retrace::runtime {

json::Value ParseModelArguments(std::string_view text) {
  if (text.empty()) return json::Value::MakeObject();
  // As JSON.parse: 1e400 is Infinity, which the pipeline then refuses as non-lossless.
  Result<json::Value> parsed = json::Parse(text, {.overflow_to_infinity = true});
  if (!parsed.ok()) return json::Value(text);
  return std::move(parsed).value();
}

}  // namespace retrace::runtime
