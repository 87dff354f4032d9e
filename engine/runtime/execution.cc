#include "engine/runtime/execution.h"

#include "engine/json/parser.h"

namespace retrace::runtime {

ExecutionToken ExecutionToken::Mint() {
  static std::atomic<uint64_t> last{0};
  return ExecutionToken(last.fetch_add(1, std::memory_order_relaxed) + 1);
}

json::Value ParseModelArguments(std::string_view text) {
  if (text.empty()) return json::Value::MakeObject();
  // As JSON.parse: 1e400 is Infinity, which the pipeline then refuses as non-lossless.
  Result<json::Value> parsed = json::Parse(text, {.overflow_to_infinity = true});
  if (!parsed.ok()) return json::Value(text);
  return std::move(parsed).value();
}

}  // namespace retrace::runtime
