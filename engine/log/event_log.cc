#include "engine/log/event_log.h"

namespace retrace::log {

EventRecord MakeRecord(Event event, EnvelopeOrder order) {
  std::string text = SerializeEvent(event, order);
  return EventRecord{std::move(event), std::move(text)};
}

Status CheckBatchSeqs(std::string_view session_id, int64_t expected_next_seq, int64_t next_seq,
                      std::span<const EventRecord> batch) {
  const std::string who = "session \"" + std::string(session_id) + "\"";
  if (batch.empty()) return Status::InvalidArgument("append to " + who + ": empty batch");
  for (size_t i = 0; i < batch.size(); ++i) {
    const int64_t want = expected_next_seq + static_cast<int64_t>(i);
    if (batch[i].event.seq != want) {
      return Status::InvalidArgument("append seq mismatch for " + who + ": expected " + std::to_string(want) +
                                     " at index " + std::to_string(i) + ", got " +
                                     std::to_string(batch[i].event.seq));
    }
  }
  if (expected_next_seq > next_seq) {
    return Status::InvalidArgument("append gap for " + who + ": the log ends before seq " +
                                   std::to_string(next_seq) + ", the batch starts at seq " +
                                   std::to_string(expected_next_seq));
  }
  return Status::Ok();
}

}  // namespace retrace::log
