// SessionWriter: the single writer of one stored session.
//
// Holds the session's WriterLock (one writer per session across processes)
// and the SessionChecker state of the stored log, so each append validates
// only the new events. Appends follow the EventLog contract (event_log.h).
//
// Internally an append is two stages, which a bulk import runs on two
// threads: Prepare() validates a storage line against the checker (no
// database access) and yields a PreparedRow; Store() writes it (database
// only). Each stage touches disjoint state.
#ifndef RETRACE_STORE_SESSION_WRITER_H_
#define RETRACE_STORE_SESSION_WRITER_H_

#include <optional>
#include <span>
#include <string>

#include <retrace/engine/log/event_log.h>
#include <retrace/engine/log/session_checker.h>
#include <retrace/store/event_columns.h>
#include <retrace/store/event_chain.h>
#include <retrace/store/event_store.h>
#include <retrace/format/jsonl_reader.h>
#include <retrace/store/read_model.h>
#include <retrace/store/writer_lock.h>

namespace retrace::store {

// A validated storage line, ready for the events table.
struct PreparedRow {
  int64_t seq = 0;
  int64_t count = 1;
  int64_t time = 0;
  std::string type;
  EventColumns columns;
  std::string packed;  // row tag of a packed chunk row, else empty
  std::string text;    // the verbatim storage line (import; appends pass theirs to Store)
  // The line's seqs are already stored: Store() compares instead of inserting.
  bool resend = false;
  int64_t line = 0;  // where it was read from (import), for error messages
  std::vector<ReadModelWrite> read_model;  // what the row adds to the read model
};

// A journaled append, checked (SessionWriter::PrepareAppend) and waiting for
// the folder. Most of its events keep only their storage line: their columns
// and read-model rows are derived from it when they are stored, on the
// folder's thread, so the append's answer waits on the check and the journal
// alone, and what waits for the fold is compact. A replace names what it
// shadows on the surface as it is now, and an upgraded legacy event is not
// its line: those rows are derived at once.
struct PreparedAppend {
  std::string lines;         // the batch's storage lines, one after another
  std::vector<size_t> ends;  // where each line ends in `lines`
  std::vector<std::pair<size_t, PreparedRow>> at_once;  // (index in the batch, its row), in order

  std::string_view line(size_t i) const {
    const size_t begin = i == 0 ? 0 : ends[i - 1];
    return std::string_view(lines).substr(begin, ends[i] - begin);
  }
};

// Holds the event store by reference: the store must outlive the writer.
class SessionWriter {
 public:
  // Appends `batch` (one storage line per event) in its own transaction.
  Result<log::AppendOutcome> Append(int64_t expected_next_seq, std::span<const log::EventRecord> batch);

  // Appends the interrupted-turn closers if the last turn is open; returns
  // how many events were appended (0 for a balanced log). One transaction.
  Result<int64_t> RepairOpenTurn();

  // Bulk import stages, inside a transaction the caller holds. Prepare()
  // consumes a record read from a dsh log; Store() writes it. On any error
  // the caller must roll back and drop this writer.
  Result<PreparedRow> Prepare(format::StorageRecord record);
  Result<log::AppendOutcome> Store(const PreparedRow& row) { return Store(row, row.text); }


  // Journaled appends (journaled_event_log.h), the same two stages on two
  // threads. PrepareAppend validates a batch that starts at the end of the
  // log (checker only); UndoPrepare forgets the batch it last prepared (its
  // journal write failed). StoreAppend derives what was left to derive and
  // writes the rows, in the caller's transaction (database only).
  Result<PreparedAppend> PrepareAppend(int64_t expected_next_seq, std::span<const log::EventRecord> batch);
  void UndoPrepare() { checker_.Rollback(); }
  Status StoreAppend(const PreparedAppend& append);

  int64_t next_seq() const { return checker_.next_seq(); }
  const std::string& session_id() const { return session_id_; }

 private:
  friend class EventStore;
  SessionWriter(EventStore& store, std::string session_id, int64_t key, WriterLock lock, bool maintain_read_model)
      : store_(store),
        session_id_(std::move(session_id)),
        key_(key),
        lock_(std::move(lock)),
        checker_(session_id_),
        read_model_(store.db_),
        maintain_read_model_(maintain_read_model) {}
  // Replays the stored log through the checker; with `rebuild_read_model`
  // also derives and writes each event's read-model rows (the caller holds
  // the transaction and has cleared the model).
  Status LoadState(bool rebuild_read_model = false);
  // Whether a line at first_seq is already stored (a resend) rather than next;
  // refuses a gap and a line straddling the stored end.
  Result<bool> AlreadyStored(int64_t first_seq, int64_t count) const;
  // Validates one event on the checker; legacy shapes are upgraded for
  // validation while the stored text stays verbatim. Leaves row.text empty.
  Result<PreparedRow> PrepareEvent(const log::Event& event);
  // The row of an event already checked, in its current shape and not a
  // replace (PreparedAppend): the writer's settings only, so any thread.
  PreparedRow DerivedRow(const log::Event& event) const;
  // CheckLegacyAware, and with `writes` also the event's read-model rows.
  Result<const log::Event*> CheckAndDerive(const log::Event& event, log::Event& upgraded,
                                           std::vector<ReadModelWrite>* writes);
  Result<log::AppendOutcome> Store(const PreparedRow& row, std::string_view text);
  // The link of the row that ends just before `seq` (event_chain.h): kept
  // from the last row this writer stored, else read from the store (or the
  // session's genesis at seq 0). A rolled-back row never matches: the next
  // row starts at its seq, not after it.
  Result<Link> ChainTail(int64_t seq);
  Result<PreparedRow> PreparePackedRow(const format::PackedRow& row, std::string text);
  // Returns the event as validated: `event`, or its upgrade stored in `upgraded`.
  Result<const log::Event*> CheckLegacyAware(const log::Event& event, log::Event& upgraded);
  Result<log::AppendOutcome> CompareResend(const PreparedRow& row, std::string_view text);
  // kAlreadyAppended when every event is stored with identical text, else Conflict.
  Result<log::AppendOutcome> ClassifyAgainstStore(std::span<const log::EventRecord> events);

  EventStore& store_;
  std::string session_id_;
  int64_t key_;
  WriterLock lock_;
  log::SessionChecker checker_;   // Prepare() stage
  std::optional<Statement> insert_;  // Store() stage
  std::optional<Statement> tail_;    // Store() stage: ChainTail's read
  int64_t chain_end_ = -1;           // the seq after the last row linked, -1: unknown
  Link chain_link_{};
  ReadModelWriter read_model_;       // Store() stage
  bool maintain_read_model_;
};

}  // namespace retrace::store

#endif  // RETRACE_STORE_SESSION_WRITER_H_
