// The journaled event log (Durability::kNormal recordings): appends are
// acknowledged once in the journal, reach the database behind the answers,
// and a journal left by a crash is folded in by the next open — whole frames
// only, a torn last frame dropped, a corrupt one refused with the file kept.
#include "store/journaled_event_log.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "store/append_journal.h"
#include "tests/store/store_test_util.h"

namespace retrace::store {
namespace {

using namespace retrace::store::testing;
using ::testing::HasSubstr;

std::string Text(int64_t seq, size_t size = 40) {
  return R"({"type":"retrace/journal-tick","seq":)" + std::to_string(seq) + R"(,"time":)" + std::to_string(1000 + seq) +
         R"(,"data":{"payload":")" + std::string(size, static_cast<char>('a' + seq % 26)) + R"("},"ignorable":true})";
}

std::vector<log::EventRecord> Batch(int64_t first, int64_t count, size_t size = 40) {
  std::vector<log::EventRecord> batch;
  for (int64_t s = first; s < first + count; ++s) batch.push_back({*log::ParseEvent(Text(s, size)), Text(s, size)});
  return batch;
}

// The journal files next to a database.
std::vector<std::string> Journals(const std::string& db) {
  std::vector<std::string> out;
  const std::string prefix = std::filesystem::path(db).filename().string() + "-appends-";
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(db).parent_path())) {
    if (e.path().filename().string().rfind(prefix, 0) == 0) out.push_back(e.path().string());
  }
  return out;
}

// The stored texts of session "j", in seq order.
std::vector<std::string> Stored(const std::string& db) {
  std::vector<std::string> out;
  Db raw = RawDb(db);
  auto st = Statement::Prepare(raw, "SELECT seq, json FROM events ORDER BY seq");
  while (*st->Step()) out.emplace_back(st->Text(1));
  return out;
}

std::vector<std::string> Texts(int64_t first, int64_t count) {
  std::vector<std::string> out;
  for (int64_t s = first; s < first + count; ++s) out.push_back(Text(s));
  return out;
}

class JournaledEventLogTest : public ::testing::Test {
 protected:
  JournaledEventLogTest() {
    auto store = OpenStoreOrDie(db_, Normal());
    log::SessionHeader h;
    h.id = "j";
    EXPECT_TRUE(store->CreateSession(h, log::SerializeHeaderLine(h)).ok());
  }
  static StoreOptions Normal() {
    StoreOptions o;
    o.durability = Durability::kNormal;
    return o;
  }
  TempDir dir_;
  std::string db_ = dir_ / "j.db";
};

TEST(JournalChecksumTest, TheFastFormAgreesWithThePortableOneAndWithCrc32c) {
  EXPECT_EQ(JournalChecksum("123456789"), 0xE3069283u);  // CRC-32C's check value
  EXPECT_EQ(JournalChecksumPortable("123456789"), 0xE3069283u);
  std::string bytes;
  for (size_t n = 0; n < 300; ++n) {
    EXPECT_EQ(JournalChecksum(bytes), JournalChecksumPortable(bytes)) << n << " bytes";
    bytes += static_cast<char>((n * 131 + 7) % 256);
  }
}

TEST_F(JournaledEventLogTest, AcknowledgedAppendsReachTheDatabaseAndTheJournalGoesOnClose) {
  auto store = OpenStoreOrDie(db_, Normal());
  auto log = JournaledEventLog::Open(*store);
  ASSERT_TRUE(log.ok()) << log.status().message();
  ASSERT_EQ(Journals(db_).size(), 1u);
  for (int64_t s = 0; s < 30; s += 3) {
    auto outcome = (*log)->Append("j", s, Batch(s, 3));
    ASSERT_TRUE(outcome.ok()) << outcome.status().message();
    EXPECT_EQ(*outcome, log::AppendOutcome::kAppended);
  }
  ASSERT_TRUE((*log)->Close().ok());
  EXPECT_TRUE(Journals(db_).empty());
  EXPECT_EQ(Stored(db_), Texts(0, 30));
  EXPECT_FALSE((*log)->Append("j", 30, Batch(30, 1)).ok()) << "a closed log takes no appends";
}

// The ids of this process's threads named `name`, and each one's nice value.
std::vector<std::pair<pid_t, int>> ThreadsNamed(const std::string& name) {
  std::vector<std::pair<pid_t, int>> out;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string line;
    if (!std::getline(comm, line) || line != name) continue;
    const auto tid = static_cast<pid_t>(std::stol(task.path().filename().string()));
    out.emplace_back(tid, ::getpriority(PRIO_PROCESS, static_cast<id_t>(tid)));
  }
  return out;
}

TEST_F(JournaledEventLogTest, TheFolderIsANamedThreadAtTheLowestPriorityAndGoesOnClose) {
  auto store = OpenStoreOrDie(db_, Normal());
  auto log = JournaledEventLog::Open(*store);
  ASSERT_TRUE(log.ok()) << log.status().message();
  std::vector<std::pair<pid_t, int>> folders;
  for (int waited = 0; waited < 500 && folders.empty(); ++waited) {  // it names itself once it runs
    folders = ThreadsNamed("retrace-fold");
    if (folders.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(folders.size(), 1u) << "top -H and perf should show the folder as retrace-fold";
  EXPECT_EQ(folders[0].second, 19) << "the folder yields the CPU to the threads that answer";
  ASSERT_TRUE((*log)->Close().ok());
  EXPECT_TRUE(ThreadsNamed("retrace-fold").empty());
}

TEST_F(JournaledEventLogTest, UnbrokenAppendsHoldTheFoldOffUntilTheyPause) {
  // Appends every ~5 ms for 1.5 s, each well inside the 1 s pause the folder
  // waits for: no fold during the burst (one that folded fold_delay after the
  // first append would have folded about 0.5 s of it), then one after it.
  auto store = OpenStoreOrDie(db_, Normal());
  auto log = JournaledEventLog::Open(*store, {.fold_delay = std::chrono::seconds(1), .max_fold_lag = std::chrono::hours(1)});
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(1500);
  int64_t next = 0;
  while (std::chrono::steady_clock::now() < end) {
    ASSERT_TRUE((*log)->Append("j", next, Batch(next, 1)).ok());
    ++next;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_TRUE(Stored(db_).empty()) << "folded during the burst";
  for (int waited = 0; waited < 200 && Stored(db_).size() < static_cast<size_t>(next); ++waited) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(Stored(db_), Texts(0, next)) << "folded after the pause, without a flush";
  EXPECT_TRUE((*log)->Close().ok());
}

TEST_F(JournaledEventLogTest, AnUnbrokenBurstIsStillFoldedWithinTheLagBound) {
  // The pause never comes within max_fold_lag: the folder folds anyway.
  auto store = OpenStoreOrDie(db_, Normal());
  auto log = JournaledEventLog::Open(*store, {.fold_delay = std::chrono::hours(1), .max_fold_lag = std::chrono::milliseconds(100)});
  int64_t next = 0;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (Stored(db_).empty() && std::chrono::steady_clock::now() < end) {
    ASSERT_TRUE((*log)->Append("j", next, Batch(next, 1)).ok());
    ++next;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_FALSE(Stored(db_).empty()) << "no fold in 10 s of appends with a 100 ms lag bound (fold_delay is an hour)";
  EXPECT_TRUE((*log)->Close().ok());
}

TEST_F(JournaledEventLogTest, ItsOwnReadsSeeEveryAcknowledgedAppend) {
  auto store = OpenStoreOrDie(db_, Normal());
  auto log = JournaledEventLog::Open(*store, {.fold_delay = std::chrono::hours(1), .max_fold_lag = std::chrono::hours(1)});
  ASSERT_TRUE(log.ok());
  ASSERT_TRUE((*log)->Append("j", 0, Batch(0, 4)).ok());
  EXPECT_TRUE(Stored(db_).empty()) << "the fold waits for its delay (another connection sees nothing yet)";
  EXPECT_EQ(*(*log)->NextSeq("j"), 4);
  auto read = (*log)->Read("j", 1);
  ASSERT_TRUE(read.ok());
  ASSERT_EQ(read->size(), 3u);
  EXPECT_EQ(read->back().text, Text(3));
  EXPECT_EQ(Stored(db_), Texts(0, 4)) << "the reads folded first";
}

TEST_F(JournaledEventLogTest, AResendIsAcknowledgedAgainAndADifferentBatchIsAConflict) {
  auto store = OpenStoreOrDie(db_, Normal());
  auto log = JournaledEventLog::Open(*store);
  ASSERT_TRUE((*log)->Append("j", 0, Batch(0, 3)).ok());
  auto again = (*log)->Append("j", 0, Batch(0, 3));
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(*again, log::AppendOutcome::kAlreadyAppended);
  auto other = (*log)->Append("j", 1, Batch(1, 1, 7));
  EXPECT_EQ(other.status().code(), Status::Code::kConflict);
  ASSERT_TRUE((*log)->Append("j", 3, Batch(3, 1)).ok()) << "the log goes on";
  ASSERT_TRUE((*log)->Close().ok());
  EXPECT_EQ(Stored(db_), Texts(0, 4));
}

TEST_F(JournaledEventLogTest, ARefusedBatchLeavesNoTraceInTheJournal) {
  auto store = OpenStoreOrDie(db_, Normal());
  auto log = JournaledEventLog::Open(*store, {.fold_delay = std::chrono::hours(1), .max_fold_lag = std::chrono::hours(1)});
  ASSERT_TRUE((*log)->Append("j", 0, Batch(0, 2)).ok());
  const auto size = std::filesystem::file_size((*log)->journal_path());
  EXPECT_EQ((*log)->Append("j", 5, Batch(5, 1)).status().code(), Status::Code::kInvalidArgument) << "a gap";
  std::vector<log::EventRecord> bad = Batch(2, 2);
  bad[1].event.seq = 9;  // not consecutive
  EXPECT_FALSE((*log)->Append("j", 2, bad).ok());
  EXPECT_FALSE((*log)->Append("nobody", 0, Batch(0, 1)).ok()) << "an unknown session";
  EXPECT_EQ(std::filesystem::file_size((*log)->journal_path()), size);
  ASSERT_TRUE((*log)->Append("j", 2, Batch(2, 2)).ok()) << "the checker was put back";
  ASSERT_TRUE((*log)->Close().ok());
  EXPECT_EQ(Stored(db_), Texts(0, 4));
}

TEST_F(JournaledEventLogTest, ADatabaseBusyPastTheTimeoutDelaysTheFoldAndStopsNothing) {
  Db other = RawDb(db_);
  ASSERT_TRUE(other.Exec("BEGIN IMMEDIATE").ok());  // another process's long transaction
  auto store = OpenStoreOrDie(db_, Normal());
  auto log = JournaledEventLog::Open(*store, {.fold_delay = std::chrono::milliseconds(1)});
  ASSERT_TRUE((*log)->Append("j", 0, Batch(0, 2)).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(kBusyTimeoutMs + 500));  // a fold has timed out by now
  ASSERT_TRUE((*log)->Append("j", 2, Batch(2, 2)).ok()) << "appends go on";
  ASSERT_TRUE(other.Exec("ROLLBACK").ok());
  const Status flushed = (*log)->Flush();
  ASSERT_TRUE(flushed.ok()) << flushed.message();
  EXPECT_EQ(Stored(db_), Texts(0, 4));
  EXPECT_TRUE((*log)->Close().ok());
}

TEST_F(JournaledEventLogTest, TheFolderFallingBehindMakesAppendsWaitNotFail) {
  auto store = OpenStoreOrDie(db_, Normal());
  auto log = JournaledEventLog::Open(*store, {.fold_delay = std::chrono::microseconds(0), .max_behind_bytes = 1000});
  for (int64_t s = 0; s < 200; ++s) ASSERT_TRUE((*log)->Append("j", s, Batch(s, 1, 300)).ok());
  ASSERT_TRUE((*log)->Close().ok());
  EXPECT_EQ(Stored(db_).size(), 200u);
}

// A child that appends `frames` batches of 2 through a journaled log whose
// folder never runs, then dies without closing it: its journal is an orphan.
void AppendAndDie(const std::string& db, int frames) {
  const pid_t child = fork();
  if (child == 0) {
    StoreOptions o;
    o.durability = Durability::kNormal;
    auto store = EventStore::Open(db, o);
    if (!store.ok()) _exit(2);
    auto log = JournaledEventLog::Open(**store, {.fold_delay = std::chrono::hours(1), .max_fold_lag = std::chrono::hours(1)});
    if (!log.ok()) _exit(3);
    for (int i = 0; i < frames; ++i) {
      if (!(*log)->Append("j", 2 * i, Batch(2 * i, 2)).ok()) _exit(4);
    }
    kill(getpid(), SIGKILL);
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "child exited with " << WEXITSTATUS(status);
}

TEST_F(JournaledEventLogTest, TheNextOpenFoldsWhatAKilledRecorderAcknowledged) {
  AppendAndDie(db_, 5);
  if (HasFatalFailure()) return;
  ASSERT_EQ(Journals(db_).size(), 1u);
  EXPECT_TRUE(Stored(db_).empty());
  auto store = OpenStoreOrDie(db_);
  EXPECT_TRUE(Journals(db_).empty());
  EXPECT_EQ(Stored(db_), Texts(0, 10));
  auto writer = store->OpenWriter("j");
  ASSERT_TRUE(writer.ok());
  EXPECT_EQ((*writer)->next_seq(), 10) << "the session goes on after the folded appends";
}

TEST_F(JournaledEventLogTest, AppendsThatNeverPauseReplaceTheJournalInsteadOfGrowingIt) {
  // A fold every 20 ms while appends keep coming (without a pause) leaves
  // some behind each time, so the journal is never emptied: it is replaced
  // once it holds 4 KiB, and the old one deleted after the next fold. (How
  // far one grows past 4 KiB depends on how often the folder, at nice 19,
  // gets the CPU: on a loaded machine, seconds.)
  auto store = OpenStoreOrDie(db_, Normal());
  auto log = JournaledEventLog::Open(*store, {.fold_delay = std::chrono::hours(1),
                                              .max_fold_lag = std::chrono::milliseconds(20),
                                              .rotate_bytes = 4096});
  ASSERT_TRUE(log.ok());
  std::set<std::string> paths;
  size_t most_files = 0;
  int64_t next = 0;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (paths.size() < 3 && next < 100000 && std::chrono::steady_clock::now() < end) {
    ASSERT_TRUE((*log)->Append("j", next, Batch(next, 1)).ok());
    ++next;
    paths.insert((*log)->journal_path());
    most_files = std::max(most_files, Journals(db_).size());
  }
  EXPECT_EQ(paths.size(), 3U) << "replaced fewer than twice in " << next << " appends";
  EXPECT_LE(most_files, 2U);  // so the first was deleted before the third was made
  EXPECT_TRUE((*log)->Close().ok());
  EXPECT_TRUE(Journals(db_).empty());
  EXPECT_EQ(Stored(db_), Texts(0, next));
}

TEST_F(JournaledEventLogTest, AKilledRecorderThatHadJustReplacedItsJournalLeavesTwoFoldedInOrder) {
  const pid_t child = fork();
  if (child == 0) {
    auto store = EventStore::Open(db_, Normal());
    if (!store.ok()) _exit(2);
    auto log = JournaledEventLog::Open(**store, {.fold_delay = std::chrono::hours(1),
                                                 .max_fold_lag = std::chrono::milliseconds(100),
                                                 .rotate_bytes = 2048});
    if (!log.ok()) _exit(3);
    const std::string first = (*log)->journal_path();
    int64_t next = 0;
    // Until the journal is replaced (the appends left behind are in the old
    // one), then three more into the new one, and die well before the next fold.
    for (int extra = 0; extra < 3 && next < 100000;) {
      if (!(*log)->Append("j", next, Batch(next, 1)).ok()) _exit(4);
      ++next;
      if ((*log)->journal_path() != first) {
        ++extra;
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    }
    kill(getpid(), SIGKILL);
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "child exited with " << WEXITSTATUS(status);
  ASSERT_EQ(Journals(db_).size(), 2U);
  const size_t stored_before = Stored(db_).size();
  auto store = OpenStoreOrDie(db_);
  EXPECT_TRUE(Journals(db_).empty());
  const std::vector<std::string> stored = Stored(db_);
  EXPECT_GT(stored.size(), stored_before);
  EXPECT_EQ(stored, Texts(0, static_cast<int64_t>(stored.size())));
  auto writer = store->OpenWriter("j");
  ASSERT_TRUE(writer.ok());
  EXPECT_EQ((*writer)->next_seq(), static_cast<int64_t>(stored.size()));
}

TEST_F(JournaledEventLogTest, FoldingAgainWhatWasAlreadyFoldedChangesNothing) {
  AppendAndDie(db_, 3);
  if (HasFatalFailure()) return;
  const std::string journal = Journals(db_).at(0);
  const std::string copy = dir_ / "copy";
  std::filesystem::copy_file(journal, copy);
  OpenStoreOrDie(db_);  // folds and removes it
  std::filesystem::copy_file(copy, journal);  // as if the crash came between the fold's commit and the removal
  OpenStoreOrDie(db_);
  EXPECT_TRUE(Journals(db_).empty());
  EXPECT_EQ(Stored(db_), Texts(0, 6));
}

TEST_F(JournaledEventLogTest, ATornLastFrameIsDroppedAndTheRestFolded) {
  AppendAndDie(db_, 3);
  if (HasFatalFailure()) return;
  const std::string journal = Journals(db_).at(0);
  std::filesystem::resize_file(journal, std::filesystem::file_size(journal) - 5);
  OpenStoreOrDie(db_);
  EXPECT_TRUE(Journals(db_).empty());
  EXPECT_EQ(Stored(db_), Texts(0, 4));
}

TEST_F(JournaledEventLogTest, ACorruptFrameFailsTheOpenAndTheFileIsKept) {
  AppendAndDie(db_, 3);
  if (HasFatalFailure()) return;
  const std::string journal = Journals(db_).at(0);
  std::string bytes = ReadFile(journal);
  bytes[bytes.find("journal-tick") + 3] ^= 1;  // inside the first frame
  WriteFile(journal, bytes);
  auto store = EventStore::Open(db_);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), Status::Code::kCorruption);
  EXPECT_THAT(store.status().message(), HasSubstr(journal));
  EXPECT_THAT(store.status().message(), HasSubstr("the frame at byte 44 fails its checksum"));
  EXPECT_THAT(store.status().message(), HasSubstr("move the file away"));
  EXPECT_EQ(Journals(db_).size(), 1u);
  EXPECT_TRUE(Stored(db_).empty()) << "nothing half-folded";
}

// The journal as if written before the machine last booted.
void FromAnotherBoot(const std::string& journal) {
  std::string bytes = ReadFile(journal);
  ASSERT_EQ(bytes.substr(8, 36), CurrentBootId());
  bytes.replace(8, 36, "00000000-0000-4000-8000-000000000000");
  WriteFile(journal, bytes);
}

TEST_F(JournaledEventLogTest, AfterAMachineCrashTheFramesBeforeABadOneAreFoldedAndTheRestDropped) {
  if (CurrentBootId().empty()) GTEST_SKIP() << "no /proc/sys/kernel/random/boot_id on this machine";
  AppendAndDie(db_, 3);
  if (HasFatalFailure()) return;
  const std::string journal = Journals(db_).at(0);
  FromAnotherBoot(journal);
  if (HasFatalFailure()) return;
  std::string bytes = ReadFile(journal);
  bytes[bytes.find("journal-tick", bytes.find("journal-tick") + 300) + 3] ^= 1;  // inside the second frame
  WriteFile(journal, bytes);
  OpenStoreOrDie(db_);
  EXPECT_TRUE(Journals(db_).empty());
  EXPECT_EQ(Stored(db_), Texts(0, 2)) << "the lost page took the later appends with it, as `normal` allows";
}

// A journal holding the appends at seqs 2..3 of session "j", whose database
// holds none: as if the database had lost the commit of seqs 0..1.
void JournalPastTheEnd(const std::string& db) {
  auto journal = AppendJournal::Create(db);
  ASSERT_TRUE(journal.ok());
  const std::vector<std::string> lines = {Text(2), Text(3)};
  const std::vector<std::string_view> views(lines.begin(), lines.end());
  ASSERT_TRUE(journal->Write("j", 2, views).ok());
}  // closed unfolded: an orphan

TEST_F(JournaledEventLogTest, AfterAMachineCrashAFrameThatNoLongerContinuesItsSessionIsDropped) {
  if (CurrentBootId().empty()) GTEST_SKIP() << "no /proc/sys/kernel/random/boot_id on this machine";
  JournalPastTheEnd(db_);
  if (HasFatalFailure()) return;
  FromAnotherBoot(Journals(db_).at(0));
  if (HasFatalFailure()) return;
  OpenStoreOrDie(db_);
  EXPECT_TRUE(Journals(db_).empty());
  EXPECT_TRUE(Stored(db_).empty());
}

TEST_F(JournaledEventLogTest, AfterAProcessCrashAFrameThatDoesNotContinueItsSessionFailsTheOpen) {
  JournalPastTheEnd(db_);
  if (HasFatalFailure()) return;
  auto store = EventStore::Open(db_);
  ASSERT_FALSE(store.ok());
  EXPECT_THAT(store.status().message(), HasSubstr("append gap"));
  EXPECT_EQ(Journals(db_).size(), 1u) << "kept";
}

TEST_F(JournaledEventLogTest, ALiveRecordersJournalIsLeftAlone) {
  auto store = OpenStoreOrDie(db_, Normal());
  auto log = JournaledEventLog::Open(*store, {.fold_delay = std::chrono::hours(1), .max_fold_lag = std::chrono::hours(1)});
  ASSERT_TRUE((*log)->Append("j", 0, Batch(0, 2)).ok());
  auto other = OpenStoreOrDie(db_);  // another opener meanwhile
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(Journals(db_).size(), 1u);
  EXPECT_TRUE(Stored(db_).empty());
  ASSERT_TRUE((*log)->Append("j", 2, Batch(2, 2)).ok());
  ASSERT_TRUE((*log)->Close().ok());
  EXPECT_EQ(Stored(db_), Texts(0, 4));
}

TEST_F(JournaledEventLogTest, AFailedJournalWriteIsRefusedAndLeavesNoTornFrame) {
  // A child whose files may not grow past a limit: the big batch cannot be
  // written whole, is refused, and the small one after it still fits.
  const pid_t child = fork();
  if (child == 0) {
    signal(SIGXFSZ, SIG_IGN);
    StoreOptions o;
    o.durability = Durability::kNormal;
    auto store = EventStore::Open(db_, o);
    if (!store.ok()) _exit(2);
    auto log = JournaledEventLog::Open(**store, {.fold_delay = std::chrono::hours(1), .max_fold_lag = std::chrono::hours(1)});
    if (!log.ok()) _exit(3);
    if (!(*log)->Append("j", 0, Batch(0, 1)).ok()) _exit(4);
    const auto size = static_cast<rlim_t>(std::filesystem::file_size((*log)->journal_path()));
    const rlimit limit{size + 2000, size + 2000};
    if (setrlimit(RLIMIT_FSIZE, &limit) != 0) _exit(5);
    auto big = (*log)->Append("j", 1, Batch(1, 1, 5000));
    if (big.ok() || big.status().code() != Status::Code::kIoError) _exit(6);
    if (!(*log)->Append("j", 1, Batch(1, 1)).ok()) _exit(7);
    kill(getpid(), SIGKILL);
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "child exited with " << WEXITSTATUS(status);
  OpenStoreOrDie(db_);
  EXPECT_EQ(Stored(db_), Texts(0, 2));
}

}  // namespace
}  // namespace retrace::store
