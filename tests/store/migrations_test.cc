#include "store/migrations.h"

#include <gtest/gtest.h>

#include "store/importer.h"
#include "tests/store/store_test_util.h"

namespace retrace::store {
namespace {

using namespace retrace::store::testing;
using ::testing::HasSubstr;

const Migration kV1{1, "0001_a.sql", "CREATE TABLE a(x INTEGER) STRICT;"};
const Migration kV2{2, "0002_b.sql", "CREATE TABLE b(y INTEGER) STRICT;"};

StoreOptions With(std::vector<Migration>& list, bool migrate = false) {
  StoreOptions o;
  o.migrations = list;
  o.migrate = migrate;
  o.now_ms = [] { return int64_t{1234}; };
  return o;
}

TEST(MigrationsTest, EmbeddedMigrationsAreNumberedFromOneInOrder) {
  const auto list = EmbeddedMigrations();
  ASSERT_FALSE(list.empty());
  for (size_t i = 0; i < list.size(); ++i) EXPECT_EQ(list[i].version, static_cast<int>(i + 1));
  EXPECT_EQ(list[0].name, "0001_initial.sql");
}

TEST(MigrationsTest, NewDatabaseGetsEveryMigrationRecordedInTheLedger) {
  TempDir dir;
  auto store = OpenStoreOrDie(dir / "m.db");
  Db db = RawDb(store->path());
  EXPECT_EQ(*db.QueryInt("PRAGMA application_id"), kApplicationId);
  EXPECT_EQ(*db.QueryInt("PRAGMA user_version"), EmbeddedMigrations().back().version);
  auto st = Statement::Prepare(db, "SELECT name, checksum FROM schema_migrations WHERE version = 1");
  ASSERT_TRUE(st.ok() && *st->Step());
  EXPECT_EQ(st->Text(0), "0001_initial.sql");
  EXPECT_EQ(st->Text(1), MigrationChecksum(EmbeddedMigrations()[0].sql));
}

TEST(MigrationsTest, ExistingDatabaseNeedsAnExplicitMigrate) {
  TempDir dir;
  std::vector<Migration> v1 = {kV1}, v2 = {kV1, kV2};
  ASSERT_NE(OpenStoreOrDie(dir / "m.db", With(v1)), nullptr);
  auto refused = EventStore::Open(dir / "m.db", With(v2));
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("has schema version 1; this retrace needs version 2: run `retrace migrate`"));
  auto migrated = EventStore::Open(dir / "m.db", With(v2, /*migrate=*/true));
  ASSERT_TRUE(migrated.ok()) << migrated.status().message();
  EXPECT_EQ(*RawDb((*migrated)->path()).QueryInt("PRAGMA user_version"), 2);
  EXPECT_EQ(*RawDb((*migrated)->path()).QueryInt("SELECT count(*) FROM schema_migrations"), 2);
}

TEST(MigrationsTest, ChangedChecksumIsRefusedNamingTheMigration) {
  TempDir dir;
  std::vector<Migration> v1 = {kV1};
  ASSERT_NE(OpenStoreOrDie(dir / "m.db", With(v1)), nullptr);
  std::vector<Migration> edited = {{1, "0001_a.sql", "CREATE TABLE a(x INTEGER, z TEXT) STRICT;"}};
  auto refused = EventStore::Open(dir / "m.db", With(edited));
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("migration 0001_a.sql was applied with checksum"));
}

TEST(MigrationsTest, FailingMigrationLeavesTheDatabaseAtTheOldVersion) {
  TempDir dir;
  std::vector<Migration> v1 = {kV1};
  ASSERT_NE(OpenStoreOrDie(dir / "m.db", With(v1)), nullptr);
  std::vector<Migration> bad = {kV1, {2, "0002_bad.sql", "CREATE TABLE c(x INTEGER); CREATE TABLE a(dup INTEGER);"}};
  auto failed = EventStore::Open(dir / "m.db", With(bad, true));
  ASSERT_FALSE(failed.ok());
  EXPECT_THAT(failed.status().message(), HasSubstr("migration 0002_bad.sql"));
  auto db = Db::Open(dir / "m.db", Db::Mode::kReadOnly);
  EXPECT_EQ(*db->QueryInt("PRAGMA user_version"), 1);
  EXPECT_EQ(*db->QueryInt("SELECT count(*) FROM sqlite_schema WHERE name = 'c'"), 0);
}

// Migration 4 puts Code Mode's sub-calls into the read model: a database made
// before it gets the rows of the sub-calls it already stores (the log is one
// `retrace run --tools-mode code` recorded: tests/fixtures/synthetic).
TEST(MigrationsTest, CodeModeSubCallsJoinTheReadModelWithTheRowsOfStoredSessions) {
  TempDir dir;
  const std::string path = dir / "m.db";
  const auto embedded = EmbeddedMigrations();
  ASSERT_GE(embedded.size(), 4u);
  ASSERT_EQ(embedded[3].name, kCodeDispatchMigration);
  std::vector<Migration> v3(embedded.begin(), embedded.begin() + 3);
  {
    auto store = EventStore::Open(path, With(v3, /*migrate=*/true));
    ASSERT_TRUE(store.ok()) << store.status().message();
    auto imported = ImportJsonl(**store, std::string(RETRACE_FIXTURE_DIR) + "/synthetic/code-mode-session.jsonl");
    ASSERT_TRUE(imported.ok()) << imported.status().message();
    EXPECT_EQ(*RawDb(path).QueryInt("SELECT count(*) FROM tool_calls"), 1);  // run_code alone
  }
  std::vector<Migration> all(embedded.begin(), embedded.end());
  auto migrated = EventStore::Open(path, With(all, /*migrate=*/true));
  ASSERT_TRUE(migrated.ok()) << migrated.status().message();
  Db db = RawDb(path);
  EXPECT_EQ(*db.QueryInt("PRAGMA user_version"), static_cast<int64_t>(embedded.size()));
  EXPECT_EQ(*db.QueryInt("SELECT count(*) FROM tool_calls WHERE parent_call_id = 'c1'"), 2);
  EXPECT_EQ(*db.QueryInt("SELECT count(*) FROM v_tool_calls WHERE call_id = 'c1:code:2' AND tool_name = 'read'"
                         " AND outcome = 'plain-error' AND parent_call_id = 'c1' AND call_seq < result_seq"),
            1);
  EXPECT_EQ(*db.QueryInt("SELECT count(*) FROM v_tool_calls WHERE call_id = 'c1:code:1' AND outcome = 'ok'"
                         " AND arguments = '{\"pattern\":\"TODO\",\"path\":\"notes.txt\"}'"),
            1);
  // Turn counts stay the model's own calls.
  EXPECT_EQ(*db.QueryInt("SELECT tool_calls FROM v_turns"), 1);
}

}  // namespace
}  // namespace retrace::store
