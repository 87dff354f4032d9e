// Import → export is byte-identical for every fixture; repair of the crashed
// fixture gives exactly the prefix of the repaired one.
#include <gtest/gtest.h>

#include "store/exporter.h"
#include "store/importer.h"
#include "store/session_writer.h"
#include "format/zstd_frames.h"
#include "tests/store/store_test_util.h"

namespace retrace::store {
namespace {

using namespace retrace::store::testing;

std::string Export(EventStore& store, const std::string& id, bool zstd) {
  std::string out;
  Status st = ExportSession(store, id, zstd, [&](std::string_view b) {
    out.append(b);
    return Status::Ok();
  });
  EXPECT_TRUE(st.ok()) << st.message();
  return out;
}

std::string DecompressAll(const std::string& bytes) {
  std::string out;
  size_t at = 0;
  while (at < bytes.size()) {
    auto span = format::ScanZstdFrame(std::string_view(bytes).substr(at), at);
    EXPECT_TRUE(span.ok() && span->kind == format::ZstdFrameSpan::Kind::kComplete);
    if (!span.ok()) break;
    auto plain = format::DecompressFrame(std::string_view(bytes).substr(at, span->size), at);
    EXPECT_TRUE(plain.ok());
    out += plain.ok() ? *plain : "";
    at += span->size;
  }
  return out;
}

class RoundTripTest : public ::testing::TestWithParam<std::string> {};

TEST_P(RoundTripTest, ImportThenExportIsByteIdentical) {
  TempDir dir;
  auto store = OpenStoreOrDie(dir / "r.db");
  auto report = ImportJsonl(*store, FixturePath(GetParam()));
  ASSERT_TRUE(report.ok()) << report.status().message();
  const std::string original = ReadFile(FixturePath(GetParam()));
  const std::string exported = Export(*store, report->session_id, false);
  if (GetParam() == "s2-interrupted-tool.crashed.jsonl") {
    EXPECT_EQ(exported, original.substr(0, original.rfind('\n') + 1));  // the torn tail is not stored
  } else {
    EXPECT_EQ(exported, original);
  }
  // The zstd export decompresses to the same text.
  EXPECT_EQ(DecompressAll(Export(*store, report->session_id, true)), exported);
}

INSTANTIATE_TEST_SUITE_P(AllRawFixtures, RoundTripTest, ::testing::ValuesIn(retrace::testing::RawFixtures()),
                         [](const auto& test_param) {
                           std::string n = test_param.param;
                           for (char& c : n)
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

TEST(RoundTripZstdTest, ZstdFixtureExportsIdenticalDecompressedContent) {
  TempDir dir;
  auto store = OpenStoreOrDie(dir / "r.db");
  auto report = ImportJsonl(*store, FixturePath("s1-tools-inject.node22.jsonl.zstd"));
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_TRUE(report->compressed);
  const std::string original = DecompressAll(ReadFile(FixturePath("s1-tools-inject.node22.jsonl.zstd")));
  EXPECT_EQ(DecompressAll(Export(*store, "s1-tools-inject", true)), original);
  EXPECT_EQ(Export(*store, "s1-tools-inject", false), original);
}

TEST(RepairTest, CrashedFixtureRepairsToTheExactPrefixOfTheRepairedFixture) {
  TempDir dir;
  auto store = OpenStoreOrDie(dir / "r.db");
  ASSERT_TRUE(ImportJsonl(*store, FixturePath("s2-interrupted-tool.crashed.jsonl")).ok());
  auto writer = store->OpenWriter("s2-interrupted-tool");
  ASSERT_TRUE(writer.ok());
  auto added = (*writer)->RepairOpenTurn();
  ASSERT_TRUE(added.ok()) << added.status().message();
  EXPECT_EQ(*added, 4);
  const std::string repaired = Export(*store, "s2-interrupted-tool", false);
  const std::string expected = ReadFile(FixturePath("s2-interrupted-tool.repaired-resumed.jsonl"));
  // Header + 24 committed lines + 4 closers = 29 lines, seq 0..37.
  EXPECT_EQ(std::count(repaired.begin(), repaired.end(), '\n'), 29);
  EXPECT_EQ(repaired, expected.substr(0, repaired.size()));
  // Idempotent: a balanced log gets nothing.
  EXPECT_EQ(*(*writer)->RepairOpenTurn(), 0);
}

TEST(ReimportTest, SameFileTwiceIsUnchangedAndAGrownLogAppends) {
  TempDir dir;
  auto store = OpenStoreOrDie(dir / "r.db");
  ASSERT_TRUE(ImportJsonl(*store, FixturePath("s2-interrupted-tool.crashed.jsonl")).ok());
  auto again = ImportJsonl(*store, FixturePath("s2-interrupted-tool.crashed.jsonl"));
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_FALSE(again->created);
  EXPECT_EQ(again->events_added, 0);
  auto grown = ImportJsonl(*store, FixturePath("s2-interrupted-tool.repaired-resumed.jsonl"));
  ASSERT_TRUE(grown.ok()) << grown.status().message();
  EXPECT_EQ(grown->events_added, 90 - 34);
  EXPECT_EQ(Export(*store, "s2-interrupted-tool", false), ReadFile(FixturePath("s2-interrupted-tool.repaired-resumed.jsonl")));
}

TEST(ExportTest, DshRootLayoutNeverOverwritesAndRefusesMixedEncodings) {
  TempDir dir;
  auto store = OpenStoreOrDie(dir / "r.db");
  ASSERT_TRUE(ImportJsonl(*store, FixturePath("s1-tools-inject.jsonl")).ok());
  auto path = ExportToDshRoot(*store, "s1-tools-inject", false, dir / "root");
  ASSERT_TRUE(path.ok()) << path.status().message();
  EXPECT_EQ(*path, dir / "root/--home-dev-calc--/s1-tools-inject/session.jsonl");
  EXPECT_EQ(ReadFile(*path), ReadFile(FixturePath("s1-tools-inject.jsonl")));
  EXPECT_EQ(ExportToDshRoot(*store, "s1-tools-inject", false, dir / "root").status().code(), Status::Code::kAlreadyExists);
  EXPECT_EQ(ExportToDshRoot(*store, "s1-tools-inject", true, dir / "root").status().code(),
            Status::Code::kFailedPrecondition);
}

}  // namespace
}  // namespace retrace::store
