// A process migrating a version-1 database (schema steps plus the read-model
// backfill of every stored session) is SIGKILLed at spread-out moments. After
// each kill the database passes integrity_check and is at the old version
// with no read model, or at the new one with the complete model: never
// between. A migration run to the end afterwards gives the same model as one
// never interrupted.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "store/importer.h"
#include "store/migrations.h"
#include "tests/store/store_test_util.h"

namespace retrace::store {
namespace {

using namespace retrace::store::testing;

constexpr int kKills = 15;

// A version-1 database holding `copies` sessions, each a renamed copy of a fixture.
void MakeVersion1(const TempDir& dir, const std::string& db, int copies) {
  StoreOptions v1;
  v1.migrations = EmbeddedMigrations().subspan(0, 1);
  auto store = OpenStoreOrDie(db, v1);
  const std::string text = ReadFile(FixturePath("c04-bash-jobs.jsonl"));
  for (int i = 0; i < copies; ++i) {
    std::string copy = text;
    copy.replace(copy.find("\"id\":\"c04-bash-jobs\""), 20, "\"id\":\"copy-" + std::to_string(i) + "\"");
    WriteFile(dir / "copy.jsonl", copy);
    ASSERT_TRUE(ImportJsonl(*store, dir / "copy.jsonl").ok());
  }
}

int64_t Query(const std::string& db, const std::string& sql) {
  auto d = Db::Open(db, Db::Mode::kReadOnly);
  auto v = d.ok() ? d->QueryInt(sql) : Result<int64_t>(d.status());
  return v.ok() ? *v : -1;
}

std::string Integrity(const std::string& db) {
  auto d = Db::Open(db, Db::Mode::kReadOnly);
  if (!d.ok()) return d.status().message();
  auto st = Statement::Prepare(*d, "PRAGMA integrity_check");
  if (!st.ok()) return "no answer";
  auto row = st->Step();
  if (!row.ok() || !*row) return "no answer";
  return std::string(st->Text(0));
}

// Forks a child that migrates `db`; kills it after `delay` unless it finished first.
// Returns whether it finished (successfully) on its own.
bool MigrateAndKill(const std::string& db, std::chrono::microseconds delay) {
  const pid_t pid = fork();
  if (pid == 0) {
    StoreOptions migrate;
    migrate.migrate = true;
    _exit(EventStore::Open(db, migrate).ok() ? 0 : 1);
  }
  const auto deadline = std::chrono::steady_clock::now() + delay;
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() >= deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return false;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

TEST(MigrationCrashTest, AKillLeavesTheOldVersionOrTheCompleteNewOneNeverBetween) {
  TempDir dir;
  MakeVersion1(dir, dir / "template.db", 150);
  const int64_t newest = static_cast<int64_t>(EmbeddedMigrations().size());
  // The model a migration run to the end derives.
  std::filesystem::copy_file(dir / "template.db", dir / "clean.db");
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(MigrateAndKill(dir / "clean.db", std::chrono::seconds(60)));
  const auto took = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start);
  const int64_t calls = Query(dir / "clean.db", "SELECT COUNT(*) FROM tool_calls");
  const int64_t docs = Query(dir / "clean.db", "SELECT COUNT(*) FROM search_docs");
  ASSERT_GT(calls, 0);

  int old_version = 0, new_version = 0;
  for (int run = 0; run < kKills; ++run) {
    const std::string db = dir / ("run" + std::to_string(run) + ".db");
    std::filesystem::copy_file(dir / "template.db", db);
    // Spread over the migration: from before it starts to past its end.
    MigrateAndKill(db, took * 2 * run / kKills);
    ASSERT_EQ(Integrity(db), "ok") << "run " << run;
    const int64_t version = Query(db, "PRAGMA user_version");
    if (version == 1) {
      ++old_version;
      EXPECT_EQ(Query(db, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'tool_calls'"), 0) << "run " << run;
    } else {
      ++new_version;
      ASSERT_EQ(version, newest) << "run " << run;
      EXPECT_EQ(Query(db, "SELECT COUNT(*) FROM tool_calls"), calls) << "run " << run;
      EXPECT_EQ(Query(db, "SELECT COUNT(*) FROM search_docs"), docs) << "run " << run;
    }
    // Whatever the kill left, migrating again completes it.
    ASSERT_TRUE(MigrateAndKill(db, std::chrono::seconds(60))) << "run " << run;
    EXPECT_EQ(Query(db, "SELECT COUNT(*) FROM tool_calls"), calls) << "run " << run;
  }
  std::printf("a migration took %lld ms; of %d killed at spread-out moments, %d were left at version 1, %d at %lld\n",
              static_cast<long long>(took.count() / 1000), kKills, old_version, new_version, static_cast<long long>(newest));
  EXPECT_GT(old_version, 0);  // kills did land inside migrations (how many land after the commit depends on load)
}

}  // namespace
}  // namespace retrace::store
