// Every prefix of every fixture (cut after each line, and at byte positions
// for the zstd one) imports or is refused cleanly; it never crashes.
#include <gtest/gtest.h>

#include "store/importer.h"
#include "tests/store/store_test_util.h"

namespace retrace::store {
namespace {

using namespace retrace::store::testing;

// Imports `bytes`; returns true if accepted. A refusal must carry a message
// and leave no session behind.
bool ImportPrefix(const TempDir& dir, const std::string& name, const std::string& bytes, int n) {
  const std::string db = dir / ("p" + std::to_string(n) + ".db");
  const std::string file = dir / name;
  WriteFile(file, bytes);
  auto store = OpenStoreOrDie(db);
  auto report = ImportJsonl(*store, file);
  if (!report.ok()) {
    EXPECT_FALSE(report.status().message().empty());
    EXPECT_EQ(store->ListSessions()->size(), 0u);
  }
  store.reset();
  std::filesystem::remove(db);
  std::filesystem::remove(db + "-wal");
  std::filesystem::remove(db + "-shm");
  std::filesystem::remove(db + "-lock");
  return report.ok();
}

TEST(PrefixTest, EveryLinePrefixOfEveryRawFixtureImportsOrIsRefused) {
  TempDir dir;
  int n = 0;
  for (const auto& fixture : retrace::testing::RawFixtures()) {
    const std::string text = ReadFile(FixturePath(fixture));
    int accepted = 0, total = 0;
    for (size_t cut = text.find('\n'); cut != std::string::npos; cut = text.find('\n', cut + 1)) {
      accepted += ImportPrefix(dir, "p.jsonl", text.substr(0, cut + 1), n++);
      ++total;
      // The same cut without its newline leaves a torn final line.
      accepted += ImportPrefix(dir, "p.jsonl", text.substr(0, cut), n++);
      ++total;
    }
    // All prefixes but the newline-less header are valid committed prefixes.
    EXPECT_EQ(accepted, total - 1) << fixture;
  }
}

TEST(PrefixTest, EveryByteCutOfTheZstdFixtureImportsOrIsRefused) {
  TempDir dir;
  const std::string bytes = ReadFile(FixturePath("s1-tools-inject.node22.jsonl.zstd"));
  int accepted = 0;
  for (size_t cut = 0; cut <= bytes.size(); cut += 3) accepted += ImportPrefix(dir, "p.jsonl.zstd", bytes.substr(0, cut), static_cast<int>(cut));
  EXPECT_GT(accepted, 0);
}

}  // namespace
}  // namespace retrace::store
