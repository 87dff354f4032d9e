#include "engine/log/session_checker.h"

#include "engine/log/event_types.h"
#include "engine/log/message_shape.h"

namespace retrace::log {

std::string UnknownEventTypeMessage(std::string_view id, std::string_view type, int64_t seq) {
  return "session \"" + std::string(id) + "\" contains event type \"" + std::string(type) + "\" (seq " +
         std::to_string(seq) +
         ") unknown to this harness and not marked ignorable; refusing to interpret the log — it was "
         "likely written by a newer harness";
}

Status SessionChecker::Check(const Event& e) {
  if (e.seq != next_seq_) {
    return Status::Corruption("event at index " + std::to_string(next_seq_) + " has seq " + std::to_string(e.seq) +
                              " (expected " + std::to_string(next_seq_) + "); a log must be contiguous from 0");
  }
  if (!e.ignorable && !IsKnownEventType(e.type)) {
    return Status::Corruption(UnknownEventTypeMessage(session_id_, e.type, e.seq));
  }
  RETURN_IF_ERROR(CheckEnvelopeRules(e));
  RETURN_IF_ERROR(CheckMessageShape(e));
  RETURN_IF_ERROR(fold_.Apply(e));
  ++next_seq_;
  return Status::Ok();
}

}  // namespace retrace::log
