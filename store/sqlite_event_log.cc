#include "store/sqlite_event_log.h"

namespace retrace::store {

SqliteEventLog::~SqliteEventLog() = default;

SessionWriter* SqliteEventLog::OpenedWriter(std::string_view session_id) const {
  for (const auto& [id, w] : writers_) {
    if (id == session_id) return w.get();
  }
  return nullptr;
}

Result<SessionWriter*> SqliteEventLog::Writer(std::string_view session_id) {
  if (SessionWriter* w = OpenedWriter(session_id)) return w;
  ASSIGN_OR_RETURN(auto w, store_.OpenWriter(session_id));
  writers_.emplace_back(std::string(session_id), std::move(w));
  return writers_.back().second.get();
}

Status SqliteEventLog::CreateSession(const log::SessionHeader& header) {
  return store_.CreateSession(header, log::SerializeHeaderLine(header));
}

Result<log::SessionHeader> SqliteEventLog::ReadHeader(std::string_view session_id) {
  ASSIGN_OR_RETURN(std::string text, store_.HeaderText(session_id));
  return log::ParseHeaderLine(text);
}

Result<log::AppendOutcome> SqliteEventLog::Append(std::string_view session_id, int64_t expected_next_seq,
                                                  std::span<const log::EventRecord> batch) {
  ASSIGN_OR_RETURN(SessionWriter * w, Writer(session_id));
  return w->Append(expected_next_seq, batch);
}

Result<std::vector<log::EventRecord>> SqliteEventLog::Read(std::string_view session_id, int64_t from_seq) {
  std::vector<log::EventRecord> out;
  RETURN_IF_ERROR(store_.ForEachEvent(session_id, EventFilter{from_seq, std::nullopt}, [&](const StoredEvent& e) {
    auto parsed = log::ParseEvent(e.json);
    if (!parsed.ok()) return parsed.status();
    out.push_back({std::move(parsed).value(), e.json});
    return Status::Ok();
  }));
  return out;
}

Result<int64_t> SqliteEventLog::NextSeq(std::string_view session_id) {
  ASSIGN_OR_RETURN(int64_t key, store_.SessionKey(session_id));
  return store_.NextSeq(key);
}

}  // namespace retrace::store
