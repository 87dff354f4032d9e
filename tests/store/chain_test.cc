// The tamper-evident chain (store/event_chain.h, `retrace verify`): every row
// stored — imported, appended in batches, after a rolled-back append, or
// linked by the migration that added the chain — verifies; a session
// exported and imported elsewhere has the same head; and every mutation of a
// 10,000-round fuzz (a byte changed, a row removed, duplicated or moved) and
// of the database itself is caught at its row, a cut at the end against the
// head pinned before it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "store/event_chain.h"
#include "store/event_id.h"
#include "store/event_store.h"
#include "store/exporter.h"
#include "store/importer.h"
#include "store/migrations.h"
#include "store/sqlite_event_log.h"
#include "tests/log/log_test_util.h"
#include "tests/store/store_test_util.h"

namespace retrace::store {
namespace {

using namespace retrace::store::testing;
using ::testing::HasSubstr;

const std::vector<std::string> kFixtures = {"c01-fs-read.jsonl", "c04-bash-jobs.jsonl", "c06-errors-policy.jsonl",
                                            "s1-tools-inject.jsonl", "s2-interrupted-tool.crashed.jsonl"};

std::string IdOf(const std::string& fixture) { return fixture.substr(0, fixture.find('.')); }

void ExpectEveryChainHolds(EventStore& store) {
  auto sessions = store.ListSessions();
  ASSERT_TRUE(sessions.ok());
  for (const SessionSummary& s : *sessions) {
    auto report = store.VerifyChain(s.id);
    ASSERT_TRUE(report.ok()) << report.status().message();
    EXPECT_FALSE(report->problem) << s.id << ": " << *report->problem;
    EXPECT_EQ(report->events, s.events) << s.id;
  }
}

TEST(ChainTest, EveryImportedFixtureVerifiesAndAReimportedExportHasTheSameHead) {
  TempDir dir;
  auto store = OpenStoreOrDie(dir / "a.db");
  for (const std::string& f : kFixtures) ASSERT_TRUE(ImportJsonl(*store, FixturePath(f)).ok()) << f;
  ExpectEveryChainHolds(*store);
  auto other = OpenStoreOrDie(dir / "b.db");
  for (const std::string& f : kFixtures) {
    const std::string out = dir / (IdOf(f) + ".jsonl");
    ASSERT_TRUE(ExportToFile(*store, IdOf(f), /*zstd=*/false, out).ok());
    ASSERT_TRUE(ImportJsonl(*other, out).ok());
    EXPECT_EQ(store->VerifyChain(IdOf(f))->head, other->VerifyChain(IdOf(f))->head) << f;
  }
  EXPECT_NE(store->VerifyChain("c01-fs-read")->head, store->VerifyChain("c04-bash-jobs")->head);
}

TEST(ChainTest, AppendsInBatchesAndAfterARolledBackOneKeepTheChain) {
  TempDir dir;
  auto store = OpenStoreOrDie(dir / "s.db");
  auto log = std::make_unique<SqliteEventLog>(*store);
  log::SessionHeader h;
  h.id = "s";
  h.created_at = 1000;
  ASSERT_TRUE(log->CreateSession(h).ok());
  std::vector<log::EventRecord> records;
  for (const auto& l : log::testing::SmallSessionLines()) records.push_back(log::testing::Rec(l));
  ASSERT_GE(records.size(), 6u);
  ASSERT_TRUE(log->Append("s", 0, std::span(records).subspan(0, 2)).ok());
  // A batch the checker refuses halfway: its transaction rolls back, links and all.
  std::vector<log::EventRecord> bad(records.begin() + 2, records.begin() + 4);
  bad[1] = log::testing::Rec(R"({"type":"no/such-type","seq":3,"time":1,"data":{}})");
  EXPECT_FALSE(log->Append("s", 2, bad).ok());
  ASSERT_TRUE(log->Append("s", 2, std::span(records).subspan(2, 2)).ok());
  ASSERT_TRUE(log->Append("s", 4, std::span(records).subspan(4)).ok());
  auto report = store->VerifyChain("s");
  ASSERT_TRUE(report.ok());
  EXPECT_FALSE(report->problem) << *report->problem;
  EXPECT_EQ(report->events, static_cast<int64_t>(records.size()));
  // A writer opened afresh reads its chain's tail from the store.
  log.reset();
  store.reset();
  store = OpenStoreOrDie(dir / "s.db");
  SqliteEventLog again(*store);
  log::EventRecord extra = log::testing::Rec(R"({"type":"agent/inbox/spliced","seq":)" + std::to_string(records.size()) +
                                             R"(,"time":2,"data":{"target":"next-turn","start":0,"inserted":[]}})");
  auto appended = again.Append("s", static_cast<int64_t>(records.size()), std::span(&extra, 1));
  ASSERT_TRUE(appended.ok()) << appended.status().message();
  EXPECT_FALSE(store->VerifyChain("s")->problem);
}

TEST(ChainTest, TheMigrationThatAddsTheChainLinksEveryStoredRow) {
  TempDir dir;
  std::filesystem::copy_file(std::string(RETRACE_SOURCE_DIR) + "/tests/store/testdata/foundation-v1.db", dir / "v1.db");
  StoreOptions migrate;
  migrate.migrate = true;
  auto store = OpenStoreOrDie(dir / "v1.db", migrate);
  ASSERT_TRUE(store);
  ExpectEveryChainHolds(*store);
  // The same head as the session imported fresh: the links depend on the lines alone.
  auto fresh = OpenStoreOrDie(dir / "fresh.db");
  ASSERT_TRUE(ImportJsonl(*fresh, FixturePath("c01-fs-read.jsonl")).ok());
  EXPECT_EQ(store->VerifyChain("c01-fs-read")->head, fresh->VerifyChain("c01-fs-read")->head);
}

// A session's rows as verify reads them.
struct Row {
  int64_t seq, count;
  std::string line, link;
};

std::vector<Row> Rows(const std::string& db, const std::string& id) {
  Db raw = RawDb(db);
  auto st = Statement::Prepare(raw, "SELECT seq, count, json, link FROM events WHERE event_id >> 32 = "
                                    "(SELECT id FROM sessions WHERE session_id = '" + id + "') ORDER BY event_id");
  EXPECT_TRUE(st.ok());
  std::vector<Row> rows;
  while (st.ok() && *st->Step()) {
    rows.push_back({st->Int(0), st->Int(1), std::string(st->Text(2)), std::string(st->Blob(3))});
  }
  return rows;
}

bool Holds(const std::string& header, const std::vector<Row>& rows, const std::string& head) {
  ChainCheck check(header);
  for (const Row& r : rows) {
    if (!check.Add(r.seq, r.count, r.line, r.link)) return false;
  }
  check.End(head);
  return !check.problem();
}



TEST(ChainTest, EveryMutationOfATenThousandRoundFuzzIsCaught) {
  TempDir dir;
  auto store = OpenStoreOrDie(dir / "f.db");
  ASSERT_TRUE(ImportJsonl(*store, FixturePath("c04-bash-jobs.jsonl")).ok());
  const std::string header = *store->HeaderText("c04-bash-jobs");
  const std::vector<Row> rows = Rows(dir / "f.db", "c04-bash-jobs");
  // The head as an auditor pinned it (`retrace verify --head`).
  const std::string head = store->VerifyChain("c04-bash-jobs")->head;
  ASSERT_GT(rows.size(), 100u);
  ASSERT_TRUE(Holds(header, rows, head));
  std::mt19937_64 rng(20261207);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  int kinds[4] = {};
  for (int round = 0; round < 10000; ++round) {
    std::vector<Row> m = rows;
    const int kind = round % 4;
    const size_t i = pick(m.size());
    switch (kind) {
      case 0: {  // one byte of a line changed
        std::string& line = m[i].line;
        line[pick(line.size())] ^= static_cast<char>(1 + pick(255));
        break;
      }
      case 1:  // a row removed
        m.erase(m.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      case 2:  // a row duplicated, in place or elsewhere
        m.insert(m.begin() + static_cast<std::ptrdiff_t>(pick(m.size() + 1)), m[i]);
        break;
      case 3: {  // a row moved: two rows swap places, each keeping its line and link
        size_t j = pick(m.size());
        if (j == i) j = (i + 1) % m.size();
        std::swap(m[i].line, m[j].line);
        std::swap(m[i].link, m[j].link);
        break;
      }
    }
    ++kinds[kind];
    ASSERT_FALSE(Holds(header, m, head)) << "round " << round << ", kind " << kind << ", row " << i;
  }
  for (int k : kinds) EXPECT_EQ(k, 2500);
  // The header is chained too.
  EXPECT_FALSE(Holds(header + " ", rows, head));
  // And so is the end against the pinned head: the last row removed leaves a
  // chain that holds, but ends at another head.
  std::vector<Row> shorter(rows.begin(), rows.end() - 1);
  EXPECT_FALSE(Holds(header, shorter, head));
}

TEST(ChainTest, EditsOfTheDatabaseAreFoundAtTheirRow) {
  TempDir dir;
  auto store = OpenStoreOrDie(dir / "e.db");
  ASSERT_TRUE(ImportJsonl(*store, FixturePath("c01-fs-read.jsonl")).ok());
  const int64_t key = *store->SessionKey("c01-fs-read");
  const std::string at = std::to_string(EventId(key, 4));
  Db raw = RawDb(dir / "e.db");
  ASSERT_TRUE(raw.Exec("UPDATE events SET json = replace(json, 'calc', 'cald') WHERE event_id = " + at).ok());
  auto changed = store->VerifyChain("c01-fs-read");
  ASSERT_TRUE(changed.ok());
  ASSERT_TRUE(changed->problem);
  EXPECT_EQ(changed->problem_seq, 4);
  EXPECT_THAT(*changed->problem, HasSubstr("the row at seq 4 is not what was chained"));
  ASSERT_TRUE(raw.Exec("UPDATE events SET json = replace(json, 'cald', 'calc') WHERE event_id = " + at).ok());
  EXPECT_FALSE(store->VerifyChain("c01-fs-read")->problem);  // put back: whole again
  ASSERT_TRUE(raw.Exec("DELETE FROM events WHERE event_id = " + at).ok());
  auto removed = store->VerifyChain("c01-fs-read");
  ASSERT_TRUE(removed->problem);
  EXPECT_EQ(removed->problem_seq, 5);
  EXPECT_THAT(*removed->problem, HasSubstr("events 4..4 are missing before seq 5"));
  // The last row removed: every link left holds; the head pinned before does not.
  auto tail = OpenStoreOrDie(dir / "t.db");
  ASSERT_TRUE(ImportJsonl(*tail, FixturePath("s1-tools-inject.jsonl")).ok());
  const std::string pinned = tail->VerifyChain("s1-tools-inject")->head;
  EXPECT_FALSE(tail->VerifyChain("s1-tools-inject", pinned)->problem);
  Db raw_tail = RawDb(dir / "t.db");
  ASSERT_TRUE(raw_tail.Exec("DELETE FROM events WHERE event_id = (SELECT max(event_id) FROM events)").ok());
  EXPECT_FALSE(tail->VerifyChain("s1-tools-inject")->problem);
  auto shorter = tail->VerifyChain("s1-tools-inject", pinned);
  ASSERT_TRUE(shorter->problem);
  EXPECT_THAT(*shorter->problem, HasSubstr("rows were cut from the end of the log"));
}

}  // namespace
}  // namespace retrace::store
