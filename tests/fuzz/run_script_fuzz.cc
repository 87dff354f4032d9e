// `retrace run` script parsing (service/script_host.h) on any text: the ops, or a
// refusal naming the script and line, and never a crash. Accepted ops carry
// the line they came from and calls with unique, non-empty ids.
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include "service/script_host.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto ops = retrace::service::ParseScript(text, "fuzz.jsonl");
  if (!ops.ok()) {
    if (ops.status().message().rfind("fuzz.jsonl:", 0) != 0) std::abort();  // the error names where
    return 0;
  }
  int64_t last_line = 0;
  for (const retrace::service::ScriptOp& op : *ops) {
    if (op.line <= last_line) std::abort();  // one op per line, in order
    last_line = op.line;
    std::set<std::string> ids;
    for (const auto& call : op.calls) {
      if (call.id.empty() || !ids.insert(call.id).second) std::abort();
    }
  }
  return 0;
}
