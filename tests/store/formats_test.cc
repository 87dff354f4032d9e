// Packed chunk rows, zstd frames and the dsh directory layout.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/json/parser.h"
#include "store/chunk_rows.h"
#include "store/dsh_layout.h"
#include "store/zstd_frames.h"

namespace retrace::store {
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
  EXPECT_THAT(DecodeError(R"({"type":"text-chunks","seq0":0,"time0":1,"x":1,)" + ok_data + "}"), HasSubstr("row keys"));
  EXPECT_THAT(DecodeError(R"({"type":"text-chunks","seq0":-1,"time0":1,)" + ok_data + "}"), HasSubstr("seq0"));
  EXPECT_THAT(DecodeError(R"({"type":"text-chunks","seq0":0,"time0":1,"data":{"turn":1,"step":1,"index":0,"dt":[],"texts":[]}})"),
              HasSubstr("non-empty array of strings"));
  EXPECT_THAT(DecodeError(R"({"type":"text-chunks","seq0":0,"time0":1,"data":{"turn":1,"step":1,"index":0,"dt":[1.5],"texts":["a","b"]}})"),
              HasSubstr("safe integers"));
  EXPECT_THAT(DecodeError(R"({"type":"reasoning-chunks","seq0":0,"time0":1,"data":{"turn":1,"step":1,"index":0,"dt":[1],"texts":["a","b"],"id":"x"}})"),
              HasSubstr("unexpected data keys"));
  EXPECT_THAT(DecodeError(R"({"type":"text-chunks","seq0":9007199254740991,"time0":1,)" + ok_data + "}"),
              HasSubstr("not a safe integer"));
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
}  // namespace retrace::store
