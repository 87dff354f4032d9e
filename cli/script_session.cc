#include "cli/script_session.h"

#include <random>

#include "engine/runtime/timeout_policy.h"
#include "store/sqlite_event_log.h"
#include "tools/builtin_tools.h"

namespace retrace::cli {

namespace asio = runtime::asio;

std::string NewUuid() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  uint64_t hi = rng(), lo = rng();
  hi = (hi & 0xffffffffffff0fffULL) | 0x4000ULL;
  lo = (lo & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;
  char buf[37];
  std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xffff), static_cast<unsigned>(hi & 0xffff),
                static_cast<unsigned>(lo >> 48), static_cast<unsigned long long>(lo & 0xffffffffffffULL));
  return buf;
}

Result<ScriptOutcome> RecordScript(const Context& ctx, const std::vector<runtime::ScriptOp>& ops, const ScriptSession& how) {
  ASSIGN_OR_RETURN(tools::Workspace workspace, tools::Workspace::Open(how.workspace));
  ASSIGN_OR_RETURN(std::unique_ptr<store::EventStore> store, ctx.OpenStore());
  store::SqliteEventLog log(*store);
  runtime::RecorderEnv env{[&ctx] { return ctx.NowMs(); }, NewUuid};
  log::SessionHeader header;
  header.id = how.session_id.empty() ? NewUuid() : how.session_id;
  header.created_at = ctx.NowMs();
  header.cwd = workspace.root();  // the session's cwd is the workspace the tools are confined to
  ASSIGN_OR_RETURN(std::unique_ptr<runtime::SessionRecorder> recorder, runtime::SessionRecorder::Open(log, header, env));
  if (recorder->repaired_events() > 0) {
    std::fprintf(ctx.err, "retrace: session %s: closed a turn a crash left open (%lld events)\n", header.id.c_str(),
                 static_cast<long long>(recorder->repaired_events()));
  }

  runtime::ToolRuntime runtime;
  std::vector<runtime::Registration> registered;
  registered.push_back(runtime::InstallTimeoutPolicy(runtime));
  ASSIGN_OR_RETURN(std::vector<runtime::ToolDefinitionPtr> builtins, tools::BuiltinTools(workspace));
  for (const runtime::ToolDefinitionPtr& def : builtins) {
    ASSIGN_OR_RETURN(runtime::Registration reg, runtime.registry().Register(def));
    registered.push_back(std::move(reg));
  }
  if (how.policies) {
    for (runtime::Registration& reg : how.policies(runtime)) registered.push_back(std::move(reg));
  }
  asio::io_context io;
  std::optional<Result<runtime::ScriptReport>> report;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        report.emplace(co_await runtime::RunScript(ops, *recorder, runtime, env, {.max_parallel = how.max_parallel}));
      },
      asio::detached);
  io.run();
  if (!report->ok()) return report->status();
  return ScriptOutcome{header.id, workspace.root(), **report};
}

std::string Summary(const ScriptOutcome& o) {
  auto count = [](int64_t n, const char* noun) { return std::to_string(n) + " " + noun + (n == 1 ? "" : "s"); };
  const runtime::ScriptReport& r = o.report;
  return "session " + o.session_id + ": " + count(r.turns, "turn") + ", " + count(r.tool_calls, "tool call") + " (" +
         std::to_string(r.tool_errors) + " failed); events " + std::to_string(r.first_seq) + ".." +
         std::to_string(r.next_seq - 1) + " recorded";
}

}  // namespace retrace::cli
