#include "store/journaled_event_log.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

namespace retrace::store {

Result<std::unique_ptr<JournaledEventLog>> JournaledEventLog::Open(EventStore& store, JournalOptions options) {
  ASSIGN_OR_RETURN(AppendJournal journal, AppendJournal::Create(store.path()));
  return std::unique_ptr<JournaledEventLog>(new JournaledEventLog(store, options, std::move(journal)));
}

JournaledEventLog::JournaledEventLog(EventStore& store, JournalOptions options, AppendJournal journal)
    : direct_(store), options_(options), journal_path_(journal.path()), journal_(std::move(journal)) {
  folder_ = std::thread([this] { FoldLoop(); });
}

JournaledEventLog::~JournaledEventLog() { (void)Close(); }

Status JournaledEventLog::Flush() {
  std::unique_lock lock(mu_);
  ++flushes_;
  wake_folder_.notify_one();
  folded_.wait(lock, [&] { return (pending_.empty() && !folding_) || !failed_.ok() || stop_; });
  --flushes_;
  return failed_;
}

Status JournaledEventLog::Close() {
  Status st = Flush();
  {
    std::lock_guard lock(mu_);
    if (closed_) return failed_;
    closed_ = true;
    stop_ = true;
  }
  wake_folder_.notify_one();
  if (folder_.joinable()) folder_.join();
  std::lock_guard lock(mu_);
  if (!failed_.ok()) {
    retired_.reset();  // kept, unlocked: the next open folds them
    journal_.reset();
    return failed_;
  }
  Status removed = journal_->Remove();
  journal_.reset();
  return st.ok() ? removed : st;
}

template <typename Fn>
auto JournaledEventLog::AfterFlush(Fn fn) -> decltype(fn()) {
  RETURN_IF_ERROR(Flush());
  std::lock_guard lock(mu_);  // appends wait meanwhile; db_mu_ keeps a fold off the connection
  std::lock_guard db(db_mu_);
  return fn();
}

Status JournaledEventLog::CreateSession(const log::SessionHeader& header) {
  return AfterFlush([&] { return direct_.CreateSession(header); });
}

Result<log::SessionHeader> JournaledEventLog::ReadHeader(std::string_view session_id) {
  return AfterFlush([&] { return direct_.ReadHeader(session_id); });
}

Result<std::vector<log::EventRecord>> JournaledEventLog::Read(std::string_view session_id, int64_t from_seq) {
  return AfterFlush([&] { return direct_.Read(session_id, from_seq); });
}

Result<int64_t> JournaledEventLog::NextSeq(std::string_view session_id) {
  return AfterFlush([&] { return direct_.NextSeq(session_id); });
}

Result<log::AppendOutcome> JournaledEventLog::Append(std::string_view session_id, int64_t expected_next_seq,
                                                     std::span<const log::EventRecord> batch) {
  std::unique_lock lock(mu_);
  if (closed_) return Status::FailedPrecondition("the event log is closed");
  RETURN_IF_ERROR(failed_);
  // Writers are opened here only, under mu_: finding one needs no connection.
  SessionWriter* writer = direct_.OpenedWriter(session_id);
  if (!writer) {
    // Opening a writer reads the session: the store's connection, which a fold
    // may be holding (only this once per session, not at every append).
    std::lock_guard db(db_mu_);
    ASSIGN_OR_RETURN(writer, direct_.Writer(session_id));
  }
  if (!batch.empty() && expected_next_seq < writer->next_seq()) {
    // A resend: compared with what the database holds, once it holds everything.
    lock.unlock();
    return AfterFlush([&] { return writer->Append(expected_next_seq, batch); });
  }
  size_t bytes = 0;
  for (const log::EventRecord& r : batch) bytes += r.text.size();
  folded_.wait(lock, [&] { return behind_bytes_ == 0 || behind_bytes_ + bytes <= options_.max_behind_bytes ||
                                  !failed_.ok(); });
  RETURN_IF_ERROR(failed_);
  ASSIGN_OR_RETURN(PreparedAppend prepared, writer->PrepareAppend(expected_next_seq, batch));
  std::vector<std::string_view> lines;
  lines.reserve(batch.size());
  for (const log::EventRecord& r : batch) lines.push_back(r.text);
  if (Status st = journal_->Write(session_id, expected_next_seq, lines); !st.ok()) {
    writer->UndoPrepare();
    return st;
  }
  pending_.push_back({writer, std::move(prepared), journal_->size(), bytes});
  behind_bytes_ += bytes;
  ++appends_;
  // Only the first append wakes the folder; the rest join its batch (a wake
  // per append would cost a context switch each).
  if (pending_.size() == 1) {
    first_pending_at_ = std::chrono::steady_clock::now();
    wake_folder_.notify_one();
  }
  return log::AppendOutcome::kAppended;
}

void JournaledEventLog::FoldLoop() {
  // The answers come first: a fold's burst of work yields the CPU to the
  // threads that answer (on two cores, a fold at their priority put a late
  // answer behind most folds: 154-178 calls over 1 ms in 5,000, against 125 so).
  (void)::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), 19);
  (void)::pthread_setname_np(::pthread_self(), "retrace-fold");  // for top -H, perf and gdb
  std::unique_lock lock(mu_);
  while (true) {
    wake_folder_.wait(lock, [&] { return stop_ || !pending_.empty(); });
    if (pending_.empty()) return;  // stopping, nothing left
    if (!stop_ && flushes_ == 0) {
      // Wait for a pause in the appends (JournalOptions): a burst's appends
      // share a transaction, and its work is not done while calls keep coming.
      using Clock = std::chrono::steady_clock;
      const Clock::time_point deadline = first_pending_at_ + options_.max_fold_lag;
      uint64_t seen = 0;
      do {
        seen = appends_;
        const Clock::time_point now = Clock::now();
        if (now >= deadline) break;
        const auto slice = std::min<Clock::duration>(options_.fold_delay, deadline - now);
        wake_folder_.wait_for(lock, slice, [&] { return stop_ || flushes_ > 0; });
      } while (!stop_ && flushes_ == 0 && appends_ != seen);
    }
    std::deque<Pending> batch;
    batch.swap(pending_);
    folding_ = true;
    lock.unlock();
    Status st;
    {
      std::lock_guard db(db_mu_);
      st = Fold(batch);
    }
    lock.lock();
    folding_ = false;
    if (st.code() == Status::Code::kBusy) {
      // Another process held the database past the busy timeout (a long
      // import, say): not a failure of this log. The batch goes back in front
      // and is folded again after the delay; appends go on meanwhile.
      batch.insert(batch.end(), std::make_move_iterator(pending_.begin()), std::make_move_iterator(pending_.end()));
      pending_.swap(batch);
      folded_.notify_all();
      continue;
    }
    for (const Pending& p : batch) behind_bytes_ -= p.bytes;
    if (!st.ok()) {
      failed_ = st.WithContext("recording stopped: the acknowledged appends could not be written to the database"
                               " (they are kept in " + (retired_ ? retired_->path() + " and " : "") + journal_path_ +
                               ", which the next open folds in)");
      pending_.clear();
    } else {
      AfterFold(batch.back());
    }
    folded_.notify_all();
    if (!failed_.ok()) {
      // Appends fail from now on; wait to be stopped.
      wake_folder_.wait(lock, [&] { return stop_; });
      return;
    }
  }
}

void JournaledEventLog::AfterFold(const Pending& last_folded) {
  if (retired_) {
    // Left behind should the delete fail: an orphan whose frames the
    // database holds, which the next open folds as resends and removes.
    (void)retired_->Remove();
    retired_.reset();
  }
  if (pending_.empty()) {
    if (last_folded.journal_end != journal_->size()) return;  // it came from the retired journal
    if (Status reset = journal_->Reset(); !reset.ok()) failed_ = reset;
  } else if (journal_->size() >= options_.rotate_bytes) {
    // What is pending is in this journal: it is deleted after the next fold.
    // Should a fresh one not be had, appends stay here and it is tried again.
    Result<AppendJournal> fresh = AppendJournal::Create(direct_.store().path());
    if (!fresh.ok()) return;
    retired_.emplace(std::move(*journal_));
    journal_.emplace(std::move(fresh).value());
    journal_path_ = journal_->path();
  }
}

Status JournaledEventLog::Fold(const std::deque<Pending>& batch) {
  ASSIGN_OR_RETURN(Transaction tx, direct_.store().BeginTransaction());
  for (const Pending& p : batch) RETURN_IF_ERROR(p.writer->StoreAppend(p.append));
  return tx.Commit();
}

namespace {

// Folds the journal at `path` (see FoldOrphanJournals).
Status FoldJournal(EventStore& store, const std::string& path) {
  auto fail = [&](const Status& st) {
    return st.WithContext("cannot fold the appends a crashed recorder left in " + path +
                          " (move the file away to open the database without them)");
  };
  Result<JournalContents> contents = ReadJournal(path);
  if (!contents.ok()) return fail(contents.status());
  // After a machine crash, the file and the database may each have lost their
  // latest writes (append_journal.h): what follows the first frame that is
  // bad or does not continue its session is dropped, as `normal` allows.
  // (Unknown on either side: not known to differ, so the strict rules hold.)
  const bool rebooted = !CurrentBootId().empty() && contents->boot_id.find_first_not_of('-') != std::string::npos &&
                        contents->boot_id != CurrentBootId();
  if (!contents->bad.empty() && !contents->last_frame_torn && !rebooted) {
    return fail(Status::Corruption("the frame at byte " + std::to_string(contents->bad_at) + " " + contents->bad));
  }
  SqliteEventLog log(store);  // the sessions' writers, for this fold
  for (JournalFrame& frame : contents->frames) {
    std::vector<log::EventRecord> batch;
    batch.reserve(frame.lines.size());
    Status st;
    for (std::string& line : frame.lines) {
      auto event = log::ParseEvent(line);
      if (!event.ok()) {
        st = event.status().WithContext("session \"" + frame.session_id + "\"");
        break;
      }
      batch.push_back({std::move(event).value(), std::move(line)});
    }
    // An append folded before the crash is acknowledged again, unchanged.
    if (st.ok()) st = log.Append(frame.session_id, frame.first_seq, batch).status();
    if (!st.ok()) {
      if (rebooted) break;
      return fail(st);
    }
  }
  return Status::Ok();
}

}  // namespace

Status FoldOrphanJournals(EventStore& store) {
  ASSIGN_OR_RETURN(std::vector<OrphanJournal> orphans, LockOrphanJournals(store.path()));
  Status st;
  for (OrphanJournal& orphan : orphans) {
    if (st.ok()) st = FoldJournal(store, orphan.path);
    if (st.ok()) {
      st = RemoveOrphan(orphan);
    } else {
      ReleaseOrphan(orphan);
    }
  }
  return st;
}

}  // namespace retrace::store
