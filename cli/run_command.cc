// retrace run <script.jsonl> [--session ID]
#include <fstream>
#include <random>
#include <sstream>
#include <unistd.h>

#include "cli/command.h"
#include "cli/exit_codes.h"
#include "engine/runtime/script_host.h"
#include "engine/runtime/timeout_policy.h"
#include "store/sqlite_event_log.h"
#include "tools/builtin_tools.h"

namespace retrace::cli {
namespace {

namespace asio = runtime::asio;

struct RunOptions {
  std::string script;
  std::string session;
  std::string workspace = ".";
  size_t max_parallel = 10;
};

// A random (version 4) UUID: message and session ids, as dsh mints them.
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

Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("cannot read script " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

int Run(const Context& ctx, const RunOptions& opt) {
  auto text = ReadFile(opt.script);
  if (!text.ok()) return ctx.Fail(text.status());
  auto ops = runtime::ParseScript(*text, opt.script);  // checked whole before anything is written
  if (!ops.ok()) return ctx.Fail(ops.status());

  auto store = ctx.OpenStore();
  if (!store.ok()) return ctx.Fail(store.status());
  store::SqliteEventLog log(**store);
  runtime::RecorderEnv env{[&ctx] { return ctx.NowMs(); }, NewUuid};
  log::SessionHeader header;
  header.id = opt.session.empty() ? NewUuid() : opt.session;
  header.created_at = ctx.NowMs();
  auto workspace = tools::Workspace::Open(opt.workspace);
  if (!workspace.ok()) return ctx.Fail(workspace.status());
  header.cwd = workspace->root();  // the session's cwd is the workspace the tools are confined to
  auto recorder = runtime::SessionRecorder::Open(log, header, env);
  if (!recorder.ok()) return ctx.Fail(recorder.status());
  if ((*recorder)->repaired_events() > 0) {
    std::fprintf(ctx.err, "retrace: session %s: closed a turn a crash left open (%lld events)\n", header.id.c_str(),
                 static_cast<long long>((*recorder)->repaired_events()));
  }

  runtime::ToolRuntime tools;
  runtime::Registration timeouts = runtime::InstallTimeoutPolicy(tools);
  auto builtins = tools::BuiltinTools(*workspace);
  if (!builtins.ok()) return ctx.Fail(builtins.status());
  std::vector<runtime::Registration> registered;
  for (const runtime::ToolDefinitionPtr& def : *builtins) {
    auto reg = tools.registry().Register(def);
    if (!reg.ok()) return ctx.Fail(reg.status());
    registered.push_back(std::move(reg).value());
  }
  asio::io_context io;
  std::optional<Result<runtime::ScriptReport>> report;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        report.emplace(co_await runtime::RunScript(*ops, **recorder, tools, env, {.max_parallel = opt.max_parallel}));
      },
      asio::detached);
  io.run();
  if (!report->ok()) return ctx.Fail(report->status());
  const runtime::ScriptReport& r = **report;
  auto count = [](int64_t n, const char* noun) {
    return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
  };
  std::fprintf(ctx.out, "session %s: %s, %s (%lld failed); events %lld..%lld recorded\n", header.id.c_str(),
               count(r.turns, "turn").c_str(), count(r.tool_calls, "tool call").c_str(),
               static_cast<long long>(r.tool_errors), static_cast<long long>(r.first_seq),
               static_cast<long long>(r.next_seq - 1));
  return kExitOk;
}

}  // namespace

Command RunCommand() {
  return {"run", "Drive a session from a script through the tool runtime, recording every event",
          [](CLI::App& sub, Context& ctx) -> Handler {
            auto opt = std::make_shared<RunOptions>();
            sub.add_option("script", opt->script, "Script file (JSONL; see docs/RUN_SCRIPTS.md)")->required();
            sub.add_option("--session", opt->session,
                           "Session id: a new session (default: a fresh UUID), or an existing one to continue; a turn "
                           "a crash left open is closed first");
            sub.add_option("--workspace", opt->workspace,
                           "Directory the built-in tools work in and are confined to (default: the current directory)");
            sub.add_option("--max-parallel", opt->max_parallel, "Concurrency-safe calls that may run at once")
                ->check(CLI::Range(1, 1000));
            sub.footer(
                "Each script line is one op: prompt (starts a turn), assistant (one model step whose\n"
                "toolCalls run through the pipeline), inject, cancel, end. Every tool/call is durable\n"
                "before its body runs. Built-in tools so far: read, write, edit (dsh's reference file\n"
                "tools, confined to --workspace); other names resolve to UNKNOWN_TOOL. Example:\n"
                "  {\"op\":\"prompt\",\"text\":\"list the files\"}\n"
                "  {\"op\":\"assistant\",\"toolCalls\":[{\"id\":\"c1\",\"name\":\"read\",\"arguments\":\"{\\\"file_path\\\":\\\"README.md\\\"}\"}]}\n"
                "  {\"op\":\"assistant\",\"text\":\"Done.\"}\n");
            return [&ctx, opt] { return Run(ctx, *opt); };
          }};
}

}  // namespace retrace::cli
