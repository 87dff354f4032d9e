#include "service/record.h"

#include <exception>
#include <optional>
#include <utility>

#include "engine/runtime/session_recorder.h"
#include "engine/runtime/timeout_policy.h"
#include "engine/runtime/tool_error.h"
#include "store/sqlite_event_log.h"
#include "tools/builtin_tools.h"
#include "tools/job_tools.h"
#include "tools/workspace.h"

namespace retrace::service {

namespace asio = runtime::asio;
using json::Value;

Result<RecordOutcome> RecordScript(const Catalog& catalog, const std::vector<host::ScriptOp>& ops,
                                   const RecordOptions& how) {
  if (how.session_id.empty() || !how.now_ms || !how.new_id) {
    return Status::InvalidArgument("recording needs a session id, a clock and an id source");
  }
  ASSIGN_OR_RETURN(tools::Workspace workspace, tools::Workspace::Open(how.workspace));
  ASSIGN_OR_RETURN(std::unique_ptr<store::EventStore> store, catalog.Open());
  store::SqliteEventLog log(*store);
  runtime::RecorderEnv env{how.now_ms, how.new_id, /*card_snapshots=*/true};
  log::SessionHeader header;
  header.id = how.session_id;
  header.created_at = how.now_ms();
  header.cwd = workspace.root();  // the session's cwd is the workspace the tools are confined to
  ASSIGN_OR_RETURN(std::unique_ptr<runtime::SessionRecorder> recorder, runtime::SessionRecorder::Open(log, header, env));
  if (recorder->repaired_events() > 0) {
    how.warn("session " + header.id + ": closed a turn a crash left open (" +
             std::to_string(recorder->repaired_events()) + " events)");
  }

  // Background jobs belong to this session; a job that finishes unreported
  // tells it through an injected notice (dsh-tool-jobs), recorded durably.
  auto jobs = std::make_shared<tools::JobRegistry>(how.now_ms);
  jobs->OnJobDone([&recorder, &header, &how](const tools::JobSnapshot& job) {
    if (job.reported || job.owner != header.id) return;
    Value::Array content;
    content.push_back(Value::MakeObject({{"type", "text"}, {"text", tools::CompletionNotice(job)}}));
    Status st = recorder->Inject(runtime::MakeUserMessage(std::move(content), tools::CompletionNoticeSource(job), how.new_id()));
    if (!st.ok()) how.warn("could not record the notice of job " + job.id + ": " + st.message());
  });
  tools::ToolHost host{.workspace = workspace,
                       .environment = how.environment,
                       .spill_dir = how.spill_dir,
                       .jobs = jobs,
                       .ca_file = how.ca_file};

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
  return RecordOutcome{header.id, workspace.root(), **report};
}

std::string Summary(const RecordOutcome& o) {
  auto count = [](int64_t n, const char* noun) { return std::to_string(n) + " " + noun + (n == 1 ? "" : "s"); };
  const host::ScriptReport& r = o.report;
  return "session " + o.session_id + ": " + count(r.turns, "turn") + ", " + count(r.tool_calls, "tool call") + " (" +
         std::to_string(r.tool_errors) + " failed); events " + std::to_string(r.first_seq) + ".." +
         std::to_string(r.next_seq - 1) + " recorded";
}

}  // namespace retrace::service
