// Vocabulary for store tests: a store in a temp dir, a logical fingerprint of
// a database (to assert "unchanged"), corrupted copies of fixtures.
#ifndef RETRACE_TESTS_STORE_STORE_TEST_UTIL_H_
#define RETRACE_TESTS_STORE_STORE_TEST_UTIL_H_

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "engine/json/parser.h"
#include "engine/json/writer.h"
#include "store/event_store.h"
#include "store/sqlite.h"
#include "tests/test_util.h"

namespace retrace::store::testing {

using retrace::testing::FixturePath;
using retrace::testing::ReadFile;
using retrace::testing::TempDir;
using retrace::testing::WriteFile;

inline std::unique_ptr<EventStore> OpenStoreOrDie(const std::string& path, StoreOptions options = {}) {
  auto s = EventStore::Open(path, options);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? std::move(s).value() : nullptr;
}

// A connection of the test's own to a store's file, for inspecting or
// tampering behind the store's back.
inline Db RawDb(const std::string& path) {
  auto db = Db::Open(path, Db::Mode::kReadWrite);
  EXPECT_TRUE(db.ok()) << db.status().message();
  return std::move(db).value();
}

// Every session and event row, as text: equal fingerprints = same content.
inline std::string Fingerprint(const std::string& db_path) {
  auto db = Db::Open(db_path, Db::Mode::kReadOnly);
  if (!db.ok()) return "unopenable: " + db.status().message();
  std::string out;
  for (const char* sql : {"SELECT session_id || '|' || header FROM sessions ORDER BY id",
                          "SELECT event_id || '|' || json || '|' || count FROM events ORDER BY event_id"}) {
    auto st = Statement::Prepare(*db, sql);
    if (!st.ok()) return "no schema";
    while (true) {
      auto row = st->Step();
      if (!row.ok() || !*row) break;
      out += std::string(st->Text(0)) + "\n";
    }
  }
  return out;
}

// The raw fixture's text with line `n` (1-based) replaced.
inline std::string WithLine(const std::string& text, size_t n, const std::string& replacement) {
  auto lines = retrace::testing::Lines(text);
  lines.at(n - 1) = replacement;
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// Runs `requests` (a JSON array) through the upstream dsh query service over
// the dsh root `dir`/root (bench/upstream/search.mjs, Node 22): its
// {firstSeconds, results: [...]}, or an error with what it printed.
inline Result<json::Value> RunUpstreamQueries(const std::string& upstream, const TempDir& dir, json::Value requests) {
  WriteFile(dir / "requests.json", json::Serialize(requests));
  const auto run = retrace::testing::Shell(upstream + "/node22/package/bin/node " RETRACE_SOURCE_DIR
                                           "/bench/upstream/search.mjs " + upstream + " " + dir / "root" + " " +
                                           dir / "index.db" + " " + dir / "requests.json 2>/dev/null");
  if (run.code != 0) return Status::IoError("the upstream query service failed: " + run.out);
  auto out = json::Parse(run.out);
  if (!out.ok() || !out->Find("results") || !out->Find("results")->is_array())
    return Status::Corruption("unexpected upstream output: " + run.out);
  return out;
}

}  // namespace retrace::store::testing

#endif  // RETRACE_TESTS_STORE_STORE_TEST_UTIL_H_
