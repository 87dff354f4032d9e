#include "engine/runtime/execution.h"

#include "engine/log/tool_arguments.h"

namespace retrace::runtime {

ExecutionToken ExecutionToken::Mint() {
  static std::atomic<uint64_t> last{0};
  return ExecutionToken(last.fetch_add(1, std::memory_order_relaxed) + 1);
}

json::Value ParseModelArguments(std::string_view text) {
  return log::ParseToolArguments(text, log::NumberOverflow::kInfinity);
}

}  // namespace retrace::runtime
