// Every prefix of every fixture (cut after each line, and at byte positions
// for the zstd one) imports or is refused cleanly; it never crashes.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>

#include "store/importer.h"
#include "tests/store/store_test_util.h"

namespace retrace::store {
namespace {

using namespace retrace::store::testing;

// An empty store's file, made once: each import starts from a copy of it,
// as creating a store (the migrations' DDL) costs more than most imports.
class EmptyStore {
 public:
  explicit EmptyStore(const TempDir& dir) : path_(dir / "empty.db") { OpenStoreOrDie(path_).reset(); }
  // A fresh store at `db`, with no session in it.
  std::unique_ptr<EventStore> CopyTo(const std::string& db) const {
    std::filesystem::copy_file(path_, db, std::filesystem::copy_options::overwrite_existing);
    return OpenStoreOrDie(db);
  }

 private:
  std::string path_;
};

// Imports `bytes` into a fresh store; returns true if accepted. A refusal
// must carry a message and leave no session behind.
bool ImportPrefix(const TempDir& dir, const EmptyStore& empty, const std::string& name, const std::string& bytes) {
  const std::string db = dir / "p.db";
  const std::string file = dir / name;
  WriteFile(file, bytes);
  auto store = empty.CopyTo(db);
  auto report = ImportJsonl(*store, file);
  if (!report.ok()) {
    EXPECT_FALSE(report.status().message().empty());
    EXPECT_EQ(store->ListSessions()->size(), 0u);
  }
  store.reset();
  for (const char* suffix : {"", "-wal", "-shm", "-lock"}) std::filesystem::remove(db + suffix);
  return report.ok();
}

TEST(PrefixTest, EveryLinePrefixOfEveryRawFixtureImportsOrIsRefused) {
  TempDir dir;
  const EmptyStore empty(dir);
  for (const auto& fixture : retrace::testing::RawFixtures()) {
    const std::string text = ReadFile(FixturePath(fixture));
    int accepted = 0, total = 0;
    for (size_t cut = text.find('\n'); cut != std::string::npos; cut = text.find('\n', cut + 1)) {
      accepted += ImportPrefix(dir, empty, "p.jsonl", text.substr(0, cut + 1));
      ++total;
      // The same cut without its newline leaves a torn final line.
      accepted += ImportPrefix(dir, empty, "p.jsonl", text.substr(0, cut));
      ++total;
    }
    // All prefixes but the newline-less header are valid committed prefixes.
    EXPECT_EQ(accepted, total - 1) << fixture;
  }
}

TEST(PrefixTest, EveryByteCutOfTheZstdFixtureImportsOrIsRefused) {
  TempDir dir;
  const EmptyStore empty(dir);
  const std::string bytes = ReadFile(FixturePath("s1-tools-inject.node22.jsonl.zstd"));
  int accepted = 0;
  for (size_t cut = 0; cut <= bytes.size(); cut += 3) {
    accepted += ImportPrefix(dir, empty, "p.jsonl.zstd", bytes.substr(0, cut));
  }
  EXPECT_GT(accepted, 0);
}

}  // namespace
}  // namespace retrace::store
