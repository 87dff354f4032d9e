// JournaledEventLog: the EventLog of a live recording at Durability::kNormal,
// with the database commit off the append's path.
//
// An append is validated at once (SessionWriter's checker, on the caller's
// thread), written to the AppendJournal with one write(2), and acknowledged:
// from then on it survives a crash of the process, which is what `normal`
// promises (event_store.h). A folder thread writes the acknowledged appends
// into the database behind the answers, many per transaction, in the first
// pause of `fold_delay` without an append (or after `max_fold_lag` of
// unbroken appends), deriving their events' columns and read-model rows from
// the lines as it goes (PreparedAppend); when the database holds all the
// journal does, the journal is emptied.
//
// What others see: another process reading the database sees an append once
// it is folded: `fold_delay` (plus a commit) after the last append of a
// burst, and no later than `max_fold_lag` after it was acknowledged. This
// object's own reads (Read, NextSeq, ReadHeader) and CreateSession wait for
// the fold first, so it reads its own writes. A crash leaves the journal
// behind; the next EventStore::Open folds it before anything else runs.
//
// A fold that finds the database busy past the busy timeout (another
// process's long transaction) is tried again after the delay, appends going
// on meanwhile. Any other failed fold (a full disk, say) stops the log: that
// append and every later one fail with the fold's error, the journal is kept,
// and Close() reports it. Nothing acknowledged is lost: the next open folds
// the journal again.
//
// Thread-safe. The EventStore must not be used by anyone else while this
// log lives (its connection is the folder's).
#ifndef RETRACE_STORE_JOURNALED_EVENT_LOG_H_
#define RETRACE_STORE_JOURNALED_EVENT_LOG_H_

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <retrace/engine/log/event_log.h>
#include <retrace/store/append_journal.h>
#include <retrace/store/event_store.h>
#include <retrace/store/session_writer.h>
#include <retrace/store/sqlite_event_log.h>

namespace retrace::store {

struct JournalOptions {
  // The folder folds in a pause: once `fold_delay` has passed with no new
  // append (so the appends of a burst share one transaction, and its work
  // does not compete with the answers for the CPU while calls keep coming),
  // or once the oldest waiting append is `max_fold_lag` old, whichever comes
  // first. So another process sees an append at most `max_fold_lag` (plus a
  // fold) after it was acknowledged.
  std::chrono::microseconds fold_delay{10000};
  std::chrono::microseconds max_fold_lag{1000000};
  // Acknowledged appends the folder may be behind by before an append waits
  // for it (bounds memory and the journal's size).
  size_t max_behind_bytes = size_t{64} << 20;
  // The journal is emptied when a fold catches up with it. Appends that never
  // pause leave some behind at every fold, so it would grow without end: once
  // it holds this many bytes, appends go to a fresh journal, and the old one
  // is deleted after the next fold.
  uint64_t rotate_bytes = uint64_t{8} << 20;
};

class JournaledEventLog final : public log::EventLog {
 public:
  static Result<std::unique_ptr<JournaledEventLog>> Open(EventStore& store, JournalOptions options = {});
  // Close(), its error dropped: call Close() to see it.
  ~JournaledEventLog() override;

  // Waits until the database holds every acknowledged append. Returns the
  // error that stopped the log, if any.
  Status Flush();
  // Flushes, stops the folder and deletes the journal (kept after a failure,
  // whose error is returned). Later appends fail.
  Status Close();

  Status CreateSession(const log::SessionHeader& header) override;
  Result<log::SessionHeader> ReadHeader(std::string_view session_id) override;
  Result<log::AppendOutcome> Append(std::string_view session_id, int64_t expected_next_seq,
                                    std::span<const log::EventRecord> batch) override;
  Result<std::vector<log::EventRecord>> Read(std::string_view session_id, int64_t from_seq) override;
  Result<int64_t> NextSeq(std::string_view session_id) override;

  // The journal's file (tests; it changes when the journal is replaced).
  std::string journal_path() const {
    std::lock_guard lock(mu_);
    return journal_path_;
  }

 private:
  struct Pending {
    SessionWriter* writer;
    PreparedAppend append;
    uint64_t journal_end;  // the journal's size once this append was in it
    size_t bytes;
  };
  JournaledEventLog(EventStore& store, JournalOptions options, AppendJournal journal);
  void FoldLoop();
  // Writes `batch` into the database in one transaction.
  Status Fold(const std::deque<Pending>& batch);
  // After a successful fold, under mu_: deletes a retired journal (all it
  // held is folded now), then empties the journal or replaces it
  // (JournalOptions::rotate_bytes).
  void AfterFold(const Pending& last_folded);
  // Runs `fn` on the store's connection once every acknowledged append is in it.
  template <typename Fn>
  auto AfterFlush(Fn fn) -> decltype(fn());

  SqliteEventLog direct_;  // the writers and the reads, on the store's connection
  JournalOptions options_;
  std::string journal_path_;

  std::mutex db_mu_;  // the store's connection (taken after mu_, never before)
  mutable std::mutex mu_;  // everything below, and journal_path_
  std::condition_variable wake_folder_, folded_;
  std::optional<AppendJournal> journal_;
  std::optional<AppendJournal> retired_;  // replaced, and holding appends the next fold takes
  std::deque<Pending> pending_;
  size_t behind_bytes_ = 0;  // acknowledged and not yet folded
  uint64_t appends_ = 0;     // acknowledged so far: the folder waits for a pause in them
  std::chrono::steady_clock::time_point first_pending_at_;  // when the oldest of pending_ was acknowledged
  bool folding_ = false;
  int flushes_ = 0;  // Flush() calls waiting: the folder does not linger
  bool stop_ = false;
  bool closed_ = false;
  Status failed_;
  std::thread folder_;
};

// Folds the append journals crashed recorders left next to `store`'s database
// into it (the rules in append_journal.h) and deletes them; a journal that
// cannot be folded is kept, and its error returned. EventStore::Open runs it.
Status FoldOrphanJournals(EventStore& store);

}  // namespace retrace::store

#endif  // RETRACE_STORE_JOURNALED_EVENT_LOG_H_
