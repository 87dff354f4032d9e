#include "engine/replay/card_fold.h"

#include "engine/json/lenient.h"
#include "engine/log/event_types.h"
#include "engine/log/tool_arguments.h"
#include "engine/log/tool_events.h"

namespace retrace::replay {
using json::Value;

Value ParseLoggedArguments(std::string_view text) {
  return log::ParseToolArguments(text, log::NumberOverflow::kKeepText);
}

std::optional<std::pair<std::string, presenters::RecordedRevision>> ReadRevisionRecord(const log::Event& e) {
  const Value* tool = json::Get(&e.data, "tool");
  const Value* revision = json::Get(&e.data, "revision");
  const Value* schema = json::Get(&e.data, "schema");
  if (!tool || !tool->is_string() || !revision || !revision->is_number() || !schema || !schema->is_string()) {
    return std::nullopt;
  }
  const double r = revision->as_number();
  if (!(r >= 1 && r <= 1e6) || r != static_cast<double>(static_cast<int>(r))) return std::nullopt;
  return std::pair{tool->as_string(), presenters::RecordedRevision{static_cast<int>(r), schema->as_string()}};
}

void CardFold::Add(log::Event&& e) {
  if (e.type == log::kTurnStart) {
    records_.clear();
  } else if (e.type == log::kToolRevision) {
    if (auto record = ReadRevisionRecord(e)) {
      records_.insert_or_assign(std::move(record->first), std::move(record->second));
    }
  } else if (e.type == log::kAssistantMessage) {
    const Value* content = json::Get(json::Get(&e.data, "message"), "content");  // const: never unshares
    if (!content || !content->is_array()) return;
    for (const Value& block : content->as_array()) {
      if (json::Str(json::Get(block, "type")) == "tool-call") {
        asked_[json::Str(json::Get(block, "id"))] = {json::Str(json::Get(block, "name")),
                                                     json::Str(json::Get(block, "arguments"))};
      }
    }
  } else if (const std::optional<log::ToolCallView> requested = log::ReadToolCall(e)) {
    PresentedCall call{.call_id = std::string(requested->call_id),
                       .name = std::string(requested->name),
                       .args = ParseLoggedArguments(requested->arguments),
                       .seq = e.seq};
    if (!records_.empty()) {
      if (auto r = records_.find(call.name); r != records_.end()) call.recorded = r->second;
    }
    asked_.erase(call.call_id);  // its result will find the call: the request's text is not needed
    const size_t index = next_index_++;
    open_by_id_[call.call_id] = index;
    open_.emplace(index, std::move(call));
  } else if (const std::optional<log::ToolResultView> result = log::ReadToolResult(e)) {
    if (!result->append) return;  // replacements (e.g. compaction pruning) are model-only: no card
    const std::string call_id(result->call_id);
    size_t index = 0;
    PresentedCall call;
    if (auto it = open_by_id_.find(call_id); it != open_by_id_.end()) {
      index = it->second;
      open_by_id_.erase(it);
      auto open = open_.find(index);
      call = std::move(open->second);
      open_.erase(open);
    } else {  // a result without a call: named from the assistant's request
      ++results_without_call_;
      std::pair<std::string, std::string> asked;  // (name, arguments); none when never requested
      if (auto a = asked_.find(call_id); a != asked_.end()) {
        asked = std::move(a->second);
        asked_.erase(a);
      }
      index = next_index_++;
      call = {
          .call_id = call_id, .name = std::move(asked.first), .args = ParseLoggedArguments(asked.second), .seq = e.seq};
    }
    call.has_result = true;
    call.result_seq = e.seq;
    call.is_error = result->is_error;
    static const Value::Array kNoContent;
    Present(index, std::move(call), result->content ? &result->content->as_array() : &kNoContent, result->meta);
  }
}

Value CardFold::CurrentArguments(std::string_view tool, Value args) const {
  const presenters::ToolPresenter* p = presenters_.Find(tool);
  if (!p || !p->revisions) return args;
  auto record = records_.find(tool);
  presenters::Upcasted up =
      presenters::Upcast(*p->revisions, args, nullptr, record != records_.end() ? &record->second : nullptr);
  return up.arguments ? *std::move(up.arguments) : args;
}

void CardFold::Finish() {
  std::map<size_t, PresentedCall> open = std::move(open_);
  open_.clear();
  open_by_id_.clear();
  for (auto& [index, call] : open) Present(index, std::move(call), nullptr, nullptr);
}

bool CardFold::CarryForward(const presenters::ToolPresenter& p, PresentedCall& call, bool has_result,
                            const Value*& meta) {
  call.upcast = presenters::Upcast(*p.revisions, call.args, meta, call.recorded ? &*call.recorded : nullptr);
  presenters::Upcasted& up = *call.upcast;
  if (up.how == presenters::UpcastHow::kThrew || up.how == presenters::UpcastHow::kInvalidStep) {
    // The generic card, as for arguments that fail the schema.
    call.pending_how = presenters::Presented::kInvalidArguments;
    if (has_result) call.result_how = presenters::Presented::kInvalidArguments;
    call.detail = up.detail;
    return false;
  }
  if (up.arguments) call.args = *std::move(up.arguments);
  up.arguments.reset();
  if (up.meta) meta = &*up.meta;  // released once presented (Present)
  return true;
}

void CardFold::Present(size_t index, PresentedCall call, const Value::Array* content, const Value* meta) {
  const presenters::ToolPresenter* p = presenters_.Find(call.name);
  if (p) call.presenter_version = p->version;
  if (p && (!p->revisions || CarryForward(*p, call, content != nullptr, meta))) {
    presenters::PresentOutcome pending = presenters::PresentCallOutcome(*p, call.args);
    call.pending = std::move(pending.view);
    call.pending_how = pending.how;
    call.detail = std::move(pending.detail);
    if (content) {
      presenters::PresentOutcome shown =
          presenters::PresentResultOutcome(*p, call.args, {*content, call.is_error, meta});
      call.result = std::move(shown.view);
      call.result_how = shown.how;
      if (call.detail.empty()) call.detail = std::move(shown.detail);
    }
    if (call.upcast) call.upcast->meta.reset();  // presented: nothing holds a result's meta longer
  }
  if (content && !call.result) call.fallback_result = presenters::FallbackResult(ShownPending(call), *content);
  emit_(index, std::move(call));
}

Value ShownPending(const PresentedCall& call) {
  return call.pending ? *call.pending : presenters::FallbackCall(call.name, call.args);
}

}  // namespace retrace::replay
