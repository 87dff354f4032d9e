#include "engine/log/turn_closers.h"

#include <optional>
#include <string>

#include "engine/log/event_types.h"

namespace retrace::log {
namespace {

using json::Value;

struct PendingCall {
  std::string call_id;
  Value step;                          // step of the assistant message that requested it
  std::optional<int64_t> call_seq;     // set once a tool/call was recorded
};

struct OpenTail {
  bool turn_open = false;
  Value turn;
  std::optional<Value> step;  // open step number
  std::vector<PendingCall> pending;
};

const Value& Field(const Value& data, std::string_view key) {
  static const Value kNull;
  const Value* v = data.Find(key);
  return v != nullptr ? *v : kNull;
}

void RegisterToolCalls(const Event& e, OpenTail& t) {
  const Value* content = e.data.Find("message") ? e.data.Find("message")->Find("content") : nullptr;
  if (content == nullptr || !content->is_array()) return;
  for (const Value& block : content->as_array()) {
    const Value* type = block.Find("type");
    const Value* id = block.Find("id");
    if (type != nullptr && type->is_string() && type->as_string() == "tool-call" && id != nullptr && id->is_string()) {
      t.pending.push_back({id->as_string(), Field(e.data, "step"), std::nullopt});
    }
  }
}

void ResolveResult(const Event& e, OpenTail& t) {
  const Value* m = e.data.Find("message");
  const Value* source = m != nullptr ? m->Find("source") : nullptr;
  const Value* call_id = source != nullptr ? source->Find("callId") : nullptr;
  if (call_id == nullptr || !call_id->is_string()) return;
  std::erase_if(t.pending, [&](const PendingCall& p) { return p.call_id == call_id->as_string(); });
}

OpenTail Scan(std::span<const Event> events) {
  OpenTail t;
  for (const Event& e : events) {
    if (e.type == log::kTurnStart) {
      t = OpenTail{true, Field(e.data, "turn"), std::nullopt, {}};
    } else if (e.type == log::kTurnEnd) {
      t = OpenTail{};
    } else if (e.type == log::kStepStart) {
      t.step = Field(e.data, "step");
    } else if (e.type == log::kStepEnd) {
      t.step.reset();
      t.pending.clear();
    } else if (e.type == log::kAssistantMessage) {
      RegisterToolCalls(e, t);
    } else if (e.type == log::kToolCall) {
      const Value& id = Field(e.data, "callId");
      for (auto& p : t.pending) {
        if (id.is_string() && p.call_id == id.as_string() && !p.call_seq) p.call_seq = e.seq;
      }
    } else if (e.type == log::kToolResult) {
      ResolveResult(e, t);
    }
  }
  return t;
}

Event ToolResultCloser(const PendingCall& p, const Value& turn, int64_t seq, int64_t time) {
  const bool recorded = p.call_seq.has_value();
  Value text = Value::MakeObject({{"type", "text"},
                                  {"text", std::string(recorded ? kToolOutcomeUnknownText : kToolNotStartedText)}});
  Value block = Value::MakeObject({{"type", "tool-result"},
                                   {"toolCallId", p.call_id},
                                   {"isError", true},
                                   {"content", Value::Array{std::move(text)}}});
  Value message = Value::MakeObject({{"id", "interrupted-tool-result-" + p.call_id + "-" + std::to_string(seq)},
                                     {"role", "user"},
                                     {"source", Value::MakeObject({{"kind", "tool"}, {"callId", p.call_id}})},
                                     {"content", Value::Array{std::move(block)}}});
  Value error = recorded ? Value::MakeObject({{"name", "ToolOutcomeUnknownError"}, {"code", "TOOL_OUTCOME_UNKNOWN"}})
                         : Value::MakeObject({{"name", "ToolNotStartedError"}, {"code", "TOOL_NOT_STARTED"}});
  Event e;
  e.type = log::kToolResult;
  e.seq = seq;
  e.time = time;
  e.data = Value::MakeObject({{"turn", turn}, {"step", p.step}, {"message", std::move(message)}, {"error", std::move(error)}});
  e.surface_op = SurfaceOp{};
  if (recorded) e.source_event_seqs = std::vector<int64_t>{*p.call_seq};
  return e;
}

}  // namespace

std::vector<Event> InterruptedTurnClosers(std::span<const Event> events) {
  std::vector<Event> out;
  if (events.empty()) return out;
  const OpenTail t = Scan(events);
  if (!t.turn_open) return out;
  int64_t seq = events.back().seq + 1;
  const int64_t time = events.back().time;
  for (const PendingCall& p : t.pending) out.push_back(ToolResultCloser(p, t.turn, seq++, time));
  if (t.step) {
    Event e{std::string(kStepEnd), seq++, time, Value::MakeObject({{"turn", t.turn}, {"step", *t.step}}), {}, {}, false};
    out.push_back(std::move(e));
  }
  Event end{std::string(kTurnEnd), seq++, time,
            Value::MakeObject({{"turn", t.turn}, {"reason", Value::MakeObject({{"kind", "interrupted"}})}}), {}, {}, false};
  out.push_back(std::move(end));
  return out;
}

}  // namespace retrace::log
