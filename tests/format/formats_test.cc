// Packed chunk rows, zstd frames and the dsh directory layout.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/json/parser.h"
#include "format/chunk_rows.h"
#include "format/dsh_layout.h"
#include "format/zstd_frames.h"
#include "tests/test_util.h"

namespace retrace::format {
namespace {

using ::testing::HasSubstr;

std::string DecodeError(const std::string& row) {
  auto v = json::Parse(row);
  EXPECT_TRUE(v.ok());
  auto r = DecodeChunkRow(*v);
  return r.ok() ? "" : r.status().message();
}

TEST(ChunkRowsTest, DecodesMembersWithSeqAndTimeOffsets) {
  auto v = json::Parse(R"({"type":"tool-call-chunks","seq0":7,"time0":100,"data":{"turn":1,"step":2,"index":0,"dt":[3,-1],"id":"c","name":"read","args":["{","\"a\"",":1}"]}})");
  auto r = DecodeChunkRow(*v);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[2].text,
            R"({"type":"assistant/chunk","seq":9,"time":102,"data":{"turn":1,"step":2,"chunk":{"type":"tool-call-delta","index":0,"id":"c","name":"read","argumentsDelta":":1}"}}})");
}

TEST(ChunkRowsTest, RefusesEveryShapeDeviation) {
  const std::string ok_data = R"("data":{"turn":1,"step":1,"index":0,"dt":[1],"texts":["a","b"]})";
  EXPECT_EQ(DecodeError(R"({"type":"text-chunks","seq0":0,"time0":1,)" + ok_data + "}"), "");
  EXPECT_THAT(DecodeError(R"({"type":"text-chunks","seq0":0,"time0":1,"x":1,)" + ok_data + "}"), HasSubstr("envelope must be exactly {type, seq0, time0, data}"));
  EXPECT_THAT(DecodeError(R"({"type":"text-chunks","seq0":-1,"time0":1,)" + ok_data + "}"), HasSubstr("seq0 must be a non-negative safe integer"));
  EXPECT_THAT(DecodeError(R"({"type":"text-chunks","seq0":0,"time0":1,"data":{"turn":1,"step":1,"index":0,"dt":[],"texts":[]}})"),
              HasSubstr("texts must be a non-empty string array"));
  EXPECT_THAT(DecodeError(R"({"type":"text-chunks","seq0":0,"time0":1,"data":{"turn":1,"step":1,"index":0,"dt":[1.5],"texts":["a","b"]}})"),
              HasSubstr("dt must be an array of safe integers"));
  EXPECT_THAT(DecodeError(R"({"type":"reasoning-chunks","seq0":0,"time0":1,"data":{"turn":1,"step":1,"index":0,"dt":[1],"texts":["a","b"],"id":"x"}})"),
              HasSubstr("data must be exactly {turn, step, index, dt, texts}"));
  EXPECT_THAT(DecodeError(R"({"type":"text-chunks","seq0":9007199254740991,"time0":1,)" + ok_data + "}"),
              HasSubstr("member seqs must stay safe integers"));
}

// Every packed row of every fixture re-packs to its exact text, and packing a
// whole fixture's events then decoding gives back the same events.
TEST(ChunkRowsTest, PackIsTheInverseOfDecodeOnEveryFixture) {
  for (const auto& name : retrace::testing::RawFixtures()) {
    const std::string text = retrace::testing::ReadFile(retrace::testing::FixturePath(name));
    auto lines = retrace::testing::Lines(text);
    if (text.back() != '\n') lines.pop_back();
    std::vector<log::EventRecord> all;
    int rows = 0;
    for (size_t i = 1; i < lines.size(); ++i) {
      auto v = json::Parse(lines[i]);
      ASSERT_TRUE(v.ok());
      const json::Value* type = v->Find("type");
      if (!IsChunkRowTag(type->as_string())) {
        all.push_back({*log::ParseEvent(lines[i]), lines[i]});
        continue;
      }
      auto members = DecodeChunkRow(*v);
      ASSERT_TRUE(members.ok()) << members.status().message();
      EXPECT_EQ(PackChunkRuns(*members), std::vector<std::string>{lines[i]}) << name << ":" << i + 1;
      all.insert(all.end(), members->begin(), members->end());
      ++rows;
    }
    EXPECT_GT(rows, 0) << name;
    std::vector<std::string> unpacked;
    for (const std::string& line : PackChunkRuns(all)) {
      auto v = json::Parse(line);
      if (IsChunkRowTag(v->Find("type")->as_string())) {
        auto decoded = DecodeChunkRow(*v);
        ASSERT_TRUE(decoded.ok());
        for (const auto& m : decoded.value()) unpacked.push_back(m.text);
      } else {
        unpacked.push_back(line);
      }
    }
    ASSERT_EQ(unpacked.size(), all.size()) << name;
    for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(unpacked[i], all[i].text) << name << " seq " << i;
  }
}

TEST(ZstdFramesTest, RoundTripsAndDetectsTornAndCorruptFrames) {
  const std::string text(5000, 'x');
  auto frame = CompressFrame(text);
  ASSERT_TRUE(frame.ok());
  EXPECT_TRUE(LooksLikeZstd(*frame));
  auto span = ScanZstdFrame(*frame, 0);
  ASSERT_TRUE(span.ok());
  EXPECT_EQ(span->kind, ZstdFrameSpan::Kind::kComplete);
  EXPECT_EQ(span->size, frame->size());
  EXPECT_EQ(*DecompressFrame(*frame, 0), text);
  EXPECT_EQ(ScanZstdFrame(frame->substr(0, frame->size() - 1), 0)->kind, ZstdFrameSpan::Kind::kTorn);
  std::string reserved = *frame;
  reserved[4] |= 0x08;
  EXPECT_THAT(ScanZstdFrame(reserved, 40).status().message(), HasSubstr("frame at byte 40 failed validation"));
}

// Expected values were computed by dsh's own encodeSegment / projectKey (Node 22).
TEST(DshLayoutTest, EncodeSegmentMatchesDsh) {
  EXPECT_EQ(EncodeSegment("s1-tools-inject"), "s1-tools-inject");
  EXPECT_EQ(EncodeSegment("."), "~002E");
  EXPECT_EQ(EncodeSegment(".."), "~002E~002E");
  EXPECT_EQ(EncodeSegment("a b/c~d"), "a~0020b~002Fc~007Ed");
  EXPECT_EQ(EncodeSegment("é😀"), "~00E9~D83D~DE00");
  EXPECT_EQ(EncodeSegment("\xed\xa0\x80x"), "~D800x");  // a lone surrogate (WTF-8)
  EXPECT_EQ(EncodeSegment("A.Z_0-9"), "A.Z_0-9");
}

TEST(DshLayoutTest, ProjectKeyMatchesDsh) {
  EXPECT_EQ(ProjectKey("/home/dev/calc"), "--home-dev-calc--");
  EXPECT_EQ(ProjectKey("/"), "--root--");
  EXPECT_EQ(ProjectKey("C:\\Users\\me\\proj"), "--C-Users-me-proj--");
  EXPECT_EQ(ProjectKey("/a//b/"), "--a-b---");
  EXPECT_EQ(ProjectKey("/tmp/ü ñ"), "--tmp-~00FC~0020~00F1--");
  EXPECT_EQ(ProjectKey("---x"), "--x--");
  EXPECT_EQ(ProjectKey("/" + std::string(300, 'a')), "--" + std::string(251, 'a') + "--");
  EXPECT_EQ(*DshLogPath("id", std::nullopt, true), "_no-cwd/id/session.jsonl.zstd");
}

}  // namespace
}  // namespace retrace::format
