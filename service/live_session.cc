#include "service/live_session.h"

#include <filesystem>
#include <map>
#include <mutex>
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

namespace {

std::string Canonical(const std::string& dir) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::canonical(dir, ec);
  return ec ? dir : p.string();
}

// What the tools answer while there is no workspace: why, and how to give one.
std::string NoWorkspace(const std::string& why) {
  return "no workspace: " + why +
         ", and the client gave no roots. Add \"--workspace\", \"/path/to/project\" to retrace's arguments "
         "in the client's MCP configuration (docs/MCP.md)";
}

// run_code's runner while the workspace may change (a client's roots): a
// runtime per primary root, made when a program first runs there. A program
// runs in the primary root of the moment it starts.
class FollowingCodeRunner : public runtime::CodeRunner {
 public:
  FollowingCodeRunner(tools::CodeRuntimeOptions options, tools::Workspace workspace)
      : options_(std::move(options)), workspace_(std::move(workspace)) {}

  schema::SdkLanguage language() const override { return options_.language; }

  runtime::CodeRunResult Run(std::string_view program, const std::vector<runtime::CodeBindingNamespace>& bindings,
                             const runtime::Signal* abort) const override {
    std::string root;
    try {
      root = workspace_.Cwd();
    } catch (const runtime::ToolError& e) {
      return Failed(e.what());
    }
    Result<const tools::CodeRuntime*> runner = For(root);
    if (!runner.ok()) return Failed(runner.status().message());
    return (*runner)->Run(program, bindings, abort);
  }

 private:
  static runtime::CodeRunResult Failed(std::string message) {
    runtime::CodeRunResult r;
    r.error = runtime::CodeRunFailure{.kind = "error", .message = std::move(message)};
    return r;
  }
  Result<const tools::CodeRuntime*> For(const std::string& root) const {
    std::lock_guard lock(mu_);
    auto it = runners_.find(root);
    if (it == runners_.end()) {
      tools::CodeRuntimeOptions o = options_;
      o.workspace = root;
      ASSIGN_OR_RETURN(std::unique_ptr<tools::CodeRuntime> made, tools::CodeRuntime::Create(std::move(o)));
      it = runners_.emplace(root, std::move(made)).first;
    }
    return static_cast<const tools::CodeRuntime*>(it->second.get());
  }

  tools::CodeRuntimeOptions options_;
  tools::Workspace workspace_;
  mutable std::mutex mu_;
  mutable std::map<std::string, std::unique_ptr<tools::CodeRuntime>> runners_;
};

}  // namespace

std::optional<std::string> WhyNotAWorkspace(const std::string& dir, const std::string& home) {
  const std::filesystem::path p = Canonical(dir);
  if (p == "/") return "retrace was started in / (where MCP clients start their servers)";
  if (!home.empty() && p == std::filesystem::path(Canonical(home))) {
    return "retrace was started in the home directory " + p.string();
  }
  if (p.parent_path() == "/") return "retrace was started in " + p.string() + ", a system directory";
  return std::nullopt;
}

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
  tools::Workspace workspace = tools::Workspace::Unset("");
  if (options.workspace_chosen) {
    ASSIGN_OR_RETURN(workspace, tools::Workspace::Open(options.workspace));
  } else if (std::optional<std::string> why = WhyNotAWorkspace(options.workspace, options.home)) {
    workspace = tools::Workspace::Unset(NoWorkspace(*why));
  } else {
    ASSIGN_OR_RETURN(workspace, tools::Workspace::Open(options.workspace));
  }
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
    // run_code's programs work in the tools' workspace: the chosen one, or
    // the primary root of the moment (a client's roots may change).
    tools::CodeRuntimeOptions ro = code->runtime;
    std::shared_ptr<const runtime::CodeRunner> runner;
    if (live->options_.workspace_chosen) {
      ro.workspace = live->parts_->host.workspace.root();
      ASSIGN_OR_RETURN(std::unique_ptr<tools::CodeRuntime> made, tools::CodeRuntime::Create(std::move(ro)));
      runner = std::move(made);
    } else {
      runner = std::make_shared<FollowingCodeRunner>(std::move(ro), live->parts_->host.workspace);
    }
    ASSIGN_OR_RETURN(runtime::ToolDefinitionPtr run_code,
                     runtime::MakeRunCodeTool(rt, std::move(runner),
                                              {.max_parallel_sub_calls = code->max_parallel_sub_calls,
                                               .new_id = live->options_.new_id}));
    rt.registry().SetCodeMode(code->mode, std::move(run_code));
  }
  if (live->options_.policies) {
    for (runtime::Registration& reg : live->options_.policies(rt)) live->registered_.push_back(std::move(reg));
  }
  return live;
}

std::string LiveSession::workspace() const { return parts_->host.workspace.root(); }

std::vector<std::string> LiveSession::workspace_roots() const { return parts_->host.workspace.roots(); }

std::string LiveSession::workspace_reason() const {
  try {
    (void)parts_->host.workspace.Cwd();
    return "";
  } catch (const runtime::ToolError& e) {
    return e.what();
  }
}

void LiveSession::SetRoots(const std::vector<std::string>& roots) {
  if (options_.workspace_chosen) return;  // --workspace wins over the client's roots
  std::vector<std::string> usable;
  for (const std::string& root : roots) {
    std::error_code ec;
    if (std::filesystem::is_directory(root, ec)) {
      usable.push_back(root);
    } else {
      options_.warn("the client's root " + root + " is not a directory here; skipped");
    }
  }
  // No usable root: the start directory, as before any roots came, when someone would mean it.
  const std::optional<std::string> why = WhyNotAWorkspace(options_.workspace, options_.home);
  if (usable.empty() && !why) usable.push_back(options_.workspace);
  Status st = parts_->host.workspace.Replace(usable, NoWorkspace(why.value_or("")));
  if (!st.ok()) options_.warn("could not take the client's roots: " + st.message());
}

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
  // The session's cwd is the workspace the tools are confined to (where the
  // program started while there is none).
  header.cwd = workspace().empty() ? Canonical(options_.workspace) : workspace();
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
