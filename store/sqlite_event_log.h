// SqliteEventLog: the EventLog interface (engine/log/event_log.h) over an
// EventStore. Sessions are appended through per-session writers that stay
// open, holding their sessions' writer locks, for the life of this object.
// Each append is one transaction, committed before Append returns (at
// Durability::kNormal, JournaledEventLog takes the commit off that path).
#ifndef RETRACE_STORE_SQLITE_EVENT_LOG_H_
#define RETRACE_STORE_SQLITE_EVENT_LOG_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <retrace/engine/log/event_log.h>
#include <retrace/store/event_store.h>
#include <retrace/store/session_writer.h>

namespace retrace::store {

// Holds the event store by reference: the store must outlive the log.
class SqliteEventLog final : public log::EventLog {
 public:
  explicit SqliteEventLog(EventStore& store) : store_(store) {}
  ~SqliteEventLog() override;

  Status CreateSession(const log::SessionHeader& header) override;
  Result<log::SessionHeader> ReadHeader(std::string_view session_id) override;
  Result<log::AppendOutcome> Append(std::string_view session_id, int64_t expected_next_seq,
                                    std::span<const log::EventRecord> batch) override;
  Result<std::vector<log::EventRecord>> Read(std::string_view session_id, int64_t from_seq) override;
  Result<int64_t> NextSeq(std::string_view session_id) override;

  // The open writer of a session, opened at its first use.
  Result<SessionWriter*> Writer(std::string_view session_id);
  // The writer of a session if it is open already, else nullptr (no database access).
  SessionWriter* OpenedWriter(std::string_view session_id) const;
  EventStore& store() { return store_; }

 private:
  EventStore& store_;
  std::vector<std::pair<std::string, std::unique_ptr<SessionWriter>>> writers_;
};

}  // namespace retrace::store

#endif  // RETRACE_STORE_SQLITE_EVENT_LOG_H_
