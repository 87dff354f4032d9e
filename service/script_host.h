// The headless host: drives a session from a script through the real
// pipeline and recorder (docs/RUN_SCRIPTS.md documents the format).
//
// A script is JSONL, one step of the conversation per line:
//   {"op":"prompt","text":"…"}                     a user prompt; starts a turn
//   {"op":"assistant","text":"…","toolCalls":[{"id","name","arguments"}]}
//                                                  one model step; its calls run
//   {"op":"inject","text":"…","plugin":"…"}        agent.inject: durable at once
//   {"op":"cancel","afterCalls":N} / {"afterMs":M}  cancel the next tool batch
//   {"op":"end","reason":"completed"}              end the open turn
// The whole script is parsed and checked before anything is recorded, so a
// malformed script leaves the database untouched.
#ifndef RETRACE_SERVICE_SCRIPT_HOST_H_
#define RETRACE_SERVICE_SCRIPT_HOST_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"
#include "engine/json/value.h"
#include "engine/runtime/asio.h"
#include "engine/runtime/session_recorder.h"
#include "engine/runtime/tool_runtime.h"

namespace retrace::service {

struct ScriptOp {
  enum class Kind { kPrompt, kAssistant, kInject, kCancel, kEnd };
  Kind kind = Kind::kPrompt;
  int64_t line = 0;
  json::Value message;                 // prompt / inject: the UserMessage (id filled at run time if absent)
  json::Value::Array content;          // assistant: content blocks
  std::vector<runtime::ModelToolCall> calls;    // assistant
  std::string provider = "script", model = "script";
  std::optional<json::Value> usage;
  std::optional<int64_t> after_calls;  // cancel
  std::optional<int64_t> after_ms;     // cancel
  std::string reason = "completed";    // end
};

// Parses and checks a whole script. Errors name "<name>:<line>".
Result<std::vector<ScriptOp>> ParseScript(std::string_view text, std::string_view name);

struct ScriptReport {
  int64_t turns = 0;
  int64_t tool_calls = 0;
  int64_t tool_errors = 0;
  int64_t first_seq = 0;
  int64_t next_seq = 0;
};

struct ScriptOptions {
  size_t max_parallel = 10;
  runtime::ScopePtr agent{};
};

// Runs `ops` against the recorder and runtime. A turn still open at the end
// is ended as completed.
runtime::asio::awaitable<Result<ScriptReport>> RunScript(const std::vector<ScriptOp>& ops, runtime::SessionRecorder& recorder,
                                                runtime::ToolRuntime& runtime, runtime::RecorderEnv env, ScriptOptions options = {});

}  // namespace retrace::service

#endif  // RETRACE_SERVICE_SCRIPT_HOST_H_
