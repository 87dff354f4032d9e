#include "service/live_session.h"

#include <utility>

#include "engine/runtime/run_code.h"
#include "engine/runtime/timeout_policy.h"
#include "store/journaled_event_log.h"
#include "store/sqlite_event_log.h"
#include "tools/builtin_tools.h"
#include "tools/job_tools.h"
#include "tools/workspace.h"

namespace retrace::service {

namespace asio = runtime::asio;
using json::Value;

// What the session and its tools hold on to, in teardown order (last first).
struct LiveSession::Parts {
  std::unique_ptr<store::EventStore> store;
  std::unique_ptr<log::EventLog> log;
  store::JournaledEventLog* journaled = nullptr;  // `log`, when it is one
  std::shared_ptr<tools::JobRegistry> jobs;
  tools::ToolHost host;
};

LiveSession::LiveSession(LiveOptions options, std::unique_ptr<Parts> parts)
    : options_(std::move(options)),
      parts_(std::move(parts)),
      agent_(runtime::Scope::Create(options_.session_id)) {}

LiveSession::~LiveSession() { (void)Close(Value::MakeObject({{"kind", "completed"}})); }

Result<std::unique_ptr<LiveSession>> LiveSession::Open(const Catalog& catalog, LiveOptions options) {
  if (options.session_id.empty() || !options.now_ms || !options.new_id) {
    return Status::InvalidArgument("recording needs a session id, a clock and an id source");
  }
  ASSIGN_OR_RETURN(tools::Workspace workspace, tools::Workspace::Open(options.workspace));
  auto parts = std::make_unique<Parts>(Parts{.store = nullptr, .log = nullptr, .jobs = nullptr, .host = {.workspace = workspace}});
  ASSIGN_OR_RETURN(parts->store, catalog.Open(Access::kCreate));
  if (catalog.durability() == store::Durability::kNormal) {
    // `normal` asks an acknowledged call to survive a crash of the process:
    // a journal write gives that, with the commit behind the answer.
    ASSIGN_OR_RETURN(std::unique_ptr<store::JournaledEventLog> journaled, store::JournaledEventLog::Open(*parts->store));
    parts->journaled = journaled.get();
    parts->log = std::move(journaled);
  } else {
    parts->log = std::make_unique<store::SqliteEventLog>(*parts->store);
  }
  parts->jobs = std::make_shared<tools::JobRegistry>(options.now_ms);
  parts->host.environment = options.environment;
  parts->host.spill_dir = options.spill_dir;
  parts->host.jobs = parts->jobs;
  parts->host.ca_file = options.ca_file;

  std::unique_ptr<LiveSession> live(new LiveSession(std::move(options), std::move(parts)));
  runtime::ToolRuntime& rt = live->runtime_;
  live->registered_.push_back(runtime::InstallTimeoutPolicy(rt));
  ASSIGN_OR_RETURN(std::vector<runtime::ToolDefinitionPtr> builtins, tools::BuiltinTools(live->parts_->host));
  for (const runtime::ToolDefinitionPtr& def : builtins) {
    ASSIGN_OR_RETURN(runtime::Registration reg, rt.registry().Register(def));
    live->registered_.push_back(std::move(reg));
  }
  if (const std::optional<CodeModeOptions>& code = live->options_.code; code && code->mode != runtime::ToolsMode::kNative) {
    // run_code's programs work in the tools' workspace.
    tools::CodeRuntimeOptions ro = code->runtime;
    ro.workspace = live->parts_->host.workspace.root();
    ASSIGN_OR_RETURN(std::unique_ptr<tools::CodeRuntime> runner, tools::CodeRuntime::Create(std::move(ro)));
    ASSIGN_OR_RETURN(runtime::ToolDefinitionPtr run_code,
                     runtime::MakeRunCodeTool(rt, std::shared_ptr<const runtime::CodeRunner>(std::move(runner)),
                                              {.max_parallel_sub_calls = code->max_parallel_sub_calls,
                                               .new_id = live->options_.new_id}));
    rt.registry().SetCodeMode(code->mode, std::move(run_code));
  }
  if (live->options_.policies) {
    for (runtime::Registration& reg : live->options_.policies(rt)) live->registered_.push_back(std::move(reg));
  }
  return live;
}

const std::string& LiveSession::workspace() const { return parts_->host.workspace.root(); }

std::string LiveSession::ToolsSdk() const {
  if (!options_.code || runtime_.registry().ModeFor(agent_) == runtime::ToolsMode::kNative) return "";
  return schema::RenderToolsSdk(runtime_.registry().SdkSchemas(agent_), options_.code->runtime.language);
}

runtime::RecorderEnv LiveSession::env() const {
  return runtime::RecorderEnv{options_.now_ms, options_.new_id, /*card_snapshots=*/true, options_.max_parallel};
}

Result<runtime::SessionRecorder*> LiveSession::Recorder() {
  if (recorder_) return recorder_.get();
  if (closed_) return Status::FailedPrecondition("session " + options_.session_id + " is closed");
  log::SessionHeader header;
  header.id = options_.session_id;
  header.created_at = options_.now_ms();
  header.cwd = workspace();  // the session's cwd is the workspace the tools are confined to
  ASSIGN_OR_RETURN(recorder_, runtime::SessionRecorder::Open(*parts_->log, header, env()));
  if (recorder_->repaired_events() > 0) {
    options_.warn("session " + header.id + ": closed a turn a crash left open (" +
                  std::to_string(recorder_->repaired_events()) + " events)");
  }
  // Background jobs belong to this session; a job that finishes unreported
  // tells it through an injected notice (dsh-tool-jobs), recorded durably.
  parts_->jobs->OnJobDone([this](const tools::JobSnapshot& job) {
    if (job.reported || job.owner != options_.session_id) return;
    Value::Array content;
    content.push_back(Value::MakeObject({{"type", "text"}, {"text", tools::CompletionNotice(job)}}));
    Status st = recorder_->Inject(
        runtime::MakeUserMessage(std::move(content), tools::CompletionNoticeSource(job), options_.new_id()));
    if (!st.ok()) options_.warn("could not record the notice of job " + job.id + ": " + st.message());
  });
  return recorder_.get();
}

asio::awaitable<Result<runtime::ToolResultPtr>> LiveSession::Call(runtime::LooseCall call) {
  Result<runtime::SessionRecorder*> recorder = Recorder();
  if (!recorder.ok()) co_return recorder.status();
  call.agent = agent_;
  co_return co_await (*recorder)->RunCall(runtime_, std::move(call));
}

Status LiveSession::Close(Value reason) {
  if (closed_) return Status::Ok();
  closed_ = true;
  parts_->jobs->Close();  // stop the jobs still running, before the recorder goes
  Status st = recorder_ && recorder_->in_turn() ? recorder_->EndTurn(std::move(reason)) : Status::Ok();
  // Everything acknowledged reaches the database before the session is closed.
  if (parts_->journaled) {
    Status folded = parts_->journaled->Close();
    if (st.ok()) st = folded;
  }
  return st;
}

}  // namespace retrace::service
