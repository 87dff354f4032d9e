// Records a script into a stored session through the tool runtime with the
// built-in tools: what `retrace run` and `retrace demo` share.
#ifndef RETRACE_CLI_SCRIPT_SESSION_H_
#define RETRACE_CLI_SCRIPT_SESSION_H_

#include <functional>
#include <string>
#include <vector>

#include "cli/context.h"
#include "host/script_host.h"

namespace retrace::cli {

struct ScriptSession {
  std::string session_id;        // empty: a fresh UUID
  std::string workspace = ".";   // the tools' confinement, and the session's cwd
  size_t max_parallel = 10;
  // Extra policy (guards, listeners) to install on the runtime for the run.
  std::function<std::vector<runtime::Registration>(runtime::ToolRuntime&)> policies{};
  std::string spill_dir{};  // over-cap output; empty: $TMPDIR/retrace-spill-<uid>
};

struct ScriptOutcome {
  std::string session_id;
  std::string workspace;
  host::ScriptReport report;
};

Result<ScriptOutcome> RecordScript(const Context& ctx, const std::vector<host::ScriptOp>& ops, const ScriptSession& how);

// A random (version 4) UUID, as dsh mints session and message ids.
std::string NewUuid();

// "session <id>: 1 turn, 2 tool calls (1 failed); events 0..14 recorded"
std::string Summary(const ScriptOutcome& outcome);

}  // namespace retrace::cli

#endif  // RETRACE_CLI_SCRIPT_SESSION_H_
