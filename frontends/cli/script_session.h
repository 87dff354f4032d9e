// What `retrace run`, `retrace demo` and `retrace mcp` share: a live
// session's options (service/live_session.h) with what only the CLI reads (a
// fresh UUID, the clock, the process environment, the spill directory,
// $SSL_CERT_FILE), and its warnings on stderr.
#ifndef RETRACE_CLI_SCRIPT_SESSION_H_
#define RETRACE_CLI_SCRIPT_SESSION_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "frontends/cli/context.h"
#include "service/script_host.h"
#include "service/record.h"

namespace retrace::cli {

struct ScriptSession {
  std::string session_id;        // empty: a fresh UUID
  // The tools' confinement, and the session's cwd; "" (retrace mcp without
  // --workspace): the start directory, when someone would mean it, until the
  // client gives its roots (service::LiveOptions::workspace_chosen).
  std::string workspace = ".";
  size_t max_parallel = 10;
  // Extra policy (guards, listeners) to install on the runtime for the run.
  std::function<std::vector<runtime::Registration>(runtime::ToolRuntime&)> policies{};
  std::string spill_dir{};  // over-cap output; empty: $TMPDIR/retrace-spill-<uid>
  std::optional<service::CodeModeOptions> code{};  // Code Mode (frontends/cli/code_mode_option.h)
};

using ScriptOutcome = service::RecordOutcome;
using service::Summary;

service::LiveOptions LiveOptionsFor(const Context& ctx, const ScriptSession& how);

Result<ScriptOutcome> RecordScript(const Context& ctx, const std::vector<service::ScriptOp>& ops, const ScriptSession& how);

// A random (version 4) UUID, as dsh mints session and message ids.
std::string NewUuid();

}  // namespace retrace::cli

#endif  // RETRACE_CLI_SCRIPT_SESSION_H_
