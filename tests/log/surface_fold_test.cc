#include "engine/log/surface_fold.h"

#include <gtest/gtest.h>

#include "tests/log/log_test_util.h"

namespace retrace::log {
namespace {

using testing::Ev;

std::string User(int seq, const std::string& surface, const std::string& sources = "") {
  return R"({"type":"user/message","seq":)" + std::to_string(seq) +
         R"(,"time":1,"data":{"content":[],"source":{"kind":"user"},"role":"user","id":"u)" + std::to_string(seq) +
         "\"}" + (sources.empty() ? "" : ",\"sourceEventSeqs\":" + sources) + ",\"surfaceOp\":" + surface + "}";
}

std::string Result(int seq, const std::string& text, const std::string& surface, const std::string& sources) {
  return R"({"type":"tool/result","seq":)" + std::to_string(seq) +
         R"(,"time":1,"data":{"turn":1,"step":1,"message":{"source":{"kind":"tool","callId":"c"},"content":[{"type":"tool-result","toolCallId":"c","content":[{"type":"text","text":")" +
         text + R"("}]}],"role":"user","id":"r"}},"sourceEventSeqs":)" + sources + ",\"surfaceOp\":" + surface + "}";
}

class SurfaceFoldTest : public ::testing::Test {
 protected:
  Status Apply(const std::string& line) { return fold_.Apply(Ev(line)); }
  SurfaceFold fold_;
};

TEST_F(SurfaceFoldTest, AppendPushesInOrder) {
  ASSERT_TRUE(Apply(User(0, "\"append\"")).ok());
  ASSERT_TRUE(Apply(User(1, "\"append\"")).ok());
  EXPECT_EQ(fold_.nodes(), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(fold_.replace_generation(), 0);
}

TEST_F(SurfaceFoldTest, ReplaceShadowsPositionalRange) {
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(Apply(User(i, "\"append\"")).ok());
  ASSERT_TRUE(Apply(User(4, R"({"op":"replace","start":1,"end":2})", "[1,2]")).ok());
  EXPECT_EQ(fold_.nodes(), (std::vector<int64_t>{0, 4, 3}));  // surface order differs from seq order
  EXPECT_EQ(fold_.replace_generation(), 1);
  EXPECT_EQ(fold_.Classify(1), SurfaceClass::kShadowed);
  EXPECT_EQ(fold_.Classify(4), SurfaceClass::kCurrent);
  // A replacement can itself be shadowed later; the range is positional (4 comes before 3).
  ASSERT_TRUE(Apply(User(5, R"({"op":"replace","start":4,"end":3})", "[4,3]")).ok());
  EXPECT_EQ(fold_.nodes(), (std::vector<int64_t>{0, 5}));
  EXPECT_EQ(fold_.Classify(4), SurfaceClass::kShadowed);
  EXPECT_EQ(fold_.Classify(99), SurfaceClass::kLogOnly);
}

TEST_F(SurfaceFoldTest, RollbackRestoresTheMarkedStateAfterAppendsAndReplaces) {
  ASSERT_TRUE(Apply(User(0, "\"append\"")).ok());
  ASSERT_TRUE(Apply(User(1, "\"append\"")).ok());
  fold_.Mark();
  ASSERT_TRUE(Apply(User(2, "\"append\"")).ok());
  ASSERT_TRUE(Apply(User(3, R"({"op":"replace","start":0,"end":1})", "[0,1]")).ok());
  EXPECT_EQ(fold_.nodes(), (std::vector<int64_t>{3, 2}));
  fold_.Rollback();
  EXPECT_EQ(fold_.nodes(), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(fold_.replace_generation(), 0);
  EXPECT_EQ(fold_.Classify(0), SurfaceClass::kCurrent);
  fold_.Mark();
  ASSERT_TRUE(Apply(User(2, "\"append\"")).ok());
  fold_.Rollback();
  EXPECT_EQ(fold_.nodes(), (std::vector<int64_t>{0, 1}));
}

TEST_F(SurfaceFoldTest, RefusesRangeOffTheSurfaceOrReversed) {
  ASSERT_TRUE(Apply(User(0, "\"append\"")).ok());
  ASSERT_TRUE(Apply(User(1, "\"append\"")).ok());
  EXPECT_FALSE(Apply(User(2, R"({"op":"replace","start":7,"end":7})", "[0]")).ok());
  EXPECT_FALSE(Apply(User(3, R"({"op":"replace","start":1,"end":0})", "[0,1]")).ok());
}

TEST_F(SurfaceFoldTest, ReplacementMustCiteEveryShadowedSeq) {
  ASSERT_TRUE(Apply(User(0, "\"append\"")).ok());
  ASSERT_TRUE(Apply(User(1, "\"append\"")).ok());
  Status st = Apply(User(2, R"({"op":"replace","start":0,"end":1})", "[0]"));
  EXPECT_NE(st.message().find("must cite shadowed seq 1"), std::string::npos) << st.message();
}

TEST_F(SurfaceFoldTest, ToolResultReplaceMayChangeOnlyContent) {
  ASSERT_TRUE(Apply(User(0, "\"append\"")).ok());
  ASSERT_TRUE(Apply(Result(1, "long output", "\"append\"", "[0]")).ok());
  EXPECT_TRUE(Apply(Result(2, "[pruned]", R"({"op":"replace","start":1,"end":1})", "[1]")).ok());
  // Same shape but a different message id: not content-only.
  std::string changed = Result(3, "x", R"({"op":"replace","start":2,"end":2})", "[2]");
  changed.replace(changed.find("\"id\":\"r\""), 8, "\"id\":\"q\"");
  Status st = Apply(changed);
  EXPECT_NE(st.message().find("may change only message.content[0].content"), std::string::npos) << st.message();
  // A replacement must shadow exactly one tool/result.
  EXPECT_NE(Apply(Result(4, "x", R"({"op":"replace","start":0,"end":0})", "[0]")).message().find("exactly one tool/result"),
            std::string::npos);
}

TEST_F(SurfaceFoldTest, RollbackRestoresToolResultFingerprints) {
  ASSERT_TRUE(Apply(User(0, "\"append\"")).ok());
  ASSERT_TRUE(Apply(Result(1, "long output", "\"append\"", "[0]")).ok());
  fold_.Mark();
  ASSERT_TRUE(Apply(Result(2, "[pruned]", R"({"op":"replace","start":1,"end":1})", "[1]")).ok());
  EXPECT_EQ(fold_.ToolResultMessageId(1), nullptr);
  fold_.Rollback();
  ASSERT_NE(fold_.ToolResultMessageId(1), nullptr);
  EXPECT_EQ(*fold_.ToolResultMessageId(1), "r");
  EXPECT_TRUE(Apply(Result(2, "[pruned again]", R"({"op":"replace","start":1,"end":1})", "[1]")).ok());
}

}  // namespace
}  // namespace retrace::log
