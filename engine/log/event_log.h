// EventLog: the durable, append-only session log the engine records through.
//
// store/ implements it on SQLite; InMemoryEventLog (in_memory_event_log.h)
// serves tests. Every implementation gives the same append contract:
//  - a batch is appended atomically at an expected next seq (optimistic
//    concurrency): batch[i].seq must equal expected_next_seq + i;
//  - expected_next_seq beyond the log's end is a gap: refused;
//  - re-sending a batch identical (byte for byte) to events already stored
//    at those seqs is acknowledged as kAlreadyAppended, so a writer that
//    lost an acknowledgement can retry safely;
//  - any other batch at a taken seq is a Conflict;
//  - every event passes SessionChecker (seq contiguity, known types,
//    envelope, message shapes, surface transitions) or the batch is refused whole.
#ifndef RETRACE_ENGINE_LOG_EVENT_LOG_H_
#define RETRACE_ENGINE_LOG_EVENT_LOG_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <retrace/engine/base/status.h>
#include <retrace/engine/log/event.h>
#include <retrace/engine/log/session_header.h>

namespace retrace::log {

// An event with its verbatim JSON text: the text is the stored truth (byte-
// exact export, key order kept); `event` is its parsed form.
struct EventRecord {
  Event event;
  std::string text;
};

// Serializes `event` into a record.
EventRecord MakeRecord(Event event, EnvelopeOrder order = EnvelopeOrder::kLiveAppend);

enum class AppendOutcome { kAppended, kAlreadyAppended };

class EventLog {
 public:
  virtual ~EventLog() = default;

  // Creates an empty session. AlreadyExists if the id is taken.
  virtual Status CreateSession(const SessionHeader& header) = 0;
  virtual Result<SessionHeader> ReadHeader(std::string_view session_id) = 0;

  // Appends `batch` (see the file comment). REQUIRES: non-empty batch.
  virtual Result<AppendOutcome> Append(std::string_view session_id, int64_t expected_next_seq,
                                       std::span<const EventRecord> batch) = 0;

  // Events with seq >= from_seq, in seq order.
  virtual Result<std::vector<EventRecord>> Read(std::string_view session_id, int64_t from_seq = 0) = 0;

  virtual Result<int64_t> NextSeq(std::string_view session_id) = 0;
};

// Shared append rules. CheckBatchSeqs: non-empty, seqs consecutive from
// expected_next_seq, and no gap past `next_seq`.
Status CheckBatchSeqs(std::string_view session_id, int64_t expected_next_seq, int64_t next_seq,
                      std::span<const EventRecord> batch);

// For a batch starting below `next_seq`: kAlreadyAppended when every event is
// stored with identical text, else Conflict naming the first differing seq.
// `stored_text(seq)` returns the stored text, or nullptr past the end.
template <typename StoredText>
Result<AppendOutcome> ClassifyResend(std::string_view session_id, std::span<const EventRecord> batch,
                                     StoredText stored_text) {
  for (const EventRecord& r : batch) {
    const std::string* stored = stored_text(r.event.seq);
    if (stored == nullptr || *stored != r.text) {
      return Status::Conflict("append conflict for session \"" + std::string(session_id) + "\": seq " +
                              std::to_string(r.event.seq) +
                              (stored == nullptr ? " is past the end of a partially overlapping batch"
                                                 : " is already taken by a different event"));
    }
  }
  return AppendOutcome::kAlreadyAppended;
}

}  // namespace retrace::log

#endif  // RETRACE_ENGINE_LOG_EVENT_LOG_H_
