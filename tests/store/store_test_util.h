// Vocabulary for store tests: a store in a temp dir, a logical fingerprint of
// a database (to assert "unchanged"), corrupted copies of fixtures.
#ifndef RETRACE_TESTS_STORE_STORE_TEST_UTIL_H_
#define RETRACE_TESTS_STORE_STORE_TEST_UTIL_H_

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

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

}  // namespace retrace::store::testing

#endif  // RETRACE_TESTS_STORE_STORE_TEST_UTIL_H_
