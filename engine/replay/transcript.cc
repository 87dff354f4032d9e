#include "engine/replay/transcript.h"

#include "engine/json/lenient.h"
#include "engine/json/writer.h"
#include "engine/log/event_types.h"
#include "engine/log/tool_events.h"
#include "engine/replay/conversation.h"

namespace retrace::replay {
namespace {

using json::Value;

Value Row(int64_t seq, std::string_view kind) { return Value::MakeObject({{"seq", seq}, {"kind", kind}}); }

}  // namespace

bool TranscriptNeeds(std::string_view type) {
  return CardsNeed(type) || type == log::kUserMessage || type == log::kTurnStart || type == log::kTurnEnd ||
         type.substr(0, 11) == "compaction/" || type.substr(0, 18) == log::kToolCodeDispatch;
}

void TranscriptBuilder::Add(log::Event&& e) {
  if (!TranscriptNeeds(e.type)) return;
  (void)fold_.Apply(e);  // a log the store accepted folds; a damaged one still renders what it can
  const bool append = !e.surface_op || e.surface_op->kind == log::SurfaceOp::Kind::kAppend;
  if (e.type == log::kTurnStart) {
    Value row = Row(e.seq, "turn");
    row.Set("turn", Get(e.data, "turn") ? *Get(e.data, "turn") : Value());
    rows_.push_back(std::move(row));
  } else if (e.type == log::kTurnEnd) {
    Value row = Row(e.seq, "turn-end");
    row.Set("turn", Get(e.data, "turn") ? *Get(e.data, "turn") : Value());
    const Value* reason = Get(e.data, "reason");
    row.Set("reason", Str(reason ? Get(*reason, "kind") : nullptr));
    rows_.push_back(std::move(row));
  } else if (e.type == log::kUserMessage && !append) {  // a compaction checkpoint replaces earlier rows for the model only
    Value row = Row(e.seq, "notice");
    row.Set("text", "Earlier context was compacted into a summary.");
    rows_.push_back(std::move(row));
    return;
  } else if (std::optional<Value> message = MessageRow(e)) {
    rows_.push_back(std::move(*message));
  } else if (const std::optional<log::ToolCallView> call = log::ReadToolCall(e)) {
    const std::string id(call->call_id);
    tool_rows_[id] = rows_.size();
    Value row = Row(e.seq, "tool");
    row.Set("callId", id);
    rows_.push_back(std::move(row));
  } else if (e.type == log::kToolResult && append) {
    const std::optional<log::ToolResultView> result = log::ReadToolResult(e);
    const std::string id(result ? result->call_id : std::string_view());
    result_seqs_[id] = e.seq;
    if (!tool_rows_.count(id)) {  // a result without a call
      tool_rows_[id] = rows_.size();
      Value row = Row(e.seq, "tool");
      row.Set("callId", id);
      rows_.push_back(std::move(row));
    }
  } else if (e.type == log::kToolResult) {
    Value row = Row(e.seq, "notice");
    row.Set("text", "A tool result was pruned from the model context.");
    rows_.push_back(std::move(row));
  } else if (e.type == log::kCompactionSummary) {
    const Value* seqs = Get(e.data, "shadowedSeqs");
    Value row = Row(e.seq, "notice");
    row.Set("text", "Context compacted: " + std::to_string(seqs && seqs->is_array() ? seqs->as_array().size() : 0) +
                        " events summarized.");
    rows_.push_back(std::move(row));
  } else if (e.type == log::kToolCodeDispatch) {
    Value sub = Value::MakeObject({{"subCallId", Str(Get(e.data, "subCallId"))},
                                   {"name", Str(Get(e.data, "name"))},
                                   {"args", Get(e.data, "arguments") ? *Get(e.data, "arguments") : Value()},
                                   {"isError", Get(e.data, "isError") ? *Get(e.data, "isError") : Value(false)},
                                   {"content", Get(e.data, "content") ? *Get(e.data, "content") : Value(Value::Array{})}});
    sub_calls_[Str(Get(e.data, "rootCallId"))].push_back(std::move(sub));
  }
  if (CardsNeed(e.type)) cards_.Add(std::move(e));
}

Value TranscriptBuilder::Finish() {
  // Cards by call id, in the card builder's own order.
  std::map<std::string, const Value*> cards;
  const Value doc = cards_.Finish();
  for (const Value& card : doc.Find("calls")->as_array()) cards[card.Find("callId")->as_string()] = &card;

  Value::Array rows;
  rows.reserve(rows_.size());
  for (const Value& stored : rows_) {
    Value row = stored;
    const std::string kind = row.Find("kind")->as_string();
    const int64_t seq = static_cast<int64_t>(row.Find("seq")->as_number());
    if (kind == "tool") {
      const std::string id = row.Find("callId")->as_string();
      if (auto it = cards.find(id); it != cards.end()) {
        const Value& card = *it->second;
        for (const char* key : {"name", "args"}) row.Set(key, *card.Find(key));
        row.Set("pending", *card.Find("display")->Find("pending"));
        row.Set("result", *card.Find("display")->Find("result"));
        row.Set("isError", *card.Find("isError"));
      }
      auto result = result_seqs_.find(id);
      row.Set("inContext", result != result_seqs_.end() &&
                               fold_.Classify(result->second) == log::SurfaceClass::kCurrent);
      if (auto subs = sub_calls_.find(id); subs != sub_calls_.end()) row.Set("subCalls", Value(subs->second));
    } else if (kind == "prompt" || kind == "context" || kind == "assistant") {
      row.Set("inContext", fold_.Classify(seq) == log::SurfaceClass::kCurrent);
    }
    rows.push_back(std::move(row));
  }
  return Value::MakeObject({{"sessionId", session_id_}, {"rows", Value(std::move(rows))}});
}

}  // namespace retrace::replay
