#include "engine/log/in_memory_event_log.h"

namespace retrace::log {

Result<InMemoryEventLog::Session*> InMemoryEventLog::Find(std::string_view session_id) {
  auto it = sessions_.find(session_id);
  if (it == sessions_.end()) return Status::NotFound("no session \"" + std::string(session_id) + "\"");
  return &it->second;
}

Status InMemoryEventLog::CreateSession(const SessionHeader& header) {
  if (sessions_.count(header.id) != 0) return Status::AlreadyExists("session \"" + header.id + "\" already exists");
  sessions_.emplace(header.id, Session{header, {}, SessionChecker(header.id)});
  return Status::Ok();
}

Result<SessionHeader> InMemoryEventLog::ReadHeader(std::string_view session_id) {
  ASSIGN_OR_RETURN(Session * s, Find(session_id));
  return s->header;
}

Result<AppendOutcome> InMemoryEventLog::Append(std::string_view session_id, int64_t expected_next_seq,
                                               std::span<const EventRecord> batch) {
  ASSIGN_OR_RETURN(Session * s, Find(session_id));
  const auto next = static_cast<int64_t>(s->events.size());
  RETURN_IF_ERROR(CheckBatchSeqs(session_id, expected_next_seq, next, batch));
  if (expected_next_seq < next) {
    return ClassifyResend(session_id, batch, [&](int64_t seq) -> const std::string* {
      return seq < next ? &s->events[seq].text : nullptr;
    });
  }
  s->checker.Mark();  // commit only if the whole batch passes
  for (const EventRecord& r : batch) {
    Status st = s->checker.Check(r.event);
    if (!st.ok()) {
      s->checker.Rollback();
      return st;
    }
  }
  s->events.insert(s->events.end(), batch.begin(), batch.end());
  return AppendOutcome::kAppended;
}

Result<std::vector<EventRecord>> InMemoryEventLog::Read(std::string_view session_id, int64_t from_seq) {
  ASSIGN_OR_RETURN(Session * s, Find(session_id));
  if (from_seq < 0) return Status::InvalidArgument("from_seq must be non-negative");
  if (from_seq >= static_cast<int64_t>(s->events.size())) return std::vector<EventRecord>{};
  return std::vector<EventRecord>(s->events.begin() + from_seq, s->events.end());
}

Result<int64_t> InMemoryEventLog::NextSeq(std::string_view session_id) {
  ASSIGN_OR_RETURN(Session * s, Find(session_id));
  return static_cast<int64_t>(s->events.size());
}

}  // namespace retrace::log
