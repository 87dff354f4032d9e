#include "engine/replay/conversation.h"

#include "engine/json/lenient.h"
#include "engine/log/event_types.h"
#include "engine/replay/cards.h"

namespace retrace::replay {
namespace {

using json::Get;
using json::Str;
using json::Value;

// The text blocks of a content array, joined by blank lines.
std::string JoinedText(const Value* content, std::string_view type = "text") {
  std::string out;
  if (!content || !content->is_array()) return out;
  for (const Value& block : content->as_array()) {
    if (Str(Get(block, "type")) != type) continue;
    if (!out.empty()) out += "\n\n";
    out += Str(Get(block, "text"));
  }
  return out;
}

Value Row(int64_t seq, std::string_view kind) { return Value::MakeObject({{"seq", seq}, {"kind", kind}}); }

}  // namespace

std::optional<Value> MessageRow(const log::Event& e) {
  if (e.surface_op && e.surface_op->kind != log::SurfaceOp::Kind::kAppend) return std::nullopt;
  if (e.type == log::kUserMessage) {
    const Value* source = Get(e.data, "source");
    const std::string kind = Str(source ? Get(*source, "kind") : nullptr);
    Value row = Row(e.seq, kind == "user" ? "prompt" : "context");
    if (kind != "user") {
      row.Set("source", kind);
      for (const char* key : {"plugin", "form", "summary"}) {
        if (const Value* v = source ? Get(*source, key) : nullptr) row.Set(key, *v);
      }
    }
    row.Set("text", JoinedText(Get(e.data, "content")));
    return row;
  }
  if (e.type == log::kAssistantMessage) {
    const Value* message = Get(e.data, "message");
    const Value* content = message ? Get(*message, "content") : nullptr;
    const std::string reasoning = JoinedText(content, "reasoning"), text = JoinedText(content);
    if (reasoning.empty() && text.empty()) return std::nullopt;
    Value row = Row(e.seq, "assistant");
    if (!reasoning.empty()) row.Set("reasoning", reasoning);
    if (!text.empty()) row.Set("text", text);
    if (const Value* interrupted = Get(e.data, "interrupted")) row.Set("interrupted", *interrupted);
    return row;
  }
  return std::nullopt;
}

Value ToolRow(const PresentedCall& call) {
  Value row = Row(call.seq, "tool");
  row.Set("callId", call.call_id);
  row.Set("name", call.name);
  row.Set("args", call.args);
  row.Set("pending", call.pending ? *call.pending : ShownPending(call));
  row.Set("result", !call.has_result ? Value() : call.result ? *call.result : *call.fallback_result);
  row.Set("isError", call.has_result ? Value(call.is_error) : Value());
  return row;
}

bool ConversationNeeds(std::string_view type) { return CardsNeed(type) || type == log::kUserMessage; }

ConversationStream::ConversationStream(const presenters::PresenterSet& presenters, Emit emit)
    : emit_(std::move(emit)),
      fold_(std::make_unique<CardFold>(presenters, [this](size_t index, PresentedCall&& call) {
        Value row = ToolRow(call);
        auto slot = slot_of_call_.find(index);
        if (slot == slot_of_call_.end()) {  // presented by the event that made it: its slot comes next
          early_.emplace(index, std::move(row));
          return;
        }
        rows_[slot->second - first_] = std::move(row);
        slot_of_call_.erase(slot);
      })) {}

void ConversationStream::Add(log::Event&& e) {
  if (!ConversationNeeds(e.type)) return;
  if (std::optional<Value> row = MessageRow(e)) rows_.emplace_back(std::move(*row));
  if (!CardsNeed(e.type)) return Flush();
  const size_t before = fold_->calls();
  fold_->Add(std::move(e));
  for (size_t index = before; index < fold_->calls(); ++index) {  // this event made a card: its row goes here
    if (auto early = early_.find(index); early != early_.end()) {
      rows_.emplace_back(std::move(early->second));
      early_.erase(early);
    } else {
      slot_of_call_[index] = first_ + rows_.size();
      rows_.emplace_back(std::nullopt);
    }
  }
  Flush();
}

void ConversationStream::Finish() {
  fold_->Finish();
  Flush();
}

void ConversationStream::Flush() {
  while (!rows_.empty() && rows_.front()) {
    Value row = std::move(*rows_.front());
    rows_.pop_front();
    ++first_;
    emit_(std::move(row));
  }
}

}  // namespace retrace::replay
