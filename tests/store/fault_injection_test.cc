// Injected I/O faults and power cuts under the store (tests/store/fault_vfs.h,
// a VFS shim over SQLite's default one).
//
// Faults: every store operation a user runs — an import, an append batch, a
// recorded tool call, a repair, a migration, an index rebuild, a deletion
// with its vacuum and a verified rewrite — is first run clean, counting its reads, writes, truncates, syncs
// and locks; then again from the same starting database with the Nth of them
// failing (EIO once, ENOSPC from then on, or a write of half its buffer from
// then on), for every N up to 300 (spread over the count past that). Each time: the operation
// fails with an error naming the file (or succeeds, when SQLite recovered the
// fault itself), the database passes integrity_check and holds exactly what
// was acknowledged — its state before or its state after, never between —
// and the same operation, the fault gone, succeeds. To replay one point:
// RETRACE_FAULT_ONLY=<scenario> RETRACE_FAULT_AT=<n> (RETRACE_FAULT_TRACE=1
// prints each point as it runs).
//
// Power cuts: batches are appended one by one with `full` and with `normal`
// durability, and the power goes at an operation: writes not yet synced are
// lost (all of them, or a random part with torn sectors; the seed is
// printed), the -shm file with them. Reopened: with `full` every acknowledged
// batch is there, with `normal` a prefix of them; never part of a batch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "engine/log/event.h"
#include "engine/log/session_header.h"
#include "service/script_host.h"
#include "service/catalog.h"
#include "service/maintain.h"
#include "service/migrate.h"
#include "service/record.h"
#include "store/importer.h"
#include "store/journaled_event_log.h"
#include "store/migrations.h"
#include "store/session_writer.h"
#include "tests/store/fault_vfs.h"
#include "tests/store/store_test_util.h"

namespace retrace::store {
namespace {

using namespace retrace::store::testing;
using retrace::testing::FaultKind;
using retrace::testing::FaultVfs;

std::string Integrity(const std::string& db) {
  auto d = Db::Open(db, Db::Mode::kReadOnly);
  if (!d.ok()) return d.status().message();
  auto st = Statement::Prepare(*d, "PRAGMA integrity_check");
  if (!st.ok()) return st.status().message();
  auto row = st->Step();
  return row.ok() && *row ? std::string(st->Text(0)) : "no answer";
}

// The logical content of a database, read model included.
std::string State(const std::string& db) {
  std::string out = Fingerprint(db);
  auto d = Db::Open(db, Db::Mode::kReadOnly);
  if (!d.ok()) return out;
  for (const char* sql : {"PRAGMA user_version", "SELECT count(*) FROM tool_calls", "SELECT count(*) FROM search_docs"}) {
    auto v = d->QueryInt(sql);
    out += std::string(sql) + "=" + (v.ok() ? std::to_string(*v) : "none") + "\n";
  }
  return out;
}

void Copy(const std::string& from, const std::string& to) {
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(to + suffix);
  std::filesystem::copy_file(from, to);
}

struct Scenario {
  std::string name;
  std::function<void(const std::string& db)> setup;  // the starting database (faults off)
  std::function<Status(const std::string& db)> run;  // the operation under faults
  // Several commits (a recorded session): what a fault leaves is the state
  // before plus some of the rows after, each acknowledged on its own.
  bool commits_as_it_goes = false;  // then run() continues the session it recorded
  std::string written = {};  // the file a rewrite creates; the database itself is then never changed
};

std::vector<std::string> SortedLines(const std::string& text) {
  std::vector<std::string> lines = retrace::testing::Lines(text);
  std::sort(lines.begin(), lines.end());
  return lines;
}

// Every line of `small` is in `big`.
bool Within(const std::string& small, const std::string& big) {
  const std::vector<std::string> a = SortedLines(small), b = SortedLines(big);
  return std::includes(b.begin(), b.end(), a.begin(), a.end());
}

class FaultInjectionTest : public ::testing::Test {
 protected:
  FaultInjectionTest() : vfs_(FaultVfs::Install()) { vfs_.Reset(); }
  ~FaultInjectionTest() override { vfs_.Reset(); }

  std::string Path(const std::string& name) const { return dir_ / name; }

  // Imports `fixture` into `db` (faults off).
  static void Import(const std::string& db, const std::string& fixture, StoreOptions options = {}) {
    auto store = OpenStoreOrDie(db, options);
    ASSERT_TRUE(store);
    auto r = ImportJsonl(*store, FixturePath(fixture));
    ASSERT_TRUE(r.ok()) << r.status().message();
  }

  // Runs `s` under a fault at each of about `points` operations; returns how many were injected.
  int64_t RunScenario(const Scenario& s, int64_t points) {
    SCOPED_TRACE(s.name);
    const std::string pristine = Path(s.name + ".pristine.db"), db = Path(s.name + ".db");
    s.setup(pristine);
    {  // checkpointed and closed: one file to copy
      auto d = Db::Open(pristine, Db::Mode::kReadWrite);
      EXPECT_TRUE(d.ok() && d->Exec("PRAGMA wal_checkpoint(TRUNCATE)").ok());
    }
    const std::string before = State(pristine);
    // The clean run: its operation count, and the state it leaves.
    Copy(pristine, db);
    vfs_.Reset();
    Status clean = s.run(db);
    const int64_t total = vfs_.operations();
    EXPECT_TRUE(clean.ok()) << clean.message();
    const std::string after = State(db);
    const std::string before_rows = Fingerprint(pristine);
    EXPECT_EQ(before == after, !s.written.empty());
    const int64_t stride = std::max<int64_t>(1, total / points);
    int64_t injected = 0;
    const char* only_at = std::getenv("RETRACE_FAULT_AT");
    // Two faults at each point: EIO once, and ENOSPC or a torn write from then on.
    for (int64_t i = 0; i < 2 * ((total + stride - 1) / stride); ++i, ++injected) {
      const int64_t n = 1 + (i / 2) * stride;
      if (only_at && std::to_string(n) != only_at) continue;
      const FaultKind kind = i % 2 == 0 ? FaultKind::kEio : (i / 2) % 2 == 0 ? FaultKind::kEnospc : FaultKind::kPartialWrite;
      const bool sticky = kind != FaultKind::kEio;
      SCOPED_TRACE("fault at operation " + std::to_string(n) + " of " + std::to_string(total) + ", kind " +
                   std::to_string(static_cast<int>(kind)) + (sticky ? ", from then on" : ", once"));
      if (std::getenv("RETRACE_FAULT_TRACE")) std::fprintf(stderr, "%s: fault at %lld\n", s.name.c_str(), static_cast<long long>(n));
      vfs_.Reset();
      Copy(pristine, db);
      if (!s.written.empty()) std::filesystem::remove(s.written);
      vfs_.FailAt(n, kind, sticky);
      Status st = s.run(db);
      vfs_.Reset();
      if (!st.ok()) {
        const std::string& file = s.written.empty() ? db : s.written;
        EXPECT_TRUE(st.message().find(db) != std::string::npos || st.message().find(file) != std::string::npos)
            << "the error names no file: " << st.message();
      }
      EXPECT_EQ(Integrity(db), "ok");
      const std::string now = State(db);
      if (!s.written.empty()) {
        EXPECT_EQ(now, before) << "a rewrite never touches its source";
        EXPECT_EQ(std::filesystem::exists(s.written), st.ok()) << "a failed rewrite leaves nothing: " << st.message();
        if (st.ok()) {
          EXPECT_EQ(Integrity(s.written), "ok");
        }
      } else if (st.ok()) {
        EXPECT_EQ(now, after) << "acknowledged, so all of it is there";
      } else if (s.commits_as_it_goes) {
        // What was there stays; what the run committed before the fault is a
        // valid log the store checked on append (it may then record the
        // failure itself: an error result, the turn's end), and continuing
        // the session below repairs whatever the fault left open.
        EXPECT_TRUE(Within(before_rows, Fingerprint(db))) << "rows lost: " << st.message();
      } else {
        EXPECT_TRUE(now == before || now == after) << "neither the state before nor after: " << st.message();
      }
      if (HasFailure()) return injected;
      // The fault gone, the same operation works from where the fault left it.
      if (!s.written.empty()) std::filesystem::remove(s.written);
      if (now != after || !s.written.empty()) {
        Status again = s.run(db);
        EXPECT_TRUE(again.ok()) << again.message();
        if (now == before) {
          EXPECT_EQ(State(db), after);
        }
      }
      if (HasFailure()) return injected;
    }
    std::printf("fault injection: %s: %lld faults over its %lld operations\n", s.name.c_str(),
                static_cast<long long>(injected), static_cast<long long>(total));
    return injected;
  }

  FaultVfs& vfs_;
  // In memory when the machine has /dev/shm: the thousands of runs sync
  // thousands of times, and what is tested is the VFS's view, not the disk's.
  TempDir dir_{std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : std::filesystem::temp_directory_path().string()};
};

constexpr char kScript[] = R"({"op":"prompt","text":"read it"}
{"op":"assistant","text":"Reading.","toolCalls":[{"id":"call_1","name":"read","arguments":{"file_path":"a.txt"}},{"id":"call_2","name":"write","arguments":{"file_path":"b.txt","content":"b\n"}}]}
{"op":"end"}
)";

TEST_F(FaultInjectionTest, EveryStoreOperationSurvivesAFaultAtEveryPoint) {
  std::filesystem::create_directories(Path("ws"));
  WriteFile(Path("ws/a.txt"), "a\n");
  const auto script = service::ParseScript(kScript, "fault.jsonl");
  ASSERT_TRUE(script.ok()) << script.status().message();
  auto catalog = [](const std::string& db) { return service::Catalog({.db_path = db}); };
  const std::vector<Scenario> scenarios = {
      {"import", [](const std::string& db) { Import(db, "s1-tools-inject.jsonl"); },
       [](const std::string& db) -> Status {
         ASSIGN_OR_RETURN(auto store, EventStore::Open(db));
         return ImportJsonl(*store, FixturePath("c04-bash-jobs.jsonl")).status();
       }},
      {"append", [](const std::string& db) { Import(db, "s2-interrupted-tool.crashed.jsonl"); },
       [](const std::string& db) -> Status {  // the grown log's new events: one appended batch
         ASSIGN_OR_RETURN(auto store, EventStore::Open(db));
         return ImportJsonl(*store, FixturePath("s2-interrupted-tool.repaired-resumed.jsonl")).status();
       }},
      {"record", [](const std::string& db) { Import(db, "s1-tools-inject.jsonl"); },
       [&](const std::string& db) -> Status {
         service::RecordOptions options;
         options.session_id = "recorded";
         options.workspace = Path("ws");
         options.now_ms = [] { return int64_t{1'800'000'000'000}; };
         int id = 0;
         options.new_id = [&id] { return "id-" + std::to_string(++id); };
         std::filesystem::remove(Path("ws/b.txt"));
         return service::RecordScript(catalog(db), *script, options).status();
       },
       /*commits_as_it_goes=*/true},
      {"repair", [](const std::string& db) { Import(db, "s2-interrupted-tool.crashed.jsonl"); },
       [](const std::string& db) -> Status {
         ASSIGN_OR_RETURN(auto store, EventStore::Open(db));
         ASSIGN_OR_RETURN(auto writer, store->OpenWriter("s2-interrupted-tool"));
         return writer->RepairOpenTurn().status();
       }},
      {"migrate",
       [](const std::string& db) {
         StoreOptions v1;
         v1.migrations = EmbeddedMigrations().subspan(0, 1);
         Import(db, "c04-bash-jobs.jsonl", v1);
       },
       [](const std::string& db) -> Status {
         StoreOptions options;
         options.migrate = true;
         return EventStore::Open(db, options).status();
       }},
      {"index", [](const std::string& db) {
         Import(db, "c04-bash-jobs.jsonl");
         auto raw = RawDb(db);  // a read model to rebuild: drop what it holds
         ASSERT_TRUE(raw.Exec("DELETE FROM tool_calls; DELETE FROM search_docs").ok());
       },
       [](const std::string& db) -> Status {
         ASSIGN_OR_RETURN(auto store, EventStore::Open(db));
         return store->RebuildReadModel();
       }},
      {"delete",  // one session of two, then the vacuum: the other loses nothing
       [](const std::string& db) {
         Import(db, "s1-tools-inject.jsonl");
         Import(db, "c04-bash-jobs.jsonl");
       },
       [&](const std::string& db) -> Status {
         return service::DeleteSessions(catalog(db), {"c04-bash-jobs"}).status();
       }},
      {"rewrite", [](const std::string& db) { Import(db, "c04-bash-jobs.jsonl"); },
       [&](const std::string& db) -> Status {
         return service::RewriteVerified(catalog(db), Path("rewritten.db"), {}).status();
       },
       false, Path("rewritten.db")},
  };
  int64_t injected = 0;
  const char* only = std::getenv("RETRACE_FAULT_ONLY");  // with RETRACE_FAULT_AT: replays one failure
  for (const Scenario& s : scenarios) {
    if (only && s.name != only) continue;
    injected += RunScenario(s, 300);
    if (HasFailure()) break;
  }
  std::printf("fault injection: %lld faults injected across %zu operations\n", static_cast<long long>(injected),
              scenarios.size());
  if (!only) {
    EXPECT_GE(injected, 1000);
  }
}

// A `normal` recording's fold runs into a full disk: the log stops (the
// failed flush, later appends and Close() all say so), the journal is kept,
// and once the disk has room the next open folds every acknowledged batch.
TEST(JournalFaultTest, AFoldThatCannotWriteStopsTheLogAndTheNextOpenFoldsTheJournal) {
  FaultVfs& vfs = FaultVfs::Install();
  vfs.Reset();
  TempDir dir;
  const std::string db = dir / "j.db";
  StoreOptions normal;
  normal.durability = Durability::kNormal;
  auto store = OpenStoreOrDie(db, normal);
  log::SessionHeader h;
  h.id = "j";
  ASSERT_TRUE(store->CreateSession(h, log::SerializeHeaderLine(h)).ok());
  auto log = JournaledEventLog::Open(*store, {.fold_delay = std::chrono::hours(1), .max_fold_lag = std::chrono::hours(1)});
  ASSERT_TRUE(log.ok());
  auto batch = [](int64_t seq) {
    const std::string text = R"({"type":"retrace/tick","seq":)" + std::to_string(seq) +
                             R"(,"time":1,"data":{},"ignorable":true})";
    return std::vector<log::EventRecord>{{*log::ParseEvent(text), text}};
  };
  for (int64_t s = 0; s < 3; ++s) ASSERT_TRUE((*log)->Append("j", s, batch(s)).ok());
  vfs.FailAt(vfs.operations() + 1, FaultKind::kEnospc, /*sticky=*/true);
  const Status flushed = (*log)->Flush();
  ASSERT_FALSE(flushed.ok());
  EXPECT_THAT(flushed.message(), ::testing::HasSubstr("recording stopped"));
  EXPECT_THAT(flushed.message(), ::testing::HasSubstr((*log)->journal_path()));
  EXPECT_FALSE((*log)->Append("j", 3, batch(3)).ok()) << "no append is acknowledged after a failed fold";
  const std::string journal = (*log)->journal_path();
  EXPECT_FALSE((*log)->Close().ok());
  EXPECT_TRUE(std::filesystem::exists(journal));
  log->reset();
  store.reset();
  vfs.Reset();
  auto reopened = EventStore::Open(db);
  ASSERT_TRUE(reopened.ok()) << reopened.status().message();
  EXPECT_FALSE(std::filesystem::exists(journal));
  EXPECT_EQ(*RawDb(db).QueryInt("SELECT count(*) FROM events"), 3);
  EXPECT_EQ(Integrity(db), "ok");
}

}  // namespace
}  // namespace retrace::store
