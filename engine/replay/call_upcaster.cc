#include "engine/replay/call_upcaster.h"

#include "engine/json/lenient.h"
#include "engine/json/writer.h"
#include "engine/log/event_types.h"
#include "engine/log/tool_events.h"
#include "engine/replay/card_fold.h"

namespace retrace::replay {
using json::Value;

const presenters::ToolPresenter* CallUpcaster::Revised(const std::string& tool) const {
  const presenters::ToolPresenter* p = presenters_.Find(tool);
  return p && p->revisions ? p : nullptr;
}

std::optional<Value> CallUpcaster::UpcastArguments(const std::string& tool, std::string_view text, const Value* meta,
                                                   std::optional<Value>* meta_out) const {
  const presenters::ToolPresenter* p = Revised(tool);
  if (!p) return std::nullopt;
  auto record = records_.find(tool);
  presenters::Upcasted up = presenters::Upcast(*p->revisions, ParseLoggedArguments(text), meta,
                                               record != records_.end() ? &record->second : nullptr);
  if (up.how != presenters::UpcastHow::kUpcast) return std::nullopt;
  if (meta_out) *meta_out = std::move(up.meta);
  return std::move(up.arguments);
}

bool CallUpcaster::Rewrite(log::Event& e) {
  if (e.type == log::kTurnStart) {
    records_.clear();
    return false;
  }
  if (e.type == log::kToolRevision) {
    auto record = ReadRevisionRecord(e);
    if (!record) return false;
    records_.insert_or_assign(record->first, record->second);
    const presenters::ToolPresenter* p = Revised(record->first);
    if (!p || record->second.revision == p->revisions->current) return false;
    e.data.Set("revision", Value(static_cast<int64_t>(p->revisions->current)));
    e.data.Set("schema", p->revisions->fingerprints.at(p->revisions->current));
    return true;
  }
  if (e.type == log::kAssistantMessage) {
    Value* content = e.data.is_object() && e.data.Find("message") ? e.data.Find("message") : nullptr;
    content = content && content->is_object() ? content->Find("content") : nullptr;
    if (!content || !content->is_array()) return false;
    bool changed = false;
    for (Value& block : content->as_array()) {
      if (json::Str(json::Get(block, "type")) != "tool-call") continue;
      const Value* args = json::Get(block, "arguments");
      if (!args || !args->is_string()) continue;
      if (auto upcast = UpcastArguments(json::Str(json::Get(block, "name")), args->as_string(), nullptr, nullptr)) {
        block.Set("arguments", json::Serialize(*upcast));
        changed = true;
      }
    }
    return changed;
  }
  if (const std::optional<log::ToolCallView> call = log::ReadToolCall(e)) {
    const std::string name(call->name), text(call->arguments), id(call->call_id);
    std::optional<Value> upcast = UpcastArguments(name, text, nullptr, nullptr);
    if (!upcast) return false;
    open_[id] = {name, text};
    e.data.Set("arguments", json::Serialize(*upcast));
    ++calls_upcast_;
    return true;
  }
  if (const std::optional<log::ToolResultView> result = log::ReadToolResult(e)) {
    auto open = open_.find(std::string(result->call_id));
    if (open == open_.end()) return false;
    const auto [name, text] = std::move(open->second);
    open_.erase(open);
    if (!result->meta) return false;
    std::optional<Value> meta;
    if (!UpcastArguments(name, text, result->meta, &meta) || !meta) return false;
    e.data.Set("meta", std::move(*meta));
    return true;
  }
  return false;
}

}  // namespace retrace::replay
