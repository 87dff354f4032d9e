#include "engine/replay/cards.h"
#include "engine/replay/json_access.h"

#include "engine/json/parser.h"
#include "engine/json/writer.h"

namespace retrace::replay {
namespace {

using json::Value;



}  // namespace

bool CardsNeed(std::string_view type) {
  return type == "tool/call" || type == "tool/result" || type == "assistant/message";
}

Value ParseLoggedArguments(std::string_view text) {
  if (text.empty()) return Value::MakeObject();
  Result<Value> parsed = json::Parse(text);
  return parsed.ok() ? std::move(parsed).value() : Value(text);
}

void CardBuilder::Add(log::Event&& e) {
  if (e.type == "assistant/message") {
    const Value* content = Get(e.data, "message") ? Get(*Get(e.data, "message"), "content") : nullptr;
    if (!content || !content->is_array()) return;
    for (const Value& block : content->as_array()) {
      if (Str(Get(block, "type")) == "tool-call") {
        asked_[Str(Get(block, "id"))] = {Str(Get(block, "name")), Str(Get(block, "arguments"))};
      }
    }
  } else if (e.type == "tool/call") {
    Call call{Str(Get(e.data, "callId")), Str(Get(e.data, "name")), ParseLoggedArguments(Str(Get(e.data, "arguments")))};
    open_[call.call_id] = calls_.size();
    calls_.push_back(std::move(call));
  } else if (e.type == "tool/result") {
    // Replacements (e.g. compaction pruning) are model-only: they make no card.
    if (e.surface_op && e.surface_op->kind != log::SurfaceOp::Kind::kAppend) return;
    Value* message = Get(e.data, "message");
    Value* content = message ? Get(*message, "content") : nullptr;
    if (!content || !content->is_array() || content->as_array().empty()) return;
    Value& block = content->as_array()[0];
    const std::string call_id = Str(Get(block, "toolCallId"));
    size_t index;
    if (auto it = open_.find(call_id); it != open_.end()) {
      index = it->second;
      open_.erase(it);
    } else {  // a result without a call: named from the assistant's request
      const auto& [name, arguments] = asked_[call_id];
      index = calls_.size();
      calls_.push_back({call_id, name, ParseLoggedArguments(arguments)});
    }
    Call& call = calls_[index];
    call.has_result = true;
    Value* inner = Get(block, "content");
    call.content = inner && inner->is_array() ? std::move(inner->as_array()) : Value::Array{};
    const Value* is_error = Get(block, "isError");
    call.is_error = is_error && is_error->is_bool() && is_error->as_bool();
    if (Value* meta = Get(e.data, "meta")) call.meta = std::move(*meta);
  }
}

CardBuilder::Views CardBuilder::ViewsOf(const Call& call) const {
  Views v;
  const presenters::ToolPresenter* p = presenters_.Find(call.name);
  if (p) v.pending = presenters::PresentCall(*p, call.args);
  if (p && call.has_result) {
    presenters::DurableResult durable{call.content, call.is_error, call.meta ? &*call.meta : nullptr};
    v.result = presenters::PresentResult(*p, call.args, durable);
  }
  return v;
}

Value CardBuilder::Finish() const {
  Value::Array cards;
  cards.reserve(calls_.size());
  for (const Call& call : calls_) {
    Views v = ViewsOf(call);
    Value shown_pending = v.pending ? *v.pending : presenters::FallbackCall(call.name, call.args);
    Value shown_result = !call.has_result ? Value()
                         : v.result      ? *v.result
                                         : presenters::FallbackResult(shown_pending, call.content);
    cards.push_back(Value::MakeObject({
        {"callId", call.call_id},
        {"name", call.name},
        {"args", call.args},
        {"pending", v.pending ? std::move(*v.pending) : Value()},
        {"result", v.result ? std::move(*v.result) : Value()},
        {"isError", call.has_result ? Value(call.is_error) : Value()},
        {"display", Value::MakeObject({{"pending", std::move(shown_pending)}, {"result", std::move(shown_result)}})},
    }));
  }
  return Value::MakeObject({{"sessionId", session_id_}, {"calls", Value(std::move(cards))}});
}

std::string CardBuilder::FinishText() const {
  std::string out = "{\"sessionId\":";
  json::AppendQuoted(out, session_id_);
  out += ",\"calls\":[";
  std::string pending, result;
  for (size_t i = 0; i < calls_.size(); ++i) {
    const Call& call = calls_[i];
    Views v = ViewsOf(call);
    const Value fallback_call = v.pending ? Value() : presenters::FallbackCall(call.name, call.args);
    const Value& shown_pending = v.pending ? *v.pending : fallback_call;
    pending = json::Serialize(shown_pending);
    if (!call.has_result) {
      result = "null";
    } else if (v.result) {
      result = json::Serialize(*v.result);
    } else {
      result = json::Serialize(presenters::FallbackResult(shown_pending, call.content));
    }
    if (i) out += ',';
    out += "{\"callId\":";
    json::AppendQuoted(out, call.call_id);
    out += ",\"name\":";
    json::AppendQuoted(out, call.name);
    out += ",\"args\":";
    json::AppendSerialized(out, call.args);
    out += ",\"pending\":";
    out += v.pending ? std::string_view(pending) : "null";
    out += ",\"result\":";
    out += v.result ? std::string_view(result) : "null";
    out += ",\"isError\":";
    out += !call.has_result ? "null" : call.is_error ? "true" : "false";
    out += ",\"display\":{\"pending\":" + pending + ",\"result\":" + result + "}}";
  }
  out += "]}";
  return out;
}

}  // namespace retrace::replay
