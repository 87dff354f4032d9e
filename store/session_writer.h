// SessionWriter: the single writer of one stored session.
//
// Holds the session's WriterLock (one writer per session across processes)
// and the SessionChecker state of the stored log, so each append validates
// only the new events. Appends follow the EventLog contract (event_log.h).
#ifndef RETRACE_STORE_SESSION_WRITER_H_
#define RETRACE_STORE_SESSION_WRITER_H_

#include <span>
#include <string>

#include "engine/log/event_log.h"
#include "engine/log/session_checker.h"
#include "store/chunk_rows.h"
#include "store/event_store.h"
#include "store/writer_lock.h"

namespace retrace::store {

class SessionWriter {
 public:
  // Appends `batch` in its own transaction (BEGIN IMMEDIATE ... COMMIT).
  Result<log::AppendOutcome> Append(int64_t expected_next_seq, std::span<const log::EventRecord> batch);

  // Bulk appends inside a transaction the caller holds (import): one call per
  // storage line — events (one line each) or a packed chunk row with its
  // verbatim text — then PersistNextSeq() before committing. On any error the
  // caller must roll back and drop this writer.
  Result<log::AppendOutcome> AppendInTransaction(int64_t expected_next_seq, std::span<const log::EventRecord> batch);
  Result<log::AppendOutcome> AppendPackedRowInTransaction(const PackedRow& row, const std::string& text);
  Status PersistNextSeq();

  // Appends the interrupted-turn closers if the last turn is open; returns
  // how many events were appended (0 for a balanced log). One transaction.
  Result<int64_t> RepairOpenTurn();

  int64_t next_seq() const { return checker_.next_seq(); }
  const std::string& session_id() const { return session_id_; }

 private:
  friend class EventStore;
  SessionWriter(EventStore& store, std::string session_id, int64_t key, WriterLock lock)
      : store_(store), session_id_(std::move(session_id)), key_(key), lock_(std::move(lock)), checker_(session_id_) {}
  Status LoadState();
  Status InsertEvent(const log::EventRecord& r, const log::Event& normalized);
  Status InsertPackedRow(const PackedRow& row, const std::string& text);
  Status PrepareInsert();
  Result<int64_t> StoredNextSeq();
  Result<log::AppendOutcome> ClassifyResend(std::span<const log::EventRecord> batch);
  Status CheckBatch(std::span<const log::EventRecord> batch, std::vector<log::Event>& upgraded,
                    std::vector<const log::Event*>& normalized);

  EventStore& store_;
  std::string session_id_;
  int64_t key_;
  WriterLock lock_;
  log::SessionChecker checker_;
  std::optional<Statement> insert_;
  std::optional<Statement> bump_;
};

}  // namespace retrace::store

#endif  // RETRACE_STORE_SESSION_WRITER_H_
