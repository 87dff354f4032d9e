#include "engine/log/upcaster.h"

#include "engine/log/event_types.h"
#include "engine/log/legacy_import.h"

namespace retrace::log {

std::span<const Upcaster::Step> Upcaster::Steps() {
  static const Step kSteps[] = {
      {1, "dsh legacy shapes (dsh-session-log §9.3): pre-react-loop turn events, steering messages, pre-identity messages"},
  };
  return kSteps;
}

Result<bool> Upcaster::Upcast(Event& event) {
  bool changed = false;
  if (IsLegacyShape(event)) {
    auto lookup = [this](int64_t seq) -> const std::string* {
      auto it = result_ids_.find(seq);
      return it == result_ids_.end() ? nullptr : &it->second;
    };
    ASSIGN_OR_RETURN(changed, ImportLegacy(event, session_id_, lookup));
  }
  if (event.type == log::kToolResult) {
    const json::Value* message = event.data.Find("message");
    const json::Value* id = message && message->is_object() ? message->Find("id") : nullptr;
    if (id && id->is_string()) result_ids_[event.seq] = id->as_string();
  }
  return changed;
}

}  // namespace retrace::log
