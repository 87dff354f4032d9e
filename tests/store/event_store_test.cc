#include "store/event_store.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "store/importer.h"
#include "store/session_writer.h"
#include "store/sqlite_event_log.h"
#include "tests/log/log_test_util.h"
#include "tests/store/store_test_util.h"

namespace retrace::store {
namespace {

using namespace retrace::store::testing;
using ::testing::HasSubstr;

log::SessionHeader Header(const std::string& id) {
  log::SessionHeader h;
  h.id = id;
  h.created_at = 1000;
  h.cwd = "/w";
  return h;
}

class EventStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = OpenStoreOrDie(dir_ / "s.db");
    log_ = std::make_unique<SqliteEventLog>(*store_);
    ASSERT_TRUE(log_->CreateSession(Header("s")).ok());
    for (const auto& l : log::testing::SmallSessionLines()) records_.push_back(log::testing::Rec(l));
  }
  std::span<const log::EventRecord> Batch(size_t from, size_t n) { return std::span(records_).subspan(from, n); }

  TempDir dir_;
  std::unique_ptr<EventStore> store_;
  std::unique_ptr<SqliteEventLog> log_;
  std::vector<log::EventRecord> records_;
};

// A first run on a fresh machine: ~/.retrace/ does not exist yet.
TEST_F(EventStoreTest, CreatingADatabaseMakesItsMissingDirectoriesOwnerOnly) {
  const std::string db = dir_ / "fresh/nested/r.db";
  Result<std::unique_ptr<EventStore>> opened = EventStore::Open(db, StoreOptions{});
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  for (const char* dir : {"fresh", "fresh/nested"}) {
    EXPECT_EQ(std::filesystem::status(dir_ / dir).permissions() & std::filesystem::perms::all,
              std::filesystem::perms::owner_all)
        << dir;
  }
  // Opening an existing database creates nothing.
  StoreOptions existing;
  existing.create = false;
  EXPECT_EQ(EventStore::Open(dir_ / "absent/r.db", existing).status().code(), Status::Code::kNotFound);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "absent"));
}

TEST_F(EventStoreTest, ADirectoryThatCannotBeMadeIsNamed) {
  retrace::testing::WriteFile(dir_ / "file", "");
  Result<std::unique_ptr<EventStore>> opened = EventStore::Open(dir_ / "file/sub/r.db", StoreOptions{});
  ASSERT_FALSE(opened.ok());
  EXPECT_THAT(opened.status().message(), HasSubstr("cannot create the directory " + (dir_ / "file")));
}

TEST_F(EventStoreTest, AppendsAndReadsBackVerbatim) {
  ASSERT_EQ(*log_->Append("s", 0, Batch(0, 4)), log::AppendOutcome::kAppended);
  ASSERT_EQ(*log_->Append("s", 4, Batch(4, 4)), log::AppendOutcome::kAppended);
  auto events = log_->Read("s", 0);
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 8u);
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ((*events)[i].text, records_[i].text);
  EXPECT_EQ(*log_->NextSeq("s"), 8);
  auto summary = store_->Describe("s");
  EXPECT_EQ(summary->turns, 1);
  EXPECT_EQ(summary->tool_calls, 1);
}

TEST_F(EventStoreTest, ResendingAnAcknowledgedBatchIsAlreadyAppended) {
  ASSERT_TRUE(log_->Append("s", 0, Batch(0, 4)).ok());
  EXPECT_EQ(*log_->Append("s", 0, Batch(0, 4)), log::AppendOutcome::kAlreadyAppended);
  EXPECT_EQ(*log_->Append("s", 2, Batch(2, 2)), log::AppendOutcome::kAlreadyAppended);
  EXPECT_EQ(*log_->NextSeq("s"), 4);
}

TEST_F(EventStoreTest, DifferentBatchAtATakenSeqIsAConflict) {
  ASSERT_TRUE(log_->Append("s", 0, Batch(0, 4)).ok());
  log::EventRecord other = log::testing::Rec(R"({"type":"turn/start","seq":0,"time":5,"data":{"turn":1}})");
  auto r = log_->Append("s", 0, std::span(&other, 1));
  EXPECT_EQ(r.status().code(), Status::Code::kConflict);
  EXPECT_THAT(r.status().message(), HasSubstr("seq 0 is already taken by a different event"));
}

TEST_F(EventStoreTest, GapIsRefusedAndNothingIsWritten) {
  const std::string before = Fingerprint(dir_ / "s.db");
  auto r = log_->Append("s", 2, Batch(2, 2));
  EXPECT_THAT(r.status().message(), HasSubstr("append gap"));
  EXPECT_EQ(Fingerprint(dir_ / "s.db"), before);
}

TEST_F(EventStoreTest, InvalidEventRefusesTheWholeBatchAtomically) {
  std::vector<log::EventRecord> batch(records_.begin(), records_.begin() + 3);
  batch.push_back(log::testing::Rec(R"({"type":"mystery","seq":3,"time":1,"data":{}})"));
  const std::string before = Fingerprint(dir_ / "s.db");
  EXPECT_FALSE(log_->Append("s", 0, batch).ok());
  EXPECT_EQ(Fingerprint(dir_ / "s.db"), before);
  // The writer's view rolled back too: the valid prefix can still be appended.
  EXPECT_EQ(*log_->Append("s", 0, Batch(0, 3)), log::AppendOutcome::kAppended);
}

TEST_F(EventStoreTest, SecondWriterInTheSameProcessIsBusy) {
  ASSERT_TRUE(log_->Append("s", 0, Batch(0, 1)).ok());  // log_ now holds the writer
  auto second = store_->OpenWriter("s");
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), Status::Code::kBusy);
  EXPECT_THAT(second.status().message(), HasSubstr("session \"s\" is being written by another writer"));
}

TEST_F(EventStoreTest, SecondWriterInAnotherProcessIsBusy) {
  ASSERT_TRUE(log_->Append("s", 0, Batch(0, 1)).ok());
  const pid_t child = fork();
  if (child == 0) {
    auto store = EventStore::Open(dir_ / "s.db");
    auto w = store.ok() ? (*store)->OpenWriter("s") : Result<std::unique_ptr<SessionWriter>>(store.status());
    _exit(!w.ok() && w.status().code() == Status::Code::kBusy ? 0 : 1);
  }
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  log_.reset();  // releases the lock: now another process may write
  const pid_t again = fork();
  if (again == 0) {
    auto store = EventStore::Open(dir_ / "s.db");
    _exit(store.ok() && (*store)->OpenWriter("s").ok() ? 0 : 1);
  }
  waitpid(again, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST_F(EventStoreTest, DuplicateSessionIsAlreadyExists) {
  EXPECT_EQ(log_->CreateSession(Header("s")).code(), Status::Code::kAlreadyExists);
  EXPECT_EQ(log_->NextSeq("nope").status().code(), Status::Code::kNotFound);
}

TEST_F(EventStoreTest, EventFilterSelectsTypeAndStartSeq) {
  ASSERT_TRUE(log_->Append("s", 0, Batch(0, 8)).ok());
  std::vector<int64_t> seqs;
  ASSERT_TRUE(store_->ForEachEvent("s", EventFilter{3, std::string("tool/result")}, [&](const StoredEvent& e) {
    seqs.push_back(e.seq);
    return Status::Ok();
  }).ok());
  EXPECT_EQ(seqs, (std::vector<int64_t>{5}));
}

TEST(DurabilityTest, NormalAndFullBothPersistAcknowledgedAppends) {
  for (Durability d : {Durability::kFull, Durability::kNormal}) {
    TempDir dir;
    StoreOptions options;
    options.durability = d;
    {
      auto store = OpenStoreOrDie(dir / "d.db", options);
      ASSERT_TRUE(ImportJsonl(*store, FixturePath("s1-tools-inject.jsonl")).ok());
      EXPECT_EQ(*store->EffectiveDurability(), d);
      EXPECT_EQ(*RawDb(store->path()).QueryInt("SELECT count(*) FROM pragma_journal_mode WHERE journal_mode = 'wal'"), 1);
    }
    auto store = OpenStoreOrDie(dir / "d.db", options);
    EXPECT_EQ(store->Describe("s1-tools-inject")->events, 92);
  }
}

}  // namespace
}  // namespace retrace::store
