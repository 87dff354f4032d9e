// InMemoryEventLog: an EventLog held in memory, with the full append contract
// (event_log.h). For tests and for hosts that do not need durability.
// Not thread-safe.
#ifndef RETRACE_ENGINE_LOG_IN_MEMORY_EVENT_LOG_H_
#define RETRACE_ENGINE_LOG_IN_MEMORY_EVENT_LOG_H_

#include <map>
#include <string>

#include <retrace/engine/log/event_log.h>
#include <retrace/engine/log/session_checker.h>

namespace retrace::log {

class InMemoryEventLog final : public EventLog {
 public:
  Status CreateSession(const SessionHeader& header) override;
  Result<SessionHeader> ReadHeader(std::string_view session_id) override;
  Result<AppendOutcome> Append(std::string_view session_id, int64_t expected_next_seq,
                               std::span<const EventRecord> batch) override;
  Result<std::vector<EventRecord>> Read(std::string_view session_id, int64_t from_seq) override;
  Result<int64_t> NextSeq(std::string_view session_id) override;

 private:
  struct Session {
    SessionHeader header;
    std::vector<EventRecord> events;
    SessionChecker checker;
  };
  Result<Session*> Find(std::string_view session_id);

  std::map<std::string, Session, std::less<>> sessions_;
};

}  // namespace retrace::log

#endif  // RETRACE_ENGINE_LOG_IN_MEMORY_EVENT_LOG_H_
