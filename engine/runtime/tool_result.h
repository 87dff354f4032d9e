// ToolResult: the outcome of one tool execution (dsh-tool-contract §5.1).
//
//   success: {isError:false, content, meta?, additionalContexts?, concludesTurn?, value}
//   failure: {isError:true, error:{message, info?}, content, meta?, additionalContexts?}
//
// A failure never carries a value. The pipeline publishes every result
// frozen, as a ToolResultPtr (shared_ptr<const>); the object the caller gets
// back is the one the tools/result observers saw.
#ifndef RETRACE_ENGINE_RUNTIME_TOOL_RESULT_H_
#define RETRACE_ENGINE_RUNTIME_TOOL_RESULT_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <retrace/engine/json/value.h>
#include <retrace/engine/runtime/tool_error.h>

namespace retrace::runtime {

// ContentBlock[] (session-log §3.2): model-facing content.
using Content = json::Value::Array;

// [{type:"text", text}] — the common single-block content.
Content TextContent(std::string text);

struct ToolResult {
  bool is_error = false;
  std::optional<ErrorDetail> error;  // failures only
  Content content;
  std::optional<json::Value> meta;
  std::vector<json::Value> additional_contexts;  // UserMessage values, in FIFO order
  bool concludes_turn = false;                    // successes only
  std::optional<json::Value> value;               // successes only: the canonical value

  // A failure with content "Error: <message>".
  static ToolResult Failure(ErrorDetail detail);
  static ToolResult Failure(const ToolError& e) { return Failure(ErrorDetail{e.message(), e.info()}); }

  // dsh's key order (§5.1), for tests, debugging and golden comparisons.
  json::Value ToJson() const;

 private:
  friend class ToolRuntime;
  // The serial of the execution whose output contract validated this result
  // (§5.2 step 10; 0: none). Wrappers cannot forge it, so their results are
  // re-normalized; a serial is never reused, so a result kept from an earlier
  // call (a cache) is re-normalized too.
  uint64_t canonical_for_ = 0;
};

using ToolResultPtr = std::shared_ptr<const ToolResult>;

}  // namespace retrace::runtime

#endif  // RETRACE_ENGINE_RUNTIME_TOOL_RESULT_H_
