// The read model (audit tables, search documents), the audits and read-only queries.
#include "engine/json/js_text.h"
#include "store/read_model.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "engine/log/event.h"
#include "query/audit.h"
#include "store/importer.h"
#include "store/journaled_event_log.h"
#include "format/jsonl_reader.h"
#include "store/migrations.h"
#include "query/sql_query.h"
#include "tests/store/store_test_util.h"

namespace retrace::query {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using store::testing::OpenStoreOrDie;
using testing::TempDir;

// Every fixture but the repaired s2 (it shares the crashed one's session id).
std::vector<std::string> DistinctFixtures() {
  std::vector<std::string> out;
  for (const std::string& f : retrace::testing::RawFixtures())
    if (f != "s2-interrupted-tool.repaired-resumed.jsonl") out.push_back(f);
  return out;
}

// Imports, then brings the FTS5 index up to date as a search would.
void ImportAll(store::EventStore& store, const std::vector<std::string>& fixtures) {
  for (const std::string& f : fixtures) ASSERT_TRUE(store::ImportJsonl(store, testing::FixturePath(f)).ok()) << f;
  ASSERT_TRUE(store.CatchUpSearchIndex().ok());
}

std::string Cell(const SqlCell& c) {
  if (const auto* i = std::get_if<int64_t>(&c)) return std::to_string(*i);
  if (const auto* s = std::get_if<std::string>(&c)) return *s;
  if (const auto* d = std::get_if<double>(&c)) return std::to_string(*d);
  return "NULL";
}

// Every derived row, as text, in a fixed order.
std::string DumpReadModel(const std::string& path) {
  auto db = ReadOnlyDb::Open(path);
  EXPECT_TRUE(db.ok()) << db.status().message();
  std::string out;
  for (const char* sql : {"SELECT * FROM v_tool_calls ORDER BY 1, 2", "SELECT * FROM v_turns ORDER BY 1, 2",
                          "SELECT * FROM v_steps ORDER BY 1, 2, 3", "SELECT * FROM v_injections ORDER BY 1, 2",
                          "SELECT * FROM v_replacements ORDER BY 1, 2", "SELECT * FROM v_retries ORDER BY 1, 2, 8",
                          "SELECT * FROM v_search_docs ORDER BY 1, 2",
                          "SELECT d.session, d.seq FROM search_fts f JOIN search_docs d ON d.id = f.rowid"
                          " WHERE search_fts MATCH 'error' ORDER BY 1, 2"}) {
    auto t = db->Run(sql);
    EXPECT_TRUE(t.ok()) << sql << ": " << t.status().message();
    if (!t.ok()) continue;
    out += std::string(sql) + "\n";
    for (const auto& row : t->rows) {
      for (const SqlCell& c : row) out += Cell(c) + "|";
      out += "\n";
    }
  }
  return out;
}

struct SortedCopy {};
std::vector<std::string> operator|(std::vector<std::string> v, SortedCopy) {
  std::sort(v.begin(), v.end());
  return v;
}

std::vector<std::string> Column(const QueryTable& t, size_t col) {
  std::vector<std::string> out;
  for (const auto& row : t.rows) out.push_back(Cell(row[col]));
  return out;
}

TEST(ReadModelTest, EveryCallOutcomeAppearsInTheFixtures) {
  TempDir dir;
  { auto store = OpenStoreOrDie(dir / "a.db"); ImportAll(*store, DistinctFixtures()); }
  { auto store = OpenStoreOrDie(dir / "b.db"); ImportAll(*store, {"s2-interrupted-tool.repaired-resumed.jsonl"}); }
  std::set<std::string> outcomes;
  for (const char* name : {"a.db", "b.db"}) {
    auto db = ReadOnlyDb::Open(dir / name);
    ASSERT_TRUE(db.ok());
    auto t = db->Run("SELECT DISTINCT outcome FROM v_tool_calls");
    ASSERT_TRUE(t.ok()) << t.status().message();
    for (const std::string& o : Column(*t, 0)) outcomes.insert(o);
  }
  EXPECT_EQ(std::vector<std::string>(outcomes.begin(), outcomes.end()), CallOutcomes() | SortedCopy());
  // The crash left both calls of s2 without a result; its repair settles them.
  auto crashed = ReadOnlyDb::Open(dir / "a.db");
  auto open = crashed->Run("SELECT call_id, call_seq IS NOT NULL FROM v_tool_calls WHERE outcome = 'missing-result' ORDER BY 1");
  ASSERT_TRUE(open.ok());
  EXPECT_THAT(Column(*open, 0), ElementsAre("call_bash_01", "call_read_02"));
  EXPECT_THAT(Column(*open, 1), ElementsAre("1", "0"));  // the read was requested, never started
  auto repaired = ReadOnlyDb::Open(dir / "b.db");
  auto settled = repaired->Run("SELECT call_id, outcome FROM v_tool_calls WHERE call_id IN ('call_bash_01', 'call_read_02') ORDER BY 1");
  ASSERT_TRUE(settled.ok());
  EXPECT_THAT(Column(*settled, 1), ElementsAre("outcome-unknown", "not-started"));
}

TEST(ReadModelTest, JournaledAppendsGiveTheRowsAnImportGives) {
  // A journaled append's rows are derived at its fold, from its lines (but
  // for a replace's and an upgraded legacy event's, derived at once): the
  // rows are the import's.
  TempDir dir;
  { auto store = OpenStoreOrDie(dir / "imported.db"); ImportAll(*store, DistinctFixtures()); }
  {
    store::StoreOptions normal;
    normal.durability = store::Durability::kNormal;
    auto store = OpenStoreOrDie(dir / "journaled.db", normal);
    auto log = store::JournaledEventLog::Open(*store);
    ASSERT_TRUE(log.ok()) << log.status().message();
    // Each fixture as import reads it (packed rows expanded, a crash's torn
    // tail dropped), appended in batches of up to three lines.
    auto append = [&](const std::string& session, std::vector<log::EventRecord>& batch) {
      if (batch.empty()) return;
      auto outcome = (*log)->Append(session, batch.front().event.seq, batch);
      ASSERT_TRUE(outcome.ok()) << session << ": " << outcome.status().message();
      batch.clear();
    };
    for (const std::string& f : DistinctFixtures()) {
      auto reader = format::JsonlReader::Open(testing::FixturePath(f));
      ASSERT_TRUE(reader.ok()) << f << ": " << reader.status().message();
      const std::string& session = (*reader)->header().id;
      ASSERT_TRUE((*log)->CreateSession((*reader)->header()).ok()) << f;
      std::vector<log::EventRecord> batch;
      int lines = 0;
      format::StorageRecord rec;
      while (true) {
        auto more = (*reader)->Next(rec);
        ASSERT_TRUE(more.ok()) << f << ": " << more.status().message();
        if (!*more) break;
        if (rec.packed) {
          auto events = format::DecodeStoredChunkRow(rec.text, rec.first_seq);
          ASSERT_TRUE(events.ok()) << f << ":" << rec.line;
          for (log::EventRecord& r : *events) batch.push_back(std::move(r));
        } else {
          batch.push_back({rec.event, rec.text});
        }
        if (++lines % 3 == 0) append(session, batch);
      }
      append(session, batch);
    }
    ASSERT_TRUE((*log)->Close().ok());
    ASSERT_TRUE(store->CatchUpSearchIndex().ok());
  }
  EXPECT_EQ(DumpReadModel(dir / "journaled.db"), DumpReadModel(dir / "imported.db"));
}

TEST(ReadModelTest, DroppedAndRebuiltFromTheEventsGivesIdenticalRows) {
  TempDir dir;
  auto store = OpenStoreOrDie(dir / "a.db");
  ImportAll(*store, DistinctFixtures());
  const std::string incremental = DumpReadModel(dir / "a.db");
  ASSERT_THAT(incremental, HasSubstr("FS_NOT_FOUND"));
  ASSERT_TRUE(store::testing::RawDb(store->path()).Exec("DELETE FROM tool_calls; DELETE FROM search_docs;"
                               " INSERT INTO search_fts(search_fts) VALUES('delete-all')").ok());
  ASSERT_NE(DumpReadModel(dir / "a.db"), incremental);
  ASSERT_TRUE(store->RebuildReadModel().ok());
  EXPECT_EQ(DumpReadModel(dir / "a.db"), incremental);
}

TEST(ReadModelTest, AppendsWithoutTheModelThenRebuildMatchesMaintainedAppends) {
  TempDir dir;
  auto maintained = OpenStoreOrDie(dir / "a.db");
  ImportAll(*maintained, DistinctFixtures());
  store::StoreOptions off;
  off.maintain_read_model = false;
  auto lazy = OpenStoreOrDie(dir / "b.db", off);
  ImportAll(*lazy, DistinctFixtures());
  EXPECT_NE(DumpReadModel(dir / "b.db"), DumpReadModel(dir / "a.db"));
  ASSERT_TRUE(lazy->RebuildReadModel().ok());
  // Local session keys are the same (same import order), so the dumps compare directly.
  EXPECT_EQ(DumpReadModel(dir / "b.db"), DumpReadModel(dir / "a.db"));
}

TEST(ReadModelTest, MigratingAVersion1DatabaseBackfillsTheModel) {
  TempDir dir;
  store::StoreOptions v1;
  v1.migrations = store::EmbeddedMigrations().subspan(0, 1);
  { auto old = OpenStoreOrDie(dir / "old.db", v1); ImportAll(*old, DistinctFixtures()); }
  { auto fresh = OpenStoreOrDie(dir / "new.db"); ImportAll(*fresh, DistinctFixtures()); }
  store::StoreOptions migrate;
  migrate.migrate = true;
  { auto upgraded = OpenStoreOrDie(dir / "old.db", migrate); }
  EXPECT_EQ(DumpReadModel(dir / "old.db"), DumpReadModel(dir / "new.db"));
}

TEST(ReadModelTest, MigratingAVersion2DatabaseRenamesTheDeniedOutcome) {
  // Version 2 named calls that fail without an error identity 'denied'.
  TempDir dir;
  store::StoreOptions v2;
  v2.migrations = store::EmbeddedMigrations().subspan(0, 2);
  {
    auto old = OpenStoreOrDie(dir / "old.db", v2);
    ImportAll(*old, DistinctFixtures());
    ASSERT_TRUE(store::testing::RawDb(old->path()).Exec("UPDATE tool_calls SET outcome = 'denied' WHERE outcome = 'plain-error'").ok());
    ASSERT_GT(*store::testing::RawDb(old->path()).QueryInt("SELECT count(*) FROM tool_calls WHERE outcome = 'denied'"), 0);
  }
  { auto fresh = OpenStoreOrDie(dir / "new.db"); ImportAll(*fresh, DistinctFixtures()); }
  store::StoreOptions migrate;
  migrate.migrate = true;
  {
    auto upgraded = OpenStoreOrDie(dir / "old.db", migrate);
    EXPECT_EQ(*store::testing::RawDb(upgraded->path()).QueryInt("SELECT count(*) FROM tool_calls WHERE outcome = 'denied'"), 0);
  }
  EXPECT_EQ(DumpReadModel(dir / "old.db"), DumpReadModel(dir / "new.db"));
}

TEST(ReadModelTest, InjectionsGoFromPendingToClaimed) {
  TempDir dir;
  auto store = OpenStoreOrDie(dir / "a.db");
  ImportAll(*store, {"s1-tools-inject.jsonl"});
  auto db = ReadOnlyDb::Open(dir / "a.db");
  auto t = db->Run("SELECT plugin, form, summary, target, state, pending_seq < claimed_seq FROM v_injections"
                   " WHERE plugin = 'file-watch'");
  ASSERT_TRUE(t.ok());
  ASSERT_EQ(t->rows.size(), 1u);
  EXPECT_THAT(Column(*t, 4), ElementsAre("claimed"));
  EXPECT_THAT(Column(*t, 3), ElementsAre("next-step"));
  EXPECT_THAT(Column(*t, 5), ElementsAre("1"));
}

TEST(ReadModelTest, TurnsCountStepsCallsAndTokensFromUsageChunks) {
  TempDir dir;
  auto store = OpenStoreOrDie(dir / "a.db");
  ImportAll(*store, {"c01-fs-read.jsonl"});
  auto db = ReadOnlyDb::Open(dir / "a.db");
  auto t = RunAudit(*db, "turns", {});
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->rows.size(), 1u);
  // session, turn, reason, steps, tool_calls, input, output
  EXPECT_EQ(Cell(t->rows[0][2]), "completed");
  EXPECT_EQ(Cell(t->rows[0][3]), "7");
  EXPECT_EQ(Cell(t->rows[0][4]), "21");
  EXPECT_EQ(Cell(t->rows[0][5]), "8036");
  EXPECT_EQ(Cell(t->rows[0][6]), "280");
}

std::string TestData(const std::string& name) { return std::string(RETRACE_SOURCE_DIR) + "/tests/store/testdata/" + name; }

TEST(ReadModelTest, RetriesAndCompactionsAreRecordedWithWhatTheyShadowed) {
  TempDir dir;
  {
    auto store = OpenStoreOrDie(dir / "a.db");
    for (const char* f : {"retried.jsonl", "compacted.jsonl"}) ASSERT_TRUE(store::ImportJsonl(*store, TestData(f)).ok()) << f;
  }
  auto db = ReadOnlyDb::Open(dir / "a.db");
  auto retries = db->Run("SELECT retry_id, retry, max_retries, delay_ms, failure, started_seq FROM v_retries");
  ASSERT_TRUE(retries.ok());
  ASSERT_EQ(retries->rows.size(), 1u);
  EXPECT_EQ(Cell(retries->rows[0][4]), "429 rate limited");
  EXPECT_EQ(Cell(retries->rows[0][5]), "4");
  auto replaced = db->Run("SELECT session_id, seq, kind, shadowed_seqs FROM v_replacements");
  ASSERT_TRUE(replaced.ok());
  ASSERT_EQ(replaced->rows.size(), 1u);
  EXPECT_EQ(Cell(replaced->rows[0][2]), "compaction");
  EXPECT_EQ(Cell(replaced->rows[0][3]), "[2,3]");
  // The shadowed messages' documents say so; the summary is on the surface; it is no injection.
  auto docs = db->Run("SELECT seq, surface FROM v_search_docs WHERE session_id = 'compacted' ORDER BY seq");
  EXPECT_EQ(Column(*docs, 1), (std::vector<std::string>{"shadowed", "shadowed", "current"}));
  EXPECT_TRUE(db->Run("SELECT * FROM v_injections WHERE session_id = 'compacted'")->rows.empty());
  // Usage comes from the usage chunk.
  auto steps = db->Run("SELECT input_tokens, output_tokens, usage_source FROM v_steps WHERE session_id = 'retried'");
  EXPECT_EQ(Cell(steps->rows.at(0)[2]), "chunk");
}

TEST(ReadModelTest, SearchTextFollowsTheSemanticDocumentRules) {
  auto event = [](const char* json) { return log::ParseEvent(json).value(); };
  EXPECT_EQ(store::SearchText(event(R"({"type":"tool/call","seq":1,"time":1,"data":{"turn":1,"step":1,"callId":"c","name":"read","arguments":"  {\"a\":1}\n"}})")),
            "read\n{\"a\":1}");
  EXPECT_EQ(store::SearchText(event(R"({"type":"turn/end","seq":1,"time":1,"data":{"turn":1,"reason":{"kind":"completed"}}})")), "");
  EXPECT_EQ(store::SearchText(event(R"({"type":"turn/end","seq":1,"time":1,"data":{"turn":1,"reason":{"kind":"error","error":{"message":" boom "}}}})")),
            "error\nboom");
  // Reasoning is excluded; the highlight markers and NUL are replaced.
  EXPECT_EQ(store::SearchText(event(R"({"type":"user/message","seq":1,"time":1,"data":{"role":"user","id":"m","content":[{"type":"reasoning","text":"hidden"},{"type":"text","text":"a\u0000b\ufdd0c\u3000"}]}})")),
            "a\xEF\xBF\xBD" "b\xEF\xBF\xBD" "c");
  EXPECT_EQ(json::CodePointLength("a\xEF\xBF\xBD" "b"), 3);
}

TEST(ReadOnlyQueryTest, EveryKindOfWriteIsRefusedByName) {
  TempDir dir;
  { auto store = OpenStoreOrDie(dir / "a.db"); ImportAll(*store, {"c01-fs-read.jsonl"}); }
  auto db = ReadOnlyDb::Open(dir / "a.db");
  ASSERT_TRUE(db.ok());
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"INSERT INTO sessions(session_id, header, created_at) VALUES('x', '{}', 0)", "INSERT into sessions"},
      {"UPDATE events SET type = 'x'", "UPDATE of events"},
      {"DELETE FROM tool_calls", "DELETE from tool_calls"},
      {"CREATE TABLE t(x)", "a schema change"},
      {"DROP VIEW v_turns", "a schema change"},
      {"ALTER TABLE events ADD COLUMN y", "a schema change"},
      {"ATTACH DATABASE 'other.db' AS other", "ATTACH"},
      {"PRAGMA user_version = 7", "PRAGMA user_version = 7"},
      {"PRAGMA journal_mode", "PRAGMA journal_mode"},
      {"SELECT load_extension('evil')", "load_extension()"},
      {"BEGIN", "a transaction statement"},
  };
  for (const auto& [sql, what] : refused) {
    auto t = db->Run(sql);
    ASSERT_FALSE(t.ok()) << sql;
    EXPECT_EQ(t.status().code(), Status::Code::kInvalidArgument) << sql;
    EXPECT_THAT(t.status().message(), HasSubstr(what)) << sql;
  }
  // What people may query: the views, the index and the catalog, not the storage tables.
  for (const auto& [sql, what] : std::vector<std::pair<std::string, std::string>>{
           {"SELECT * FROM tool_calls", "the storage table tool_calls (its keys are internal); query the view v_tool_calls"},
           {"SELECT e.json FROM v_sessions s JOIN events e ON 1", "query the view v_events"},
           {"SELECT * FROM search_progress", "the internal table search_progress"},
           {"SELECT * FROM search_fts_data", "the internal table search_fts_data"},
           {"SELECT e.seq FROM v_sessions, \"Events\" e", "query the view v_events"},
           {"SELECT x.seq FROM (SELECT seq FROM events) x", "query the view v_events"}}) {
    auto t = db->Run(sql, {}, {}, QueryAccess::kViews);
    ASSERT_FALSE(t.ok()) << sql;
    EXPECT_EQ(t.status().code(), Status::Code::kInvalidArgument) << sql;
    EXPECT_THAT(t.status().message(), HasSubstr(what)) << sql;
  }
  for (const char* sql : {"SELECT session_id, tool_name FROM v_tool_calls", "SELECT name FROM sqlite_schema",
                          "SELECT outcome, COUNT(*) AS n FROM v_tool_calls GROUP BY 1",
                          "SELECT count(*) AS sessions FROM v_sessions", "SELECT 'FROM events' AS x FROM v_events",
                          "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r WHERE x < 3) SELECT x FROM r",
                          "SELECT rowid FROM search_fts WHERE search_fts MATCH 'x'", "PRAGMA table_info(v_events)"}) {
    auto t = db->Run(sql, {}, {}, QueryAccess::kViews);
    EXPECT_TRUE(t.ok()) << sql << ": " << t.status().message();
  }
  auto two = db->Run("SELECT 1; DELETE FROM events");
  ASSERT_FALSE(two.ok());
  EXPECT_THAT(two.status().message(), HasSubstr("one statement per query"));
  // Reporting PRAGMAs and reads pass; the data is untouched.
  EXPECT_TRUE(db->Run("PRAGMA table_info(events)").ok());
  auto count = db->Run("SELECT SUM(count) FROM v_events");
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(Cell(count->rows[0][0]), "290");
}

TEST(ReadOnlyQueryTest, ATimeLimitInterruptsARunawayQuery) {
  TempDir dir;
  { auto store = OpenStoreOrDie(dir / "a.db"); }
  auto db = ReadOnlyDb::Open(dir / "a.db");
  int polls = 0;
  auto t = db->Run("WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT COUNT(*) FROM r", {},
                   [&] { return ++polls > 50; });
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), Status::Code::kDeadlineExceeded);
}

TEST(AuditTest, ToolsReportCountsErrorsCodesAndPercentiles) {
  TempDir dir;
  { auto store = OpenStoreOrDie(dir / "a.db"); ImportAll(*store, {"c01-fs-read.jsonl"}); }
  auto db = ReadOnlyDb::Open(dir / "a.db");
  auto t = RunAudit(*db, "tools", {});
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_FALSE(t->rows.empty());
  EXPECT_THAT(t->columns, ElementsAre("tool", "calls", "errors", "error_codes", "p50_ms", "p95_ms"));
  EXPECT_EQ(Cell(t->rows[0][0]), "read");
  EXPECT_THAT(Cell(t->rows[0][3]), HasSubstr("FS_NOT_FOUND 2"));
  // Filters narrow; a filter a report cannot apply is refused.
  AuditFilters only_denied;
  only_denied.outcome = "plain-error";
  auto denied = RunAudit(*db, "failures", only_denied);
  ASSERT_TRUE(denied.ok());
  for (const auto& row : denied->rows) EXPECT_EQ(Cell(row[3]), "plain-error");
  AuditFilters tool;
  tool.tool = "read";
  auto refused = RunAudit(*db, "turns", tool);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("the turns report has no tool to filter on"));
}

}  // namespace
}  // namespace retrace::query
