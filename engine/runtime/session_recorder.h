// SessionRecorder: drives one session's turns and steps and records them
// through an EventLog, in the shape dsh's agent loop writes
// (dsh-session-log §5.3, §6), so dsh's readers and its invariant
// companion accept the log:
//
//   agent/inbox/spliced (next-turn insert: a prompt)        FollowUp()
//   turn/start                                              BeginTurn()
//   agent/inbox/spliced (claims) · step/start · user/message*   BeginStep()
//   assistant/message                                       RecordAssistant()
//   (tool/call … tool/result · agent/inbox/spliced*)*       RunToolCalls()
//   step/end                                                EndStep()
//   turn/end                                                EndTurn()
//   agent/inbox/spliced (next-step insert), at any time     Inject()
//
// Every tool/call is appended — durable in the store's sense — before its
// body can run; each tool/result carries the final content, isError, the
// error identity and the presentationMeta as `meta`; the result's
// additionalContexts follow it as next-step injections, claimed as
// user/message at the next step (same message id). Calls not started when
// the turn is cancelled get dsh's synthetic pair (ABORTED_BEFORE_DISPATCH).
//
// A front end whose calls arrive one at a time (MCP) records each with
// RunCall instead: the call gets an assistant/message of its own holding its
// tool-call block, appended with its tool/call (and, when none is open, the
// turn/start and step/start) in one durable append before its body runs.
// Calls that overlap share a step; the step ends with the result of the last
// one in flight. A call of a tool whose hints say it is read-only and stays
// in the workspace has no side effect to precede: it is recorded in one
// append with its result (the same events, stamped with the time it was
// asked), which halves the commits of the commonest calls. Records that are
// ready at the same moment — calls in flight finishing together — share one
// commit (group commit). A call that runs alone lets the next one in when
// its body ends, so the next call's tool/call shares the commit of its
// result: calls that follow one another in flight take one commit each.
//
// Open() resumes an existing session: a turn a crash left open is closed
// first with dsh's interrupted-turn closers (TOOL_OUTCOME_UNKNOWN for a call
// without a result), and the pending inbox is rebuilt from the log.
//
// The recorder never reads the clock or invents ids: both are parameters.
// It is thread-safe: a tool body (on the blocking pool) or a background job
// may Inject() while a batch is being recorded.
#ifndef RETRACE_ENGINE_RUNTIME_SESSION_RECORDER_H_
#define RETRACE_ENGINE_RUNTIME_SESSION_RECORDER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <retrace/engine/base/status.h>
#include <retrace/engine/json/value.h>
#include <retrace/engine/log/event.h>
#include <retrace/engine/log/event_log.h>
#include <retrace/engine/log/event_types.h>
#include <retrace/engine/log/session_header.h>
#include <retrace/engine/runtime/asio.h>
#include <retrace/engine/runtime/batch_scheduler.h>
#include <retrace/engine/runtime/call_gate.h>
#include <retrace/engine/runtime/tool_runtime.h>
#include <retrace/presenters/presenter.h>

namespace retrace::runtime {

struct RecorderEnv {
  std::function<int64_t()> now_ms;        // event `time`
  std::function<std::string()> new_id;   // message ids (UUIDs in the CLI)
  // Each tool/result is followed by a card snapshot: an ignorable
  // `retrace/cards` event {callId, tool, presenterVersion, pending, result}
  // holding the views the called tool's presenter (ToolDefinition::presenter)
  // gave at run time, the reference `retrace check` compares later replays with.
  // Before a tool's first call in a turn goes an ignorable
  // `retrace/tool-revision` {tool, revision, schema}: the revision of the
  // arguments and its schema's fingerprint (presenters/revisions.h), which
  // replay upcasts old calls from.
  bool card_snapshots = false;
  // RunCall's admission (CallGate): concurrency-safe calls at once.
  size_t max_parallel = 10;
};

// A tool call as the model requested it.
struct ModelToolCall {
  std::string id;
  std::string name;
  std::string arguments;  // raw model text
};

// A call for RunCall: who asked (the assistant/message's provider and model)
// and what the front end adds to its record.
struct LooseCall {
  ModelToolCall call;
  std::string provider;
  std::string model;
  Signal signal;
  ScopePtr agent;
  // Ignorable events (type, data) to record with the result, in the same append.
  std::function<std::vector<std::pair<std::string, json::Value>>(const ToolResult&)> notes{};
};

struct BatchOutcome {
  bool cancelled = false;       // the turn signal aborted during the batch
  bool concludes_turn = false;  // a successful result called concludeTurn()
  int64_t errors = 0;           // isError results
};

// UserMessage {content, source, role:"user", id} in dsh's key order.
json::Value MakeUserMessage(json::Value::Array content, json::Value source, std::string id);

// Holds the event log by reference: the log must outlive the recorder.
class SessionRecorder {
 public:
  // Creates the session from `header` when it does not exist, else resumes it.
  static Result<std::unique_ptr<SessionRecorder>> Open(log::EventLog& log, const log::SessionHeader& header,
                                                       RecorderEnv env);

  const std::string& session_id() const { return session_id_; }
  int64_t next_seq() const { return state_.next_seq; }
  int turn() const { return state_.turn; }
  int step() const { return state_.step; }
  bool in_turn() const { return state_.in_turn; }
  bool in_step() const { return state_.in_step; }
  // How many events Open() appended to close a crashed turn.
  int64_t repaired_events() const { return repaired_; }

  // Queues a prompt for the next turn (dsh followup).
  Status FollowUp(json::Value user_message);
  // Queues context for the next step (dsh agent.inject); durable at once.
  Status Inject(json::Value user_message);

  Status BeginTurn();
  // Claims the pending inbox (next-step items, then — on a turn's first
  // step — one next-turn item) and records it as the step's user messages.
  Status BeginStep();
  // assistant/message for `content` blocks (tool-call blocks included).
  Status RecordAssistant(json::Value::Array content, const std::string& provider, const std::string& model,
                         std::optional<json::Value> usage = std::nullopt);
  // Runs `calls` through `runtime` (§9.2 scheduling) and records each call,
  // result and context. `turn_signal` cancels the batch.
  asio::awaitable<Result<BatchOutcome>> RunToolCalls(ToolRuntime& runtime, const std::vector<ModelToolCall>& calls,
                                                      Signal turn_signal, ScopePtr agent = nullptr,
                                                      size_t max_parallel = 10);
  // Runs one call on its own (see above), admitted as dsh schedules a step's
  // calls (CallGate): concurrency-safe calls overlap up to
  // RecorderEnv::max_parallel, any other runs alone. A call whose signal
  // aborted before it started gets dsh's synthetic ABORTED_BEFORE_DISPATCH
  // pair. An error means a record could not be appended: when it is the
  // tool/call's, the body did not run. Calls on one executor's thread only.
  asio::awaitable<Result<ToolResultPtr>> RunCall(ToolRuntime& runtime, LooseCall call);
  // An ignorable event of the caller's (retrace/…), at any time.
  Status Note(std::string_view type, json::Value data);
  Status EndStep();
  // `reason`: a TurnEndReason, e.g. {kind:"completed"}.
  Status EndTurn(json::Value reason);

 private:
  SessionRecorder(log::EventLog& log, std::string session_id, RecorderEnv env)
      : log_(log), session_id_(std::move(session_id)), env_(std::move(env)), gate_(env_.max_parallel) {}
  Status Resume();
  void Fold(const log::Event& event);
  log::Event NewEvent(std::string_view type, json::Value data, bool surface = false);
  Status Append(std::vector<log::Event> events);
  // What a call's body appends its log-only events with (ToolCallInput::record).
  std::function<Status(std::string_view, json::Value)> LogOnlyAppender();
  // turn/start (when no turn is open), the inbox claims, step/start and the
  // claimed user messages: what opens a step.
  std::vector<log::Event> OpenStepEvents(bool new_turn);
  // Emits what starts a RunCall call — OpenStepEvents when no step is open,
  // its assistant/message and its tool/call, stamped `at` when given — and
  // returns the tool/call's seq.
  using Emit = std::function<void(std::vector<log::Event>)>;
  int64_t EmitCallStart(const LooseCall& loose, const ToolDefinition* def, const Emit& emit, std::optional<int64_t> at);
  // Group commit for RunCall: records what `build` emits in one append with
  // what the other calls ready to commit at the same moment emit (one
  // transaction for all). Builders run at the commit, in turn, under the
  // lock; each emitted run of events is folded into the state at once, so
  // what a builder builds next sees it. RunCall's callers share one executor
  // thread, which is what the group lives on.
  using Builder = std::function<void(const Emit&)>;
  struct PendingCommit;
  asio::awaitable<Status> Commit(Builder build);
  Status CommitGroup(const std::vector<std::shared_ptr<PendingCommit>>& group);
  log::Event Splice(const std::string& target, int64_t start, int64_t removed, json::Value::Array inserted);
  log::Event ToolResultEvent(const std::string& call_id, int64_t call_seq, const ToolResult& result);
  // What records a call's result: its tool/result, its card snapshot, and its
  // additionalContexts as next-step injections.
  std::vector<log::Event> ResultEvents(const ModelToolCall& call, int64_t call_seq, const ToolResult& result,
                                       const ToolDefinition* def);
  // The card snapshot of a recorded call (RecorderEnv::card_snapshots), from
  // the presenter of the tool the call resolved to (none for an unknown tool).
  log::Event CardSnapshot(const ModelToolCall& call, const ToolResult& result, const presenters::ToolPresenter* p);
  // The `retrace/tool-revision` record that goes before a call of `def`: only
  // with card snapshots, for a tool with a presenter, and once per tool and turn.
  std::optional<log::Event> RevisionRecord(const ToolDefinition* def);

  // Guards the log appends and the state below; never held across a co_await.
  mutable std::recursive_mutex mu_;
  log::EventLog& log_;
  std::string session_id_;
  RecorderEnv env_;
  // Where the session stands, as its events say: one value, so that a group
  // commit that fails puts all of it back (CommitGroup).
  struct State {
    int64_t next_seq = 0;
    int turn = 0;
    int step = 0;
    bool in_turn = false;
    bool in_step = false;
    int loose_in_flight = 0;            // RunCall calls not yet recorded with their result
    std::vector<json::Value> next_turn;  // pending inbox lists (dsh-agent)
    std::vector<json::Value> next_step;
    std::set<std::string, std::less<>> revisions_recorded;  // tools with a retrace/tool-revision this turn
  };
  State state_;
  int64_t repaired_ = 0;
  size_t running_calls_ = 0;                            // RunCall coroutines alive
  CallGate gate_;                                       // RunCall's admission
  std::vector<std::shared_ptr<PendingCommit>> group_;  // the next group commit
  std::shared_ptr<asio::steady_timer> group_done_;     // cancelled when it is made
};

}  // namespace retrace::runtime

#endif  // RETRACE_ENGINE_RUNTIME_SESSION_RECORDER_H_
