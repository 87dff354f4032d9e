// Record, the use case: a live session driven through the tool runtime with
// the built-in tools, every call, result, card snapshot and injected notice
// recorded into the catalog's database (`retrace run`, `retrace demo`; the
// MCP front door next). What only a front end may read — the clock, fresh
// ids, the process environment, paths from its flags — comes in the options.
#ifndef RETRACE_SERVICE_RECORD_H_
#define RETRACE_SERVICE_RECORD_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "engine/runtime/registration.h"
#include "engine/runtime/tool_runtime.h"
#include "host/script_host.h"
#include "service/catalog.h"

namespace retrace::service {

struct RecordOptions {
  std::string session_id;        // created, or continued when it exists
  std::string workspace = ".";   // the tools' confinement, and the session's cwd
  size_t max_parallel = 10;
  // Extra policy (guards, listeners) to install on the runtime for the run.
  std::function<std::vector<runtime::Registration>(runtime::ToolRuntime&)> policies{};
  std::string spill_dir{};                 // over-cap output ("": none)
  std::vector<std::string> environment{};  // what children of the tools inherit, NAME=value
  std::string ca_file{};                   // extra CA certificates web_fetch trusts
  std::function<int64_t()> now_ms{};       // event times
  std::function<std::string()> new_id{};   // message ids
  // Said to the user, not recorded: a turn a crash left open and was closed,
  // a job notice that could not be recorded.
  std::function<void(const std::string&)> warn = [](const std::string&) {};
};

struct RecordOutcome {
  std::string session_id;
  std::string workspace;
  host::ScriptReport report;
};

// Plays `ops` (host/script_host.h) into the session. Each tool/call is
// durable before its body runs.
Result<RecordOutcome> RecordScript(const Catalog& catalog, const std::vector<host::ScriptOp>& ops,
                                   const RecordOptions& options);

// "session <id>: 1 turn, 2 tool calls (1 failed); events 0..14 recorded"
std::string Summary(const RecordOutcome& outcome);

}  // namespace retrace::service

#endif  // RETRACE_SERVICE_RECORD_H_
