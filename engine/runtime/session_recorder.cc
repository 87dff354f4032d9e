#include "engine/runtime/session_recorder.h"

#include <algorithm>
#include <chrono>

#include "engine/json/lenient.h"
#include "engine/log/event_types.h"
#include "engine/log/tool_arguments.h"
#include "engine/log/turn_closers.h"
#include "engine/runtime/tool_error.h"

namespace retrace::runtime {
namespace {

using json::Value;
using Stage = ToolRuntime::Stage;

int64_t Int(const Value& data, std::string_view key) { return json::SafeInt(data.Find(key)).value_or(0); }

// Applies one normalized splice (dsh-agent's Array.splice) to a pending list.
void ApplySplice(std::vector<Value>& list, const Value& data) {
  const size_t start = std::min<size_t>(static_cast<size_t>(std::max<int64_t>(Int(data, "start"), 0)), list.size());
  const size_t removed = std::min<size_t>(static_cast<size_t>(std::max<int64_t>(Int(data, "removedCount"), 0)),
                                          list.size() - start);
  list.erase(list.begin() + static_cast<ptrdiff_t>(start), list.begin() + static_cast<ptrdiff_t>(start + removed));
  if (const Value* inserted = data.Find("inserted"); inserted && inserted->is_array()) {
    list.insert(list.begin() + static_cast<ptrdiff_t>(start), inserted->as_array().begin(), inserted->as_array().end());
  }
}

Value TurnStepData(int turn, int step) { return Value::MakeObject({{"turn", turn}, {"step", step}}); }

}  // namespace

Value MakeUserMessage(Value::Array content, Value source, std::string id) {
  return Value::MakeObject(
      {{"content", Value(std::move(content))}, {"source", std::move(source)}, {"role", "user"}, {"id", std::move(id)}});
}

Result<std::unique_ptr<SessionRecorder>> SessionRecorder::Open(log::EventLog& log, const log::SessionHeader& header,
                                                               RecorderEnv env) {
  std::unique_ptr<SessionRecorder> rec(new SessionRecorder(log, header.id, std::move(env)));
  // Create, or continue what exists: asking first whether it exists would
  // race with another process creating it in between.
  Status created = log.CreateSession(header);
  if (created.code() == Status::Code::kAlreadyExists) {
    RETURN_IF_ERROR(rec->Resume());
    return rec;
  }
  RETURN_IF_ERROR(created);
  return rec;
}

Status SessionRecorder::Resume() {
  ASSIGN_OR_RETURN(std::vector<log::EventRecord> records, log_.Read(session_id_, 0));
  std::vector<log::Event> events;
  events.reserve(records.size());
  for (log::EventRecord& r : records) events.push_back(std::move(r.event));
  for (const log::Event& e : events) Fold(e);
  state_.next_seq = static_cast<int64_t>(events.size());
  std::vector<log::Event> closers = log::InterruptedTurnClosers(events);
  if (closers.empty()) return Status::Ok();
  std::vector<log::EventRecord> batch;
  for (log::Event& e : closers) {
    Fold(e);
    batch.push_back(log::MakeRecord(std::move(e), log::EnvelopeOrder::kRepairCloser));
  }
  RETURN_IF_ERROR(log_.Append(session_id_, state_.next_seq, batch).status());
  repaired_ = static_cast<int64_t>(batch.size());
  state_.next_seq += repaired_;
  return Status::Ok();
}

void SessionRecorder::Fold(const log::Event& e) {
  if (e.type == log::kTurnStart) {
    state_.turn = static_cast<int>(Int(e.data, "turn"));
    state_.step = 0;
    state_.in_turn = true;
    state_.revisions_recorded.clear();
  } else if (e.type == log::kToolRevision) {
    state_.revisions_recorded.insert(json::Str(json::Get(&e.data, "tool")));
  } else if (e.type == log::kTurnEnd) {
    state_.in_turn = state_.in_step = false;
  } else if (e.type == log::kStepStart) {
    state_.step = static_cast<int>(Int(e.data, "step"));
    state_.in_step = true;
  } else if (e.type == log::kStepEnd) {
    state_.in_step = false;
  } else if (e.type == log::kAgentInboxSpliced) {
    const Value* target = e.data.Find("target");
    const bool next_turn = target && target->is_string() && target->as_string() == "next-turn";
    ApplySplice(next_turn ? state_.next_turn : state_.next_step, e.data);
  }
}

log::Event SessionRecorder::NewEvent(std::string_view type, Value data, bool surface) {
  log::Event e;
  e.type = std::string(type);
  e.time = env_.now_ms();
  e.data = std::move(data);
  if (surface) e.surface_op = log::SurfaceOp{};
  return e;
}

Status SessionRecorder::Append(std::vector<log::Event> events) {
  std::lock_guard lock(mu_);
  std::vector<log::EventRecord> batch;
  batch.reserve(events.size());
  int64_t seq = state_.next_seq;
  for (log::Event& e : events) {
    e.seq = seq++;
    batch.push_back(log::MakeRecord(std::move(e)));
  }
  RETURN_IF_ERROR(log_.Append(session_id_, state_.next_seq, batch).status());
  for (const log::EventRecord& r : batch) Fold(r.event);
  state_.next_seq = seq;
  return Status::Ok();
}

log::Event SessionRecorder::Splice(const std::string& target, int64_t start, int64_t removed, Value::Array inserted) {
  Value data = Value::MakeObject({{"target", target}, {"start", start}});
  if (removed > 0) data.Set("removedCount", removed);
  data.Set("inserted", Value(std::move(inserted)));
  return NewEvent(log::kAgentInboxSpliced, std::move(data));
}

Status SessionRecorder::FollowUp(Value user_message) {
  std::lock_guard lock(mu_);
  Value::Array inserted;
  inserted.push_back(std::move(user_message));
  return Append({Splice("next-turn", static_cast<int64_t>(state_.next_turn.size()), 0, std::move(inserted))});
}

Status SessionRecorder::Inject(Value user_message) {
  std::lock_guard lock(mu_);
  Value::Array inserted;
  inserted.push_back(std::move(user_message));
  return Append({Splice("next-step", static_cast<int64_t>(state_.next_step.size()), 0, std::move(inserted))});
}

Status SessionRecorder::BeginTurn() {
  std::lock_guard lock(mu_);
  if (state_.in_turn) return Status::FailedPrecondition("turn " + std::to_string(state_.turn) + " is still open");
  return Append({NewEvent(log::kTurnStart, Value::MakeObject({{"turn", state_.turn + 1}}))});
}

std::vector<log::Event> SessionRecorder::OpenStepEvents(bool new_turn) {
  const int turn = new_turn ? state_.turn + 1 : state_.turn;
  const int step = new_turn ? 1 : state_.step + 1;
  std::vector<log::Event> events;
  if (new_turn) events.push_back(NewEvent(log::kTurnStart, Value::MakeObject({{"turn", turn}})));
  std::vector<Value> claimed = state_.next_step;
  if (!state_.next_step.empty()) events.push_back(Splice("next-step", 0, static_cast<int64_t>(state_.next_step.size()), {}));
  if (step == 1 && !state_.next_turn.empty()) {
    claimed.push_back(state_.next_turn.front());
    events.push_back(Splice("next-turn", 0, 1, {}));
  }
  events.push_back(NewEvent(log::kStepStart, TurnStepData(turn, step)));
  for (Value& m : claimed) events.push_back(NewEvent(log::kUserMessage, std::move(m), /*surface=*/true));
  return events;
}

Status SessionRecorder::BeginStep() {
  std::lock_guard lock(mu_);
  if (!state_.in_turn) return Status::FailedPrecondition("no open turn to begin a step in");
  if (state_.in_step) return Status::FailedPrecondition("step " + std::to_string(state_.step) + " is still open");
  return Append(OpenStepEvents(/*new_turn=*/false));
}

namespace {

Value AssistantData(int turn, int step, Value::Array content, const std::string& provider, const std::string& model,
                    std::string id) {
  Value message = Value::MakeObject({{"role", "assistant"},
                                     {"content", Value(std::move(content))},
                                     {"source", Value::MakeObject({{"kind", "model"}, {"provider", provider}, {"model", model}})},
                                     {"id", std::move(id)}});
  Value data = TurnStepData(turn, step);
  data.Set("message", std::move(message));
  return data;
}

}  // namespace

Status SessionRecorder::RecordAssistant(Value::Array content, const std::string& provider, const std::string& model,
                                        std::optional<Value> usage) {
  std::lock_guard lock(mu_);
  if (!state_.in_step) return Status::FailedPrecondition("no open step for an assistant message");
  Value data = AssistantData(state_.turn, state_.step, std::move(content), provider, model, env_.new_id());
  if (usage) data.Set("usage", std::move(*usage));
  log::Event e = NewEvent(log::kAssistantMessage, std::move(data), /*surface=*/true);
  e.source_event_seqs = std::vector<int64_t>{};  // no stream chunks were recorded
  return Append({std::move(e)});
}

log::Event SessionRecorder::ToolResultEvent(const std::string& call_id, int64_t call_seq, const ToolResult& result) {
  Value block = Value::MakeObject({{"type", "tool-result"},
                                   {"toolCallId", call_id},
                                   {"content", Value(result.content)},
                                   {"isError", result.is_error}});
  Value::Array blocks;
  blocks.push_back(std::move(block));
  Value message = Value::MakeObject({{"source", Value::MakeObject({{"kind", "tool"}, {"callId", call_id}})},
                                     {"content", Value(std::move(blocks))},
                                     {"role", "user"},
                                     {"id", env_.new_id()}});
  Value data = TurnStepData(state_.turn, state_.step);
  data.Set("message", std::move(message));
  if (result.error && result.error->info) {
    data.Set("error", Value::MakeObject({{"name", result.error->info->name}, {"code", result.error->info->code}}));
  }
  if (result.meta) data.Set("meta", *result.meta);
  log::Event e = NewEvent(log::kToolResult, std::move(data), /*surface=*/true);
  e.source_event_seqs = std::vector<int64_t>{call_seq};
  return e;
}

std::vector<log::Event> SessionRecorder::ResultEvents(const ModelToolCall& call, int64_t call_seq,
                                                      const ToolResult& result, const ToolDefinition* def) {
  std::vector<log::Event> events;
  events.push_back(ToolResultEvent(call.id, call_seq, result));
  if (env_.card_snapshots) events.push_back(CardSnapshot(call, result, def ? def->presenter.get() : nullptr));
  int64_t pending = static_cast<int64_t>(state_.next_step.size());
  for (const Value& context : result.additional_contexts) {
    Value::Array inserted;
    inserted.push_back(context);
    events.push_back(Splice("next-step", pending++, 0, std::move(inserted)));
  }
  return events;
}

log::Event SessionRecorder::CardSnapshot(const ModelToolCall& call, const ToolResult& result,
                                         const presenters::ToolPresenter* p) {
  const Value args = log::ParseToolArguments(call.arguments, log::NumberOverflow::kKeepText);
  std::optional<Value> pending, shown;
  if (p) {
    pending = presenters::PresentCall(*p, args);
    shown = presenters::PresentResult(*p, args, {result.content, result.is_error, result.meta ? &*result.meta : nullptr});
  }
  Value data = Value::MakeObject({{"callId", call.id}, {"tool", call.name}});
  data.Set("presenterVersion", p ? Value(p->version) : Value());
  data.Set("pending", pending ? std::move(*pending) : Value());
  data.Set("result", shown ? std::move(*shown) : Value());
  log::Event e = NewEvent(log::kCardSnapshot, std::move(data));
  e.ignorable = true;  // dsh readers skip it; retrace check reads it
  return e;
}

asio::awaitable<Result<BatchOutcome>> SessionRecorder::RunToolCalls(ToolRuntime& runtime,
                                                                     const std::vector<ModelToolCall>& calls,
                                                                     Signal turn_signal, ScopePtr agent,
                                                                     size_t max_parallel) {
  {
    std::lock_guard lock(mu_);
    if (!state_.in_step) co_return Status::FailedPrecondition("no open step for tool calls");
  }
  std::vector<ToolCallInput> inputs;
  inputs.reserve(calls.size());
  for (const ModelToolCall& c : calls) {
    inputs.push_back({c.id, std::nullopt, c.name, ParseModelArguments(c.arguments), agent, std::nullopt, turn_signal,
                      session_id_, LogOnlyAppender()});
  }
  std::vector<int64_t> call_seqs(calls.size(), -1);
  BatchOutcome outcome;
  BatchHooks hooks;
  // The definition each call resolves to, for its card snapshot.
  std::vector<ToolDefinitionPtr> defs(calls.size());
  hooks.on_start = [&](size_t i) {
    std::lock_guard lock(mu_);
    std::vector<log::Event> events;
    if (env_.card_snapshots) {
      defs[i] = runtime.registry().Get(calls[i].name, agent);
      if (std::optional<log::Event> record = RevisionRecord(defs[i].get())) events.push_back(std::move(*record));
    }
    call_seqs[i] = state_.next_seq + static_cast<int64_t>(events.size());
    Value data = TurnStepData(state_.turn, state_.step);
    data.Set("callId", calls[i].id);
    data.Set("name", calls[i].name);
    data.Set("arguments", calls[i].arguments);
    events.push_back(NewEvent(log::kToolCall, std::move(data)));
    return Append(std::move(events));
  };
  hooks.on_commit = [&](size_t i, const ToolResultPtr& result) {
    std::lock_guard lock(mu_);
    std::vector<log::Event> events = ResultEvents(calls[i], call_seqs[i], *result, defs[i].get());
    outcome.concludes_turn = outcome.concludes_turn || (!result->is_error && result->concludes_turn);
    outcome.errors += result->is_error;
    return Append(std::move(events));
  };
  Status st = co_await RunBatch(runtime, std::move(inputs), max_parallel, turn_signal, std::move(hooks));
  if (!st.ok()) co_return st;
  outcome.cancelled = turn_signal.aborted();
  co_return outcome;
}

std::optional<log::Event> SessionRecorder::RevisionRecord(const ToolDefinition* def) {
  if (!env_.card_snapshots || !def || !def->presenter || state_.revisions_recorded.contains(def->name)) {
    return std::nullopt;
  }
  const presenters::ToolPresenter& p = *def->presenter;
  const int revision = p.revisions ? p.revisions->current : 1;
  log::Event e = NewEvent(log::kToolRevision,
                          Value::MakeObject({{"tool", def->name},
                                             {"revision", Value(static_cast<int64_t>(revision))},
                                             {"schema", presenters::SchemaFingerprint(p.parameters)}}));
  e.ignorable = true;  // dsh readers skip it; replay reads it
  return e;
}

int64_t SessionRecorder::EmitCallStart(const LooseCall& loose, const ToolDefinition* def, const Emit& emit,
                                       std::optional<int64_t> at) {
  auto stamped = [&](std::vector<log::Event> events) {
    if (at) {
      for (log::Event& e : events) e.time = *at;
    }
    emit(std::move(events));
  };
  if (!state_.in_step) stamped(OpenStepEvents(/*new_turn=*/!state_.in_turn));  // folded: state_.turn and state_.step now name it
  const ModelToolCall& call = loose.call;
  Value::Array blocks;
  blocks.push_back(Value::MakeObject(
      {{"type", "tool-call"}, {"id", call.id}, {"name", call.name}, {"arguments", call.arguments}}));
  log::Event asked = NewEvent(log::kAssistantMessage,
                              AssistantData(state_.turn, state_.step, std::move(blocks), loose.provider, loose.model, env_.new_id()),
                              /*surface=*/true);
  asked.source_event_seqs = std::vector<int64_t>{};
  Value data = TurnStepData(state_.turn, state_.step);
  data.Set("callId", call.id);
  data.Set("name", call.name);
  data.Set("arguments", call.arguments);
  std::vector<log::Event> events;
  if (std::optional<log::Event> record = RevisionRecord(def)) events.push_back(std::move(*record));
  events.push_back(std::move(asked));
  events.push_back(NewEvent(log::kToolCall, std::move(data)));
  const int64_t call_seq = state_.next_seq + static_cast<int64_t>(events.size()) - 1;  // the last of them
  stamped(std::move(events));
  return call_seq;
}

namespace {

// A tool that declares it changes nothing and reaches nothing outside
// (ToolHints) has no side effect for a durable tool/call to precede.
bool SideEffectFree(const ToolDefinition* def) {
  return def && def->hints && def->hints->read_only && !def->hints->open_world;
}

}  // namespace

// Bounds a group commit's transaction (and the wait of its first member).
constexpr size_t kMaxGroup = 64;
// How often a group's first member yields for the others (each a trip
// through the executor's queue, about a microsecond).
constexpr int kMaxRounds = 32;

struct SessionRecorder::PendingCommit {
  Builder build;
  Status status;
  bool done = false;
};

asio::awaitable<Status> SessionRecorder::Commit(Builder build) {
  auto mine = std::make_shared<PendingCommit>();
  mine->build = std::move(build);
  auto executor = co_await asio::this_coro::executor;
  if (group_.empty()) {  // the leader of a new group
    group_.push_back(mine);
    group_done_ = std::make_shared<asio::steady_timer>(executor, std::chrono::steady_clock::time_point::max());
    // While other calls are running, give those about to commit a moment to
    // join: yield to them (a bounded number of times) until every running
    // call is in the group — those still waiting at the gate aside, but not
    // one it has just let in, whose tool/call is about to be recorded. A
    // call running alone commits at once.
    for (int round = 0; round < kMaxRounds && group_.size() + gate_.waiting() < running_calls_ && group_.size() < kMaxGroup;
         ++round) {
      co_await asio::post(executor, asio::use_awaitable);
    }
    std::vector<std::shared_ptr<PendingCommit>> group;
    group.swap(group_);
    std::shared_ptr<asio::steady_timer> done = std::move(group_done_);
    const Status st = CommitGroup(group);
    for (const std::shared_ptr<PendingCommit>& p : group) {
      p->status = st;
      p->done = true;
    }
    done->cancel();
    co_return st;
  }
  group_.push_back(mine);
  std::shared_ptr<asio::steady_timer> done = group_done_;
  while (!mine->done) {
    boost::system::error_code ec;
    co_await done->async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
  co_return mine->status;
}

Status SessionRecorder::CommitGroup(const std::vector<std::shared_ptr<PendingCommit>>& group) {
  std::lock_guard lock(mu_);
  // Each builder sees the state the builders before it leave; should the
  // commit fail, the state goes back to what the store still holds.
  State saved = state_;
  const int64_t first = state_.next_seq;
  std::vector<log::EventRecord> batch;
  const Emit emit = [&](std::vector<log::Event> events) {
    for (log::Event& e : events) {
      e.seq = state_.next_seq++;
      Fold(e);
      batch.push_back(log::MakeRecord(std::move(e)));
    }
  };
  for (const std::shared_ptr<PendingCommit>& p : group) p->build(emit);
  Status st = log_.Append(session_id_, first, batch).status();
  if (!st.ok()) {
    state_ = std::move(saved);
  }
  return st;
}

asio::awaitable<Result<ToolResultPtr>> SessionRecorder::RunCall(ToolRuntime& runtime, LooseCall loose) {
  struct Running {
    explicit Running(size_t& n) : n_(n) { ++n_; }
    ~Running() { --n_; }
    size_t& n_;
  } running(running_calls_);
  const ModelToolCall& call = loose.call;
  int64_t call_seq = 0;
  const ToolDefinitionPtr def = runtime.registry().Get(call.name, loose.agent);
  const bool safe = runtime.IsConcurrencySafe({call.id, std::nullopt, call.name, ParseModelArguments(call.arguments),
                                               loose.agent, std::nullopt, loose.signal, session_id_});
  const int64_t asked_at = env_.now_ms();
  std::optional<CallGate::Pass> pass(co_await gate_.Enter(/*exclusive=*/!safe));
  // The tool/call is made durable before a body that may have side effects
  // runs; a side-effect-free call is recorded in one commit with its result,
  // its events stamped with the time it was asked.
  const bool record_first = !SideEffectFree(def.get());
  // In flight from here to its result: calls that overlap share a step.
  auto settle = [this] {
    std::lock_guard lock(mu_);
    --state_.loose_in_flight;
  };
  {
    std::lock_guard lock(mu_);
    ++state_.loose_in_flight;
  }
  if (record_first) {
    Status started = co_await Commit(
        [&](const Emit& emit) { call_seq = EmitCallStart(loose, def.get(), emit, std::nullopt); });
    if (!started.ok()) {
      settle();
      co_return started;
    }
  }

  ToolResultPtr result;
  if (loose.signal.aborted()) {
    result = std::make_shared<const ToolResult>(ToolResult::Failure(AbortedBeforeDispatchError()));
  } else {
    // A named input: GCC 12 mishandles a braced temporary inside a co_await expression.
    ToolCallInput input{call.id,     std::nullopt, call.name,   ParseModelArguments(call.arguments),
                        loose.agent, std::nullopt, loose.signal, session_id_, LogOnlyAppender()};
    Stage stage = co_await runtime.Prepare(std::move(input));
    if (stage.kind == Stage::Kind::kDispatch) {
      stage = co_await runtime.Dispatch(stage.exec);
    }
    result = runtime.Complete(std::move(stage));
  }
  // The body is done: the next call may start. One that was waiting for this
  // one records its tool/call in the commit of this one's result.
  pass.reset();

  Status recorded = co_await Commit([&](const Emit& emit) {
    --state_.loose_in_flight;
    // Folded first: the result names its step.
    if (!record_first) call_seq = EmitCallStart(loose, def.get(), emit, asked_at);
    std::vector<log::Event> events = ResultEvents(call, call_seq, *result, def.get());
    if (loose.notes) {
      for (auto& [type, data] : loose.notes(*result)) {
        log::Event e = NewEvent(type, std::move(data));
        e.ignorable = true;
        events.push_back(std::move(e));
      }
    }
    if (state_.loose_in_flight == 0) events.push_back(NewEvent(log::kStepEnd, TurnStepData(state_.turn, state_.step)));
    emit(std::move(events));
  });
  if (!recorded.ok()) {
    settle();  // the failed commit undid the builder's
    co_return recorded;
  }
  co_return result;
}

std::function<Status(std::string_view, Value)> SessionRecorder::LogOnlyAppender() {
  return [this](std::string_view type, Value data) {
    std::lock_guard lock(mu_);
    return Append({NewEvent(type, std::move(data))});
  };
}

Status SessionRecorder::Note(std::string_view type, Value data) {
  std::lock_guard lock(mu_);
  log::Event e = NewEvent(type, std::move(data));
  e.ignorable = true;
  return Append({std::move(e)});
}

Status SessionRecorder::EndStep() {
  std::lock_guard lock(mu_);
  if (!state_.in_step) return Status::FailedPrecondition("no open step to end");
  return Append({NewEvent(log::kStepEnd, TurnStepData(state_.turn, state_.step))});
}

Status SessionRecorder::EndTurn(Value reason) {
  std::lock_guard lock(mu_);
  if (!state_.in_turn) return Status::FailedPrecondition("no open turn to end");
  std::vector<log::Event> events;
  if (state_.in_step) events.push_back(NewEvent(log::kStepEnd, TurnStepData(state_.turn, state_.step)));
  events.push_back(NewEvent(log::kTurnEnd, Value::MakeObject({{"turn", state_.turn}, {"reason", std::move(reason)}})));
  return Append(std::move(events));
}

}  // namespace retrace::runtime

