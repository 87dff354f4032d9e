// A child process appending batches is SIGKILLed at random points. After each
// kill the database passes PRAGMA integrity_check and holds exactly a prefix
// of the batches — at least every acknowledged one, never a partial batch.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <random>
#include <set>
#include <thread>

#include "store/journaled_event_log.h"
#include "store/session_writer.h"
#include "tests/store/store_test_util.h"

namespace retrace::store {
namespace {

using namespace retrace::store::testing;

constexpr int kRuns = 200;
constexpr int kRunsPerDatabase = 25;

// Batches are a pure function of where they start: size 1 + (start % 5).
int64_t BatchSize(int64_t start) { return 1 + start % 5; }

std::string EventText(int64_t seq) {
  // Unknown types are allowed when ignorable; the payload makes every event distinct.
  return R"({"type":"retrace/crash-tick","seq":)" + std::to_string(seq) + R"(,"time":)" + std::to_string(1000 + seq) +
         R"(,"data":{"payload":")" + std::string(static_cast<size_t>(20 + seq % 200), static_cast<char>('a' + seq % 26)) +
         R"("},"ignorable":true})";
}

std::vector<log::EventRecord> MakeBatch(int64_t start) {
  std::vector<log::EventRecord> batch;
  for (int64_t s = start; s < start + BatchSize(start); ++s) {
    auto e = log::ParseEvent(EventText(s));
    batch.push_back({std::move(e).value(), EventText(s)});
  }
  return batch;
}

// Child: appends batches forever, reporting each acknowledged end seq on `fd`.
[[noreturn]] void AppendUntilKilled(const std::string& db, int fd, bool full) {
  StoreOptions options;
  options.durability = full ? Durability::kFull : Durability::kNormal;
  auto store = EventStore::Open(db, options);
  if (!store.ok()) _exit(2);
  auto writer = (*store)->OpenWriter("crash");
  if (!writer.ok()) _exit(3);
  int64_t next = (*writer)->next_seq();
  if (write(fd, &next, sizeof next) != sizeof next) _exit(4);  // "ready"
  while (true) {
    const auto batch = MakeBatch(next);
    if (!(*writer)->Append(next, batch).ok()) _exit(5);
    next += static_cast<int64_t>(batch.size());
    if (write(fd, &next, sizeof next) != sizeof next) _exit(6);
  }
}

// Child: the same through a journaled log (a `normal` recording), which folds
// into the database every `fold_delay` (its lag bound, so the unbroken appends
// do not hold the folds off): kills land before, during and after folds.
[[noreturn]] void AppendJournaledUntilKilled(const std::string& db, int fd, std::chrono::microseconds fold_delay) {
  StoreOptions options;
  options.durability = Durability::kNormal;
  auto store = EventStore::Open(db, options);  // folds what the previous child left
  if (!store.ok()) _exit(2);
  auto log = JournaledEventLog::Open(**store, {.fold_delay = fold_delay, .max_fold_lag = fold_delay});
  if (!log.ok()) _exit(3);
  auto stored = (*log)->NextSeq("crash");
  if (!stored.ok()) _exit(3);
  int64_t next = *stored;
  if (write(fd, &next, sizeof next) != sizeof next) _exit(4);
  while (true) {
    const auto batch = MakeBatch(next);
    if (!(*log)->Append("crash", next, batch).ok()) _exit(5);
    next += static_cast<int64_t>(batch.size());
    if (write(fd, &next, sizeof next) != sizeof next) _exit(6);
  }
}

std::set<int64_t> BatchBoundaries(int64_t up_to) {
  std::set<int64_t> b;
  for (int64_t s = 0; s <= up_to; s += BatchSize(s)) b.insert(s);
  return b;
}

void VerifyPrefix(const std::string& db_path, int64_t acknowledged) {
  auto db = Db::Open(db_path, Db::Mode::kReadWrite);
  ASSERT_TRUE(db.ok());
  auto check = Statement::Prepare(*db, "PRAGMA integrity_check");
  ASSERT_TRUE(check.ok() && *check->Step());
  ASSERT_EQ(check->Text(0), "ok");
  auto stored = Statement::Prepare(*db, "SELECT seq, json FROM events ORDER BY seq");
  int64_t count = 0;
  while (*stored->Step()) {
    ASSERT_EQ(stored->Int(0), count);
    ASSERT_EQ(stored->Text(1), EventText(count));
    ++count;
  }
  ASSERT_GE(count, acknowledged) << "an acknowledged batch was lost";
  ASSERT_LE(count, acknowledged + BatchSize(acknowledged)) << "more than the in-flight batch was stored";
  ASSERT_TRUE(BatchBoundaries(count).count(count)) << "partial batch: " << count << " events";
}

// Kills a child appending batches at random points, kRuns times, and checks
// the database after each: `journaled` children record at `normal` through
// the journal, which the check's open folds in.
void KillAndVerify(bool journaled) {
  TempDir dir;
  std::mt19937 rng(20261130);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(3);
  std::string db;
  int64_t acknowledged = 0;
  int runs = 0;
  for (; runs < kRuns && std::chrono::steady_clock::now() < deadline; ++runs) {
    if (runs % kRunsPerDatabase == 0) {
      db = dir / ("crash" + std::to_string(runs) + ".db");
      auto store = OpenStoreOrDie(db);
      log::SessionHeader h;
      h.id = "crash";
      ASSERT_TRUE(store->CreateSession(h, log::SerializeHeaderLine(h)).ok());
      acknowledged = 0;
    }
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    const pid_t child = fork();
    if (child == 0) {
      close(fds[0]);
      if (journaled) {
        AppendJournaledUntilKilled(db, fds[1], std::chrono::microseconds(runs % 3 == 0 ? 0 : runs % 3 == 1 ? 500 : 100000));
      }
      AppendUntilKilled(db, fds[1], runs % 2 == 0);
    }
    close(fds[1]);
    int64_t ready = -1;
    ASSERT_EQ(read(fds[0], &ready, sizeof ready), static_cast<ssize_t>(sizeof ready)) << "child failed to start";
    ASSERT_EQ(ready, acknowledged);
    std::this_thread::sleep_for(std::chrono::microseconds(std::uniform_int_distribution<int>(0, 4000)(rng)));
    kill(child, SIGKILL);
    int status = 0;
    waitpid(child, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "child exited on its own with " << WEXITSTATUS(status);
    int64_t ack = 0;
    while (read(fds[0], &ack, sizeof ack) == static_cast<ssize_t>(sizeof ack)) acknowledged = ack;
    close(fds[0]);
    if (journaled) {  // the open folds the journal the child left
      auto folded = EventStore::Open(db);
      ASSERT_TRUE(folded.ok()) << folded.status().message();
    }
    VerifyPrefix(db, acknowledged);
    if (::testing::Test::HasFatalFailure()) return;
    acknowledged = *Db::Open(db, Db::Mode::kReadOnly)->QueryInt("SELECT coalesce(max(seq + count), 0) FROM events");
  }
  EXPECT_EQ(runs, kRuns) << "ran out of time";
}

TEST(CrashTest, KilledWriterLeavesAnIntactPrefixOfAcknowledgedBatches) { KillAndVerify(/*journaled=*/false); }

TEST(CrashTest, KilledJournaledRecorderLosesNoAcknowledgedBatch) { KillAndVerify(/*journaled=*/true); }

}  // namespace
}  // namespace retrace::store
