#include "cli/script_session.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <exception>
#include <filesystem>
#include <random>
#include <utility>

#include "engine/runtime/timeout_policy.h"
#include "engine/runtime/tool_error.h"
#include "store/sqlite_event_log.h"
#include "tools/builtin_tools.h"
#include "tools/job_tools.h"

extern char** environ;

namespace retrace::cli {

namespace asio = runtime::asio;
using json::Value;

std::string NewUuid() {
  static thread_local std::mt19937_64 rng(static_cast<std::mt19937_64::result_type>(std::random_device{}()));
  uint64_t hi = rng(), lo = rng();
  hi = (hi & 0xffffffffffff0fffULL) | 0x4000ULL;
  lo = (lo & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;
  char buf[37];
  std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xffff), static_cast<unsigned>(hi & 0xffff),
                static_cast<unsigned>(lo >> 48), static_cast<unsigned long long>(lo & 0xffffffffffffULL));
  return buf;
}

namespace {

std::vector<std::string> ProcessEnvironment() {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  return env;
}

// A private (0700) per-user directory under the system temp dir.
std::string DefaultSpillDir() {
  std::error_code ec;
  std::string dir = (std::filesystem::temp_directory_path(ec) / ("retrace-spill-" + std::to_string(getuid()))).string();
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return "";
  struct stat st {};
  if (lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid()) return "";  // not ours: no spill
  return dir;
}

}  // namespace

Result<ScriptOutcome> RecordScript(const Context& ctx, const std::vector<host::ScriptOp>& ops, const ScriptSession& how) {
  ASSIGN_OR_RETURN(tools::Workspace workspace, tools::Workspace::Open(how.workspace));
  ASSIGN_OR_RETURN(std::unique_ptr<store::EventStore> store, ctx.OpenStore());
  store::SqliteEventLog log(*store);
  runtime::RecorderEnv env{[&ctx] { return ctx.NowMs(); }, NewUuid, /*card_snapshots=*/true};
  log::SessionHeader header;
  header.id = how.session_id.empty() ? NewUuid() : how.session_id;
  header.created_at = ctx.NowMs();
  header.cwd = workspace.root();  // the session's cwd is the workspace the tools are confined to
  ASSIGN_OR_RETURN(std::unique_ptr<runtime::SessionRecorder> recorder, runtime::SessionRecorder::Open(log, header, env));
  if (recorder->repaired_events() > 0) {
    std::fprintf(ctx.err, "retrace: session %s: closed a turn a crash left open (%lld events)\n", header.id.c_str(),
                 static_cast<long long>(recorder->repaired_events()));
  }

  // Background jobs belong to this session; a job that finishes unreported
  // tells it through an injected notice (dsh-tool-jobs), recorded durably.
  auto jobs = std::make_shared<tools::JobRegistry>([&ctx] { return ctx.NowMs(); });
  jobs->OnJobDone([&recorder, &header](const tools::JobSnapshot& job) {
    if (job.reported || job.owner != header.id) return;
    Value::Array content;
    content.push_back(Value::MakeObject({{"type", "text"}, {"text", tools::CompletionNotice(job)}}));
    Status st = recorder->Inject(runtime::MakeUserMessage(std::move(content), tools::CompletionNoticeSource(job), NewUuid()));
    if (!st.ok()) std::fprintf(stderr, "retrace: could not record the notice of job %s: %s\n", job.id.c_str(), st.message().c_str());
  });
  tools::ToolHost host{.workspace = workspace,
                       .environment = ProcessEnvironment(),
                       .spill_dir = how.spill_dir.empty() ? DefaultSpillDir() : how.spill_dir,
                       .jobs = jobs,
                       .ca_file = [] {  // as OpenSSL's own tools honour it, but added to the system's CAs
                         const char* file = std::getenv("SSL_CERT_FILE");
                         return std::string(file ? file : "");
                       }()};

  runtime::ToolRuntime runtime;
  std::vector<runtime::Registration> registered;
  registered.push_back(runtime::InstallTimeoutPolicy(runtime));
  ASSIGN_OR_RETURN(std::vector<runtime::ToolDefinitionPtr> builtins, tools::BuiltinTools(host));
  for (const runtime::ToolDefinitionPtr& def : builtins) {
    ASSIGN_OR_RETURN(runtime::Registration reg, runtime.registry().Register(def));
    registered.push_back(std::move(reg));
  }
  if (how.policies) {
    for (runtime::Registration& reg : how.policies(runtime)) registered.push_back(std::move(reg));
  }
  asio::io_context io;
  std::optional<Result<host::ScriptReport>> report;
  std::exception_ptr thrown;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        report.emplace(co_await host::RunScript(ops, *recorder, runtime, env, {.max_parallel = how.max_parallel, .agent = runtime::Scope::Create(header.id)}));
      },
      [&](std::exception_ptr e) { thrown = std::move(e); });
  io.run();
  jobs->Close();  // the host's teardown: stop the jobs still running, before the recorder goes
  // RunScript reports failures as values; should one escape it as an
  // exception, the run fails with what it said instead of reading no report.
  if (!report) {
    return Status::IoError("the script run stopped: " + (thrown ? runtime::DescribeException(thrown).message
                                                                 : std::string("it ended without a report")));
  }
  if (!report->ok()) return report->status();
  return ScriptOutcome{header.id, workspace.root(), **report};
}

std::string Summary(const ScriptOutcome& o) {
  auto count = [](int64_t n, const char* noun) { return std::to_string(n) + " " + noun + (n == 1 ? "" : "s"); };
  const host::ScriptReport& r = o.report;
  return "session " + o.session_id + ": " + count(r.turns, "turn") + ", " + count(r.tool_calls, "tool call") + " (" +
         std::to_string(r.tool_errors) + " failed); events " + std::to_string(r.first_seq) + ".." +
         std::to_string(r.next_seq - 1) + " recorded";
}

}  // namespace retrace::cli
