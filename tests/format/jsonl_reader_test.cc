#include "format/jsonl_reader.h"

#include <gtest/gtest.h>

#include "engine/json/writer.h"
#include "format/zstd_frames.h"
#include "tests/store/store_test_util.h"

namespace retrace::format {
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

// A reader of many records reuses one: each line overwrites every field, so
// a plain event after a packed row (or the reverse) keeps nothing of it.
TEST(JsonlReaderTest, AReusedRecordReadsAsAFreshOneForEveryLine) {
  for (const char* name : {"s1-tools-inject.jsonl", "c01-fs-read.jsonl"}) {
    auto fresh = JsonlReader::Open(FixturePath(name));
    auto reused = JsonlReader::Open(FixturePath(name));
    ASSERT_TRUE(fresh.ok() && reused.ok());
    StorageRecord rec;
    int64_t packed = 0, plain = 0;
    while (true) {
      auto a = (*fresh)->Next();
      auto b = (*reused)->Next(rec);
      ASSERT_TRUE(a.ok() && b.ok());
      ASSERT_EQ(a->has_value(), *b);
      if (!*b) break;
      const StorageRecord& want = **a;
      EXPECT_EQ(rec.text, want.text);
      EXPECT_EQ(rec.line, want.line);
      EXPECT_EQ(rec.first_seq, want.first_seq);
      EXPECT_EQ(rec.count, want.count);
      ASSERT_EQ(rec.packed.has_value(), want.packed.has_value());
      if (rec.packed) {
        EXPECT_EQ(rec.packed->times, want.packed->times);
      }
      EXPECT_EQ(rec.event.type, want.event.type);
      EXPECT_EQ(rec.event.seq, want.event.seq);
      EXPECT_EQ(json::Serialize(rec.event.data), json::Serialize(want.event.data));
      (rec.packed ? packed : plain) += 1;
    }
    EXPECT_GT(packed, 0) << name;
    EXPECT_GT(plain, 0) << name;
  }
}

TEST(JsonlReaderTest, NewlineLessFinalLineIsATornTail) {
  const ReadResult r = ReadAll(FixturePath("s2-interrupted-tool.crashed.jsonl"));
  ASSERT_TRUE(r.torn.has_value());
  EXPECT_EQ(r.torn->line, 26);
  EXPECT_EQ(r.torn->reason, "final line has no newline");
  EXPECT_EQ(r.lines, 24);
}

TEST(JsonlReaderTest, GarbageAfterTheLastTurnEndIsDroppedWithLaterLines) {
  retrace::testing::TempDir dir;
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
  retrace::testing::TempDir dir;
  testing::WriteFile(dir / "t.jsonl.zstd", *CompressFrame(header) + frame.substr(0, frame.size() - 100));
  const ReadResult r = ReadAll(dir / "t.jsonl.zstd");
  EXPECT_GT(r.events, 0);
  EXPECT_LT(r.events, n);
  ASSERT_TRUE(r.torn.has_value());
}

// The raw reader fills its buffer a megabyte at a time and keeps the
// unfinished line: lines of every size, one longer than a read, come back whole.
TEST(JsonlReaderTest, ARawLogOfManyReadsGivesEveryLineWhole) {
  std::vector<std::string> lines;
  size_t bytes = 0;
  for (int64_t n = 0; bytes < (size_t{3} << 20); ++n) {
    const size_t size = n == 40 ? (size_t{3} << 19) : static_cast<size_t>(n * 7919 % 6000);
    lines.push_back(R"({"type":"retrace/t","seq":)" + std::to_string(n) + R"(,"time":1,"data":{"s":")" +
                    std::string(size, 'a' + static_cast<char>(n % 26)) + R"("},"ignorable":true})");
    bytes += lines.back().size() + 1;
  }
  std::string text = retrace::testing::Lines(testing::ReadFile(FixturePath("s1-tools-inject.jsonl")))[0] + "\n";
  for (const std::string& line : lines) text += line + "\n";
  retrace::testing::TempDir dir;
  testing::WriteFile(dir / "t.jsonl", text);
  auto reader = JsonlReader::Open(dir / "t.jsonl");
  ASSERT_TRUE(reader.ok());
  StorageRecord rec;
  size_t i = 0;
  while (true) {
    auto got = (*reader)->Next(rec);
    ASSERT_TRUE(got.ok()) << got.status().message();
    if (!*got) break;
    ASSERT_LT(i, lines.size());
    EXPECT_EQ(rec.text, lines[i]) << "line " << i;
    ++i;
  }
  EXPECT_EQ(i, lines.size());
  EXPECT_FALSE((*reader)->torn_tail().has_value());
}

TEST(JsonlReaderTest, ZstdFixtureCutInsideItsOnlyBatchBlockKeepsNoEvents) {
  retrace::testing::TempDir dir;
  const std::string bytes = testing::ReadFile(FixturePath("s1-tools-inject.node22.jsonl.zstd"));
  testing::WriteFile(dir / "t.zstd", bytes.substr(0, bytes.size() - 7));
  const ReadResult r = ReadAll(dir / "t.zstd");
  EXPECT_EQ(r.events, 0);  // nothing of a torn single-block frame is decodable
}

// Everything the reader reports, with a type filter or without: the verdict,
// the torn tail, and each needed event's data.
std::string ReadAll(const std::string& path, bool filtered) {
  auto need = [](std::string_view t) { return t == "tool/call" || t == "tool/result"; };
  auto reader = JsonlReader::Open(path);
  if (!reader.ok()) return "open: " + reader.status().message();
  if (filtered) (*reader)->set_type_filter(need);
  std::string out;
  while (true) {
    auto rec = (*reader)->Next();
    if (!rec.ok()) return out + "error: " + rec.status().message();
    if (!*rec) break;
    out += std::to_string((*rec)->first_seq) + "+" + std::to_string((*rec)->count) + ";";
    if (!(*rec)->packed && need((*rec)->event.type)) out += json::Serialize((*rec)->event.data) + "\n";
  }
  if ((*reader)->torn_tail()) out += "torn at " + std::to_string((*reader)->torn_tail()->line) + ": " + (*reader)->torn_tail()->reason;
  return out;
}

TEST(JsonlReaderTest, TypeFilterChangesNothingButWhatIsConverted) {
  retrace::testing::TempDir dir;
  for (const std::string& fixture : retrace::testing::RawFixtures()) {
    const std::string text = retrace::testing::ReadFile(FixturePath(fixture));
    const std::vector<std::string> lines = retrace::testing::Lines(text);
    // Every line prefix, and each with a damaged last line (a torn tail or corruption).
    for (size_t n = 1; n <= lines.size(); n += 3) {
      std::string prefix;
      for (size_t i = 0; i < n; ++i) prefix += lines[i] + "\n";
      for (const std::string& body : {prefix, prefix.substr(0, prefix.size() - 2) + "x\n"}) {
        retrace::testing::WriteFile(dir / "cut.jsonl", body);
        ASSERT_EQ(ReadAll(dir / "cut.jsonl", true), ReadAll(dir / "cut.jsonl", false)) << fixture << " cut at " << n;
      }
    }
  }
}

}  // namespace
}  // namespace retrace::format
