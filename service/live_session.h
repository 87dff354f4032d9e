// LiveSession, the use case under every front end that records a session as
// it happens: the built-in tools on the runtime (with the timeout policy and
// the front end's own policies), confined to a workspace, and one session of
// the catalog's database that everything is recorded into. `retrace run`
// plays a script into it (service/record.h); `retrace mcp` records each
// client request as it arrives (Call).
//
// The session is opened — created, or continued with a crashed turn closed —
// at the first thing recorded, so a client that connects, lists the tools
// and leaves records nothing. What only a front end may read (the clock,
// fresh ids, the process environment) comes in the options.
#ifndef RETRACE_SERVICE_LIVE_SESSION_H_
#define RETRACE_SERVICE_LIVE_SESSION_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "engine/json/value.h"
#include "engine/runtime/asio.h"
#include "engine/runtime/code_mode.h"
#include "engine/runtime/registration.h"
#include "engine/runtime/session_recorder.h"
#include "engine/runtime/tool_runtime.h"
#include "service/catalog.h"
#include "tools/code_runtime.h"

namespace retrace::service {

// Code Mode for a live session: how its tools are presented, and the runtime
// run_code's programs run in (dsh-tool-contract §7).
struct CodeModeOptions {
  runtime::ToolsMode mode = runtime::ToolsMode::kNative;
  tools::CodeRuntimeOptions runtime{};
  size_t max_parallel_sub_calls = 10;
};

struct LiveOptions {
  std::string session_id;        // created, or continued when it exists
  std::string workspace = ".";   // the tools' confinement, and the session's cwd
  // Whether the user chose `workspace` (--workspace). When not, it is only
  // where the program was started: it is served only when someone would mean
  // it (WhyNotAWorkspace), and a client's roots replace it (SetRoots).
  bool workspace_chosen = true;
  std::string home{};  // the user's home directory ($HOME): never a workspace by default
  size_t max_parallel = 10;      // concurrency-safe calls at once
  // Extra policy (guards, listeners) to install on the runtime.
  std::function<std::vector<runtime::Registration>(runtime::ToolRuntime&)> policies{};
  std::string spill_dir{};                 // over-cap output ("": none)
  std::vector<std::string> environment{};  // what children of the tools inherit, NAME=value
  std::string ca_file{};                   // extra CA certificates web_fetch trusts
  std::function<int64_t()> now_ms{};       // event times
  std::function<std::string()> new_id{};   // message ids
  // Said to the user, not recorded: a turn a crash left open and was closed,
  // a job notice that could not be recorded.
  std::function<void(const std::string&)> warn = [](const std::string&) {};
  // Code Mode (`code` or `both`); nullopt or `native`: the tools as they are.
  std::optional<CodeModeOptions> code{};
};

// Why `dir`, a directory a program was merely started in, is no workspace a
// user would mean; nullopt when it is one. Refused: `/` (where Claude
// Desktop, Cursor and Cline start their stdio servers), the user's home
// (where others do, and which holds every secret a shell config names), and
// any directory right under `/` (/etc, /usr, /tmp, /home, ...), which hold
// systems, not projects.
std::optional<std::string> WhyNotAWorkspace(const std::string& dir, const std::string& home);

class LiveSession {
 public:
  // Checks the options and the workspace and sets up the runtime; opens the
  // database now (a bad path fails here, not at the first call) but not the
  // session.
  static Result<std::unique_ptr<LiveSession>> Open(const Catalog& catalog, LiveOptions options);
  ~LiveSession();
  LiveSession(const LiveSession&) = delete;
  LiveSession& operator=(const LiveSession&) = delete;

  const std::string& session_id() const { return options_.session_id; }
  // The primary workspace root; "" while there is none (workspace_reason()).
  std::string workspace() const;
  std::vector<std::string> workspace_roots() const;
  // Why the tools are refused while there is no workspace ("" when there is one).
  std::string workspace_reason() const;
  bool workspace_chosen() const { return options_.workspace_chosen; }

  // A client's roots (absolute directory paths), which become the workspace
  // unless the user chose one; those that are not directories are skipped
  // (and said through `warn`). No usable root: the start directory when
  // someone would mean it, else no workspace at all.
  void SetRoots(const std::vector<std::string>& roots);
  // The Code Mode SDK text the session's model programs against ("" under `native`).
  std::string ToolsSdk() const;
  runtime::ToolRuntime& runtime() { return runtime_; }
  const runtime::ScopePtr& agent() const { return agent_; }
  runtime::RecorderEnv env() const;
  std::string NewId() const { return options_.new_id(); }  // a fresh id from the front end's source
  bool opened() const { return recorder_ != nullptr; }

  // The session's recorder, opening the session at the first use.
  Result<runtime::SessionRecorder*> Recorder();

  // One call on its own (SessionRecorder::RunCall: concurrency-safe calls
  // overlap up to max_parallel, any other runs alone). Calls on the
  // executor's thread only.
  runtime::asio::awaitable<Result<runtime::ToolResultPtr>> Call(runtime::LooseCall call);

  // Ends the open turn with `reason` (a TurnEndReason) and stops the
  // session's background jobs; at Durability::kNormal, also waits until the
  // database holds every recorded event (store/journaled_event_log.h).
  // Idempotent; the destructor closes too.
  Status Close(json::Value reason);

 private:
  struct Parts;
  LiveSession(LiveOptions options, std::unique_ptr<Parts> parts);

  LiveOptions options_;
  std::unique_ptr<Parts> parts_;
  runtime::ToolRuntime runtime_;
  runtime::ScopePtr agent_;
  std::vector<runtime::Registration> registered_;
  std::unique_ptr<runtime::SessionRecorder> recorder_;
  bool closed_ = false;
};

}  // namespace retrace::service

#endif  // RETRACE_SERVICE_LIVE_SESSION_H_
