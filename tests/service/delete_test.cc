// Deleting sessions (`retrace delete`, `retrace retain`): everything of the
// session goes — events, audit rows, search documents and their full-text
// entries — the rest stays byte for byte, the database stays consistent, the
// file shrinks after the vacuum, and a session being recorded is refused.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "service/catalog.h"
#include "service/export.h"
#include "service/import.h"
#include "service/maintain.h"
#include "service/search.h"
#include "store/session_writer.h"
#include "tests/store/store_test_util.h"

namespace retrace::service {
namespace {

using retrace::testing::FixturePath;
using retrace::testing::TempDir;
using ::testing::HasSubstr;

class DeleteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::vector<std::string> logs;
    for (const char* f : {"c01-fs-read.jsonl", "c04-bash-jobs.jsonl", "s1-tools-inject.jsonl"}) {
      logs.push_back(FixturePath(f));
    }
    auto imported = ImportLogs(catalog_, logs);
    ASSERT_TRUE(imported.ok() && imported->refused == 0);
  }

  int64_t Count(const std::string& sql) {
    auto db = store::testing::RawDb(db_);
    auto n = db.QueryInt(sql);
    EXPECT_TRUE(n.ok()) << sql;
    return n.ok() ? *n : -1;
  }
  std::string Exported(const std::string& id) {
    const std::string out = dir_ / (id + ".jsonl");
    std::filesystem::remove(out);
    EXPECT_TRUE(ExportSession(catalog_, id, {.file = out}).ok());
    return retrace::testing::ReadFile(out);
  }

  TempDir dir_;
  std::string db_ = dir_ / "t.db";
  Catalog catalog_{{.db_path = db_}};
};

// The sessions a search for `query` finds (its best hit in each).
std::set<std::string> Found(const Catalog& catalog, const std::string& query) {
  auto page = SearchStored(catalog, {.query = query, .limit = 100});
  EXPECT_TRUE(page.ok()) << page.status().message();
  std::set<std::string> sessions;
  if (page.ok()) {
    for (const auto& h : page->hits) sessions.insert(h.session_id);
  }
  return sessions;
}

TEST_F(DeleteTest, ASessionGoesWithItsRowsAndSearchEntriesAndTheRestStays) {
  const std::string kept = Exported("s1-tools-inject");
  EXPECT_EQ(Found(catalog_, "calc"), (std::set<std::string>{"c01-fs-read", "s1-tools-inject"}));
  const int64_t kept_calls = Count("SELECT count(*) FROM v_tool_calls WHERE session_id = 's1-tools-inject'");
  auto outcome = DeleteSessions(catalog_, {"c01-fs-read", "c04-bash-jobs"});
  ASSERT_TRUE(outcome.ok()) << outcome.status().message();
  ASSERT_EQ(outcome->deleted.size(), 2u);
  EXPECT_EQ(outcome->deleted[0].id, "c01-fs-read");
  EXPECT_GT(outcome->free_pages, 0);
  EXPECT_LT(outcome->bytes_after, outcome->bytes_before);
  EXPECT_EQ(Count("SELECT count(*) FROM sessions"), 1);
  for (const char* table : {"tool_calls", "turns", "steps", "injections", "search_docs", "search_progress"}) {
    EXPECT_EQ(Count(std::string("SELECT count(*) FROM ") + table + " WHERE session <> (SELECT id FROM sessions)"), 0)
        << table;
  }
  EXPECT_EQ(Count("SELECT count(*) FROM events WHERE event_id >> 32 <> (SELECT id FROM sessions)"), 0);
  auto db = store::testing::RawDb(db_);
  EXPECT_TRUE(db.Exec("INSERT INTO search_fts(search_fts) VALUES('integrity-check')").ok());
  EXPECT_EQ(Count("SELECT count(*) FROM pragma_integrity_check WHERE integrity_check <> 'ok'"), 0);
  // A search finds nothing of the deleted sessions, and the full-text index
  // holds an entry for each document left, none for a deleted one (an
  // external-content index keeps entries whose rows are gone unless told).
  EXPECT_EQ(Found(catalog_, "calc"), (std::set<std::string>{"s1-tools-inject"}));
  EXPECT_EQ(Count("SELECT count(*) FROM search_fts_docsize"), Count("SELECT count(*) FROM search_docs"));
  EXPECT_EQ(Count("SELECT count(*) FROM search_fts WHERE search_fts MATCH 'calc'"),
            Count("SELECT count(*) FROM search_docs WHERE id IN (SELECT rowid FROM search_fts WHERE search_fts MATCH 'calc')"));
  // The session left is byte for byte what it was, audit rows included.
  EXPECT_EQ(Exported("s1-tools-inject"), kept);
  EXPECT_EQ(Count("SELECT count(*) FROM v_tool_calls WHERE session_id = 's1-tools-inject'"), kept_calls);
  // And the id can be imported again.
  auto again = ImportLogs(catalog_, {FixturePath("c01-fs-read.jsonl")});
  ASSERT_TRUE(again.ok() && again->refused == 0);
}

TEST_F(DeleteTest, AnUnknownIdChangesNothing) {
  auto outcome = DeleteSessions(catalog_, {"c01-fs-read", "no-such-session"});
  ASSERT_FALSE(outcome.ok());
  EXPECT_THAT(outcome.status().message(), HasSubstr("no-such-session"));
  EXPECT_EQ(Count("SELECT count(*) FROM sessions"), 3);
  auto twice = DeleteSessions(catalog_, {"c01-fs-read", "c01-fs-read"});
  ASSERT_FALSE(twice.ok());
  EXPECT_THAT(twice.status().message(), HasSubstr("named twice"));
  EXPECT_EQ(Count("SELECT count(*) FROM sessions"), 3);
}

TEST_F(DeleteTest, ASessionBeingRecordedIsNeverDeletedUnderItsWriter) {
  auto store = catalog_.Open(Access::kExisting);
  ASSERT_TRUE(store.ok());
  auto writer = (*store)->OpenWriter("c04-bash-jobs");  // held by this process, as a live recording holds it
  ASSERT_TRUE(writer.ok()) << writer.status().message();
  auto outcome = DeleteSessions(catalog_, {"c01-fs-read", "c04-bash-jobs", "s1-tools-inject"});
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.status().code(), Status::Code::kBusy);
  EXPECT_THAT(outcome.status().message(), HasSubstr("c04-bash-jobs"));
  EXPECT_THAT(outcome.status().message(), HasSubstr("1 of 3 sessions deleted before it"));
  // The one before it is gone; it and the one after it are untouched.
  EXPECT_EQ(Count("SELECT count(*) FROM sessions WHERE session_id = 'c01-fs-read'"), 0);
  EXPECT_EQ(Count("SELECT count(*) FROM sessions WHERE session_id IN ('c04-bash-jobs', 's1-tools-inject')"), 2);
  writer->reset();
  EXPECT_TRUE(DeleteSessions(catalog_, {"c04-bash-jobs"}).ok());
}

TEST_F(DeleteTest, RetentionPicksTheSessionsWhoseLastEventIsOlderThanTheCutoff) {
  auto all = SessionsIdleSince(catalog_, INT64_MAX);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 3u);
  for (size_t i = 1; i < all->size(); ++i) EXPECT_LE((*all)[i - 1].updated_at, (*all)[i].updated_at);
  // Between the oldest and the newest: the older ones only.
  const int64_t cutoff = (*all)[1].updated_at;
  auto old = SessionsIdleSince(catalog_, cutoff);
  ASSERT_TRUE(old.ok());
  ASSERT_EQ(old->size(), 1u);
  EXPECT_EQ((*old)[0].id, (*all)[0].id);
  EXPECT_TRUE(SessionsIdleSince(catalog_, 0)->empty());
}

}  // namespace
}  // namespace retrace::service
