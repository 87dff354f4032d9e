// retrace mcp --workspace DIR [--session ID]
#include <unistd.h>

#include <csignal>

#include "frontends/cli/code_mode_option.h"
#include "frontends/cli/command.h"
#include "frontends/cli/exit_codes.h"
#include "frontends/cli/script_session.h"
#include "frontends/mcp/stdio.h"

namespace retrace::cli {
namespace {

struct McpOptions {
  ScriptSession session;  // its workspace "" by default: the client's roots (McpCommand)
  size_t max_frame_bytes = size_t{16} << 20;
  double shutdown_grace_s = 5;
  CodeModeOption code;
};

int Run(const Context& ctx, const McpOptions& opt) {
  // A client that stops reading our answers ends the session as end of input
  // does (frontends/mcp/stdio.h); without this its closed pipe would kill the process
  // mid-call with SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  ScriptSession how = opt.session;
  how.code = CodeModeFrom(opt.code);
  service::LiveOptions live_options = LiveOptionsFor(ctx, how);
  Result<std::unique_ptr<service::LiveSession>> live = service::LiveSession::Open(ctx.catalog(), live_options);
  Result<service::LiveSession*> serving = live.ok() ? Result<service::LiveSession*>(live->get()) : live.status();
  if (live.ok()) {
    const std::string& id = (*live)->session_id();
    const std::string db = ctx.catalog().db_path();
    if (!(*live)->workspace_chosen()) {
      std::fprintf(ctx.err, "retrace mcp: the workspace is the client's roots; recording into session %s of %s\n",
                   id.c_str(), db.c_str());
      if (std::string why = (*live)->workspace_reason(); !why.empty()) {
        std::fprintf(ctx.err, "retrace mcp: until the client gives roots, the tools answer: %s\n", why.c_str());
      }
    } else {
      std::fprintf(ctx.err, "retrace mcp: serving %s over stdio; recording into session %s of %s\n",
                   (*live)->workspace().c_str(), id.c_str(), db.c_str());
    }
  } else {
    // Still answer the client, which can show the reason; an exit before
    // initialize shows only "failed to connect".
    std::fprintf(ctx.err, "retrace mcp: cannot serve the tools: %s\n", live.status().message().c_str());
  }
  Result<mcp::StdioOutcome> outcome =
      mcp::ServeStdio(serving, STDIN_FILENO, STDOUT_FILENO,
                      {.version = "0.1.0",
                       .log = [&ctx](const std::string& m) { std::fprintf(ctx.err, "retrace mcp: %s\n", m.c_str()); }},
                      {.max_frame_bytes = opt.max_frame_bytes,
                       .shutdown_grace = std::chrono::milliseconds(static_cast<int64_t>(opt.shutdown_grace_s * 1000))});
  if (!live.ok()) return ctx.Fail(live.status());
  if (!outcome.ok()) return ctx.Fail(outcome.status());
  if (outcome->aborted_calls > 0) {
    std::fprintf(ctx.err, "retrace mcp: aborted %lld call(s) still running at shutdown\n",
                 static_cast<long long>(outcome->aborted_calls));
  }
  std::fprintf(ctx.err, "retrace mcp: session %s %s\n", (*live)->session_id().c_str(),
               (*live)->opened() ? "recorded" : "not started (no tool was called)");
  return kExitOk;
}

}  // namespace

Command McpCommand() {
  return {"mcp", "Serve the built-in tools to an MCP client over stdio, recording every call into a session",
          [](Options sub, Context& ctx) -> Handler {
            auto opt = std::make_shared<McpOptions>();
            opt->session.workspace.clear();  // the client's roots, unless --workspace (ScriptSession::workspace)
            sub.Add("--workspace", opt->session.workspace,
                    "Directory the built-in tools work in and are confined to (default: the client's roots, "
                    "else the current directory unless it is /, your home or a directory right under /)");
            sub.Add("--session", opt->session.session_id,
                    "Session id: a new session (default: a fresh UUID), or an existing one to continue; a turn "
                    "a crash left open is closed first");
            sub.Add("--max-parallel", opt->session.max_parallel, "Concurrency-safe calls that may run at once (default 10)")
                .InRange(1, 1000);
            sub.Add("--max-frame-bytes", opt->max_frame_bytes,
                    "Longest message accepted; a longer line is dropped and answered with an error (default 16 MiB)")
                .InRange(size_t{1024}, size_t{1} << 30);
            sub.Add("--shutdown-grace", opt->shutdown_grace_s,
                    "Seconds calls may finish after SIGTERM before they are aborted (default 5)")
                .InRange(0.0, 3600.0);
            AddCodeModeOption(sub, opt->code);
            sub.Footer(
                "MCP over stdio (revisions 2025-11-25, 2025-06-18, 2025-03-26): one JSON-RPC message per\n"
                "line on stdin and stdout; logs go to stderr. Every tools/call runs through the tool runtime\n"
                "and is recorded into the session (created at the first call; --db chooses the database).\n"
                "End of input finishes the calls in flight, closes the turn and exits 0. With --tools-mode\n"
                "code, tools/list holds run_code alone and the initialize instructions carry the SDK.\n"
                "See docs/MCP.md.\n"
                "Without --workspace: the client's roots, else the start directory unless it is /, your\n"
                "home or a directory right under / (then every tool call is refused, saying so).\n"
                "Claude Code:  claude mcp add retrace -- retrace --db ~/.retrace/retrace.db mcp\n");
            return [&ctx, opt] { return Run(ctx, *opt); };
          }};
}

}  // namespace retrace::cli
