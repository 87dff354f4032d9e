#include "store/jsonl_reader.h"

#include <gtest/gtest.h>

#include "store/zstd_frames.h"
#include "tests/store/store_test_util.h"

namespace retrace::store {
namespace {

using testing::FixturePath;

struct ReadResult {
  int64_t events = 0;
  int64_t lines = 0;
  int64_t packed = 0;
  std::optional<TornTail> torn;
};

ReadResult ReadAll(const std::string& path) {
  auto reader = JsonlReader::Open(path);
  EXPECT_TRUE(reader.ok()) << reader.status().message();
  ReadResult r;
  if (!reader.ok()) return r;
  while (true) {
    auto rec = (*reader)->Next();
    EXPECT_TRUE(rec.ok()) << rec.status().message();
    if (!rec.ok() || !*rec) break;
    EXPECT_EQ((*rec)->first_seq, r.events);
    r.events += (*rec)->count;
    ++r.lines;
    r.packed += (*rec)->packed.has_value() ? 1 : 0;
  }
  r.torn = (*reader)->torn_tail();
  return r;
}

// Decoded counts documented in the fixture README.
TEST(JsonlReaderTest, DecodesFixtureEventCounts) {
  EXPECT_EQ(ReadAll(FixturePath("s1-tools-inject.jsonl")).events, 92);
  EXPECT_EQ(ReadAll(FixturePath("s1-tools-inject.jsonl")).packed, 5);
  EXPECT_EQ(ReadAll(FixturePath("s2-interrupted-tool.crashed.jsonl")).events, 34);
  EXPECT_EQ(ReadAll(FixturePath("s2-interrupted-tool.repaired-resumed.jsonl")).events, 90);
  EXPECT_EQ(ReadAll(FixturePath("s1-tools-inject.node22.jsonl.zstd")).events, 92);
  EXPECT_EQ(ReadAll(FixturePath("c01-fs-read.jsonl")).events, 290);
  EXPECT_EQ(ReadAll(FixturePath("c04-bash-jobs.jsonl")).events, 354);
  EXPECT_EQ(ReadAll(FixturePath("c06-errors-policy.jsonl")).events, 287);
}

TEST(JsonlReaderTest, NewlineLessFinalLineIsATornTail) {
  const ReadResult r = ReadAll(FixturePath("s2-interrupted-tool.crashed.jsonl"));
  ASSERT_TRUE(r.torn.has_value());
  EXPECT_EQ(r.torn->line, 26);
  EXPECT_EQ(r.torn->reason, "final line has no newline");
  EXPECT_EQ(r.lines, 24);
}

TEST(JsonlReaderTest, GarbageAfterTheLastTurnEndIsDroppedWithLaterLines) {
  testing::TempDir dir;
  const std::string text = testing::ReadFile(FixturePath("s1-tools-inject.jsonl"));
  testing::WriteFile(dir / "t.jsonl", text + "{not json\n" + "{\"type\":\"step/start\",\"seq\":92,\"time\":1,\"data\":{}}\n");
  const ReadResult r = ReadAll(dir / "t.jsonl");
  EXPECT_EQ(r.events, 92);
  ASSERT_TRUE(r.torn.has_value());
  EXPECT_EQ(r.torn->line, 53);
  EXPECT_NE(r.torn->reason.find("unparsable committed event at line 52"), std::string::npos) << r.torn->reason;
}

TEST(JsonlReaderTest, TornZstdFrameKeepsTheCompleteLinesOfItsDecodableBlocks) {
  // One frame of ~1 MB spans several 128 KB zstd blocks; cut inside the last one.
  std::string events;
  int64_t n = 0;
  while (events.size() < (1 << 20)) {
    events += R"({"type":"retrace/t","seq":)" + std::to_string(n) + R"(,"time":1,"data":{"i":")" +
              std::to_string(n * 7919) + R"("},"ignorable":true})" + "\n";
    ++n;
  }
  const std::string header = retrace::testing::Lines(testing::ReadFile(FixturePath("s1-tools-inject.jsonl")))[0] + "\n";
  const std::string frame = *CompressFrame(events, 1);
  testing::TempDir dir;
  testing::WriteFile(dir / "t.jsonl.zstd", *CompressFrame(header) + frame.substr(0, frame.size() - 100));
  const ReadResult r = ReadAll(dir / "t.jsonl.zstd");
  EXPECT_GT(r.events, 0);
  EXPECT_LT(r.events, n);
  ASSERT_TRUE(r.torn.has_value());
}

TEST(JsonlReaderTest, ZstdFixtureCutInsideItsOnlyBatchBlockKeepsNoEvents) {
  testing::TempDir dir;
  const std::string bytes = testing::ReadFile(FixturePath("s1-tools-inject.node22.jsonl.zstd"));
  testing::WriteFile(dir / "t.zstd", bytes.substr(0, bytes.size() - 7));
  const ReadResult r = ReadAll(dir / "t.zstd");
  EXPECT_EQ(r.events, 0);  // nothing of a torn single-block frame is decodable
}

}  // namespace
}  // namespace retrace::store
