#include "engine/replay/cards.h"

#include "engine/json/parser.h"

namespace retrace::replay {
namespace {

using json::Value;

const Value* Get(const Value& obj, std::string_view key) { return obj.is_object() ? obj.Find(key) : nullptr; }

std::string Str(const Value* v) { return v && v->is_string() ? v->as_string() : std::string(); }

}  // namespace

bool CardsNeed(std::string_view type) {
  return type == "tool/call" || type == "tool/result" || type == "assistant/message";
}

Value ParseLoggedArguments(std::string_view text) {
  if (text.empty()) return Value::MakeObject();
  Result<Value> parsed = json::Parse(text);
  return parsed.ok() ? std::move(parsed).value() : Value(text);
}

void CardBuilder::Add(const log::Event& e) {
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
    const Value* message = Get(e.data, "message");
    const Value* content = message ? Get(*message, "content") : nullptr;
    if (!content || !content->is_array() || content->as_array().empty()) return;
    const Value& block = content->as_array()[0];
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
    const Value* inner = Get(block, "content");
    call.content = inner && inner->is_array() ? inner->as_array() : Value::Array{};
    const Value* is_error = Get(block, "isError");
    call.is_error = is_error && is_error->is_bool() && is_error->as_bool();
    if (const Value* meta = Get(e.data, "meta")) call.meta = *meta;
  }
}

Value CardBuilder::CardOf(const Call& call) const {
  const presenters::ToolPresenter* p = presenters_.Find(call.name);
  std::optional<Value> pending = p ? presenters::PresentCall(*p, call.args) : std::nullopt;
  std::optional<Value> result;
  if (p && call.has_result) {
    presenters::DurableResult durable{call.content, call.is_error, call.meta ? &*call.meta : nullptr};
    result = presenters::PresentResult(*p, call.args, durable);
  }
  Value shown_pending = pending ? *pending : presenters::FallbackCall(call.name, call.args);
  Value shown_result = !call.has_result ? Value() : result ? *result : presenters::FallbackResult(shown_pending, call.content);
  return Value::MakeObject({
      {"callId", call.call_id},
      {"name", call.name},
      {"args", call.args},
      {"pending", pending ? std::move(*pending) : Value()},
      {"result", result ? std::move(*result) : Value()},
      {"isError", call.has_result ? Value(call.is_error) : Value()},
      {"display", Value::MakeObject({{"pending", std::move(shown_pending)}, {"result", std::move(shown_result)}})},
  });
}

Value CardBuilder::Finish() const {
  Value::Array cards;
  cards.reserve(calls_.size());
  for (const Call& call : calls_) cards.push_back(CardOf(call));
  return Value::MakeObject({{"sessionId", session_id_}, {"calls", Value(std::move(cards))}});
}

}  // namespace retrace::replay
