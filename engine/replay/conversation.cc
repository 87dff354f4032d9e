#include "engine/replay/conversation.h"

#include "engine/json/lenient.h"
#include "engine/log/event_types.h"
#include "engine/log/tool_events.h"
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

bool TranscriptNeeds(std::string_view type) {
  return ConversationNeeds(type) || type == log::kTurnStart || type == log::kTurnEnd ||
         type.substr(0, 11) == "compaction/" || type == log::kToolCodeDispatch;
}

ConversationStream::ConversationStream(const presenters::PresenterSet& presenters, Emit emit,
                                       const log::SurfaceFold* surface)
    : emit_(std::move(emit)),
      surface_(surface),
      fold_(std::make_unique<CardFold>(presenters, [this](size_t index, PresentedCall&& call) {
        Value row = ToolRow(call);
        if (surface_) {
          // A call is in context while its result is on the surface.
          row.Set("inContext", call.has_result && surface_->Classify(call.result_seq) == log::SurfaceClass::kCurrent);
          if (auto subs = sub_calls_.find(call.call_id); subs != sub_calls_.end()) {
            row.Set("subCalls", Value(std::move(subs->second)));
            sub_calls_.erase(subs);
          }
        }
        auto slot = slot_of_call_.find(index);
        if (slot == slot_of_call_.end()) {  // presented by the event that made it: its slot comes next
          early_.emplace(index, std::move(row));
          return;
        }
        rows_[slot->second - first_] = std::move(row);
        slot_of_call_.erase(slot);
      })) {}

void ConversationStream::Add(log::Event&& e) {
  if (!(surface_ ? TranscriptNeeds(e.type) : ConversationNeeds(e.type))) return;
  if (surface_) AddStructure(e);
  if (std::optional<Value> row = MessageRow(e)) {
    MarkContext(*row, e.seq);
    rows_.emplace_back(std::move(*row));
  }
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

void ConversationStream::AddStructure(const log::Event& e) {
  const bool append = !e.surface_op || e.surface_op->kind == log::SurfaceOp::Kind::kAppend;
  auto notice = [&](std::string text) {
    Value row = Row(e.seq, "notice");
    row.Set("text", std::move(text));
    rows_.emplace_back(std::move(row));
  };
  if (e.type == log::kTurnStart || e.type == log::kTurnEnd) {
    Value row = Row(e.seq, e.type == log::kTurnStart ? "turn" : "turn-end");
    row.Set("turn", Get(e.data, "turn") ? *Get(e.data, "turn") : Value());
    if (e.type == log::kTurnEnd) {
      const Value* reason = Get(e.data, "reason");
      row.Set("reason", Str(reason ? Get(*reason, "kind") : nullptr));
    }
    rows_.emplace_back(std::move(row));
  } else if (e.type == log::kUserMessage && !append) {  // a compaction checkpoint replaces earlier rows for the model only
    notice("Earlier context was compacted into a summary.");
  } else if (e.type == log::kToolResult && !append) {
    notice("A tool result was pruned from the model context.");
  } else if (e.type == log::kCompactionSummary) {
    const Value* seqs = Get(e.data, "shadowedSeqs");
    notice("Context compacted: " + std::to_string(seqs && seqs->is_array() ? seqs->as_array().size() : 0) +
           " events summarized.");
  } else if (e.type == log::kToolCodeDispatch) {
    // Shown under the run_code call they ran in, whose result comes after them.
    const std::string name = Str(Get(e.data, "name"));
    Value args = Get(e.data, "arguments") ? fold_->CurrentArguments(name, *Get(e.data, "arguments")) : Value();
    Value sub = Value::MakeObject({{"subCallId", Str(Get(e.data, "subCallId"))},
                                   {"name", name},
                                   {"args", std::move(args)},
                                   {"isError", Get(e.data, "isError") ? *Get(e.data, "isError") : Value(false)},
                                   {"content", Get(e.data, "content") ? *Get(e.data, "content") : Value(Value::Array{})}});
    sub_calls_[Str(Get(e.data, "rootCallId"))].push_back(std::move(sub));
  }
}

void ConversationStream::MarkContext(Value& row, int64_t seq) const {
  if (surface_) row.Set("inContext", surface_->Classify(seq) == log::SurfaceClass::kCurrent);
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
