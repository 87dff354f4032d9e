// frontends/acp/session_updates.h on hand-made transcript rows: the edges a fixture may
// not reach (hostile content blocks, lines ACP cannot take, relative paths
// without a cwd, fences inside output, kinds outside ACP's enum).
#include "frontends/acp/session_updates.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontends/acp/server.h"
#include "engine/json/parser.h"
#include "engine/json/writer.h"

namespace retrace::acp {
namespace {

using ::testing::HasSubstr;
using json::Value;

std::vector<std::string> Updates(const std::string& row_json, UpdateOptions options = {"/w", false}) {
  std::vector<std::string> out;
  RowUpdates(*json::Parse(row_json), options, [&](Value u) { out.push_back(json::Serialize(u)); });
  return out;
}

TEST(AbsolutePathTest, RelativePathsResolveAgainstTheCwdLexically) {
  EXPECT_EQ(AbsolutePath("src/a.ts", "/w"), "/w/src/a.ts");
  EXPECT_EQ(AbsolutePath("./src/../b.ts", "/w/"), "/w/b.ts");
  EXPECT_EQ(AbsolutePath("/abs//x/./y", "/w"), "/abs/x/y");
  EXPECT_EQ(AbsolutePath("../../../../etc", "/w"), "/etc");  // never above /
  EXPECT_EQ(AbsolutePath("a.ts", ""), "");                   // no cwd: no absolute path to give
  EXPECT_EQ(AbsolutePath("", "/w"), "");
}

TEST(RowUpdatesTest, LinesAcpCannotTakeAreDroppedButTheLocationStays) {
  const std::vector<std::string> u = Updates(
      R"({"seq":3,"kind":"tool","callId":"c1","name":"read","args":{},"pending":{"card":"generic","title":"Read a",)"
      R"("kind":"read","locations":[{"path":"a","line":-5},{"path":"b","line":2.5},{"path":"c","line":7}]},)"
      R"("result":null,"isError":null})");
  ASSERT_EQ(u.size(), 1u);
  EXPECT_THAT(u[0], HasSubstr(R"("status":"pending")"));
  EXPECT_THAT(u[0], HasSubstr(R"("locations":[{"path":"/w/a"},{"path":"/w/b"},{"path":"/w/c","line":7}])"));
}

TEST(RowUpdatesTest, AKindOutsideTheEnumIsOther) {
  const std::vector<std::string> u = Updates(
      R"({"seq":3,"kind":"tool","callId":"c1","name":"x","args":{},"pending":{"card":"generic","title":"X","kind":"web"},)"
      R"("result":{"card":"generic","content":[{"type":"text","text":"ok"}]},"isError":false})");
  ASSERT_EQ(u.size(), 1u);
  EXPECT_THAT(u[0], HasSubstr(R"("kind":"other","status":"completed")"));
}

TEST(RowUpdatesTest, HostileContentBlocksBecomeText) {
  const std::vector<std::string> u = Updates(
      R"({"seq":3,"kind":"tool","callId":"c1","name":"x","args":{},"pending":{"card":"generic","title":"X"},)"
      R"("result":{"card":"generic","content":[{"type":"image","data":1},{"type":"evil","x":"<script>"},)"
      R"({"type":"image","data":"AA==","mimeType":"image/png","extra":"dropped"}]},"isError":true})");
  ASSERT_EQ(u.size(), 1u);
  EXPECT_THAT(u[0], HasSubstr(R"({"type":"content","content":{"type":"text","text":"{\"type\":\"image\",\"data\":1}"}})"));
  EXPECT_THAT(u[0], HasSubstr(R"({"type":"content","content":{"type":"image","data":"AA==","mimeType":"image/png"}})"));
  EXPECT_THAT(u[0], HasSubstr(R"("status":"failed")"));
}

TEST(RowUpdatesTest, TerminalOutputWithFencesGetsALongerFence) {
  const std::vector<std::string> u = Updates(
      R"({"seq":3,"kind":"tool","callId":"c1","name":"bash","args":{},"pending":{"card":"terminal","title":"cat x.md"},)"
      R"("result":{"card":"terminal","output":"a\n```\nb\n","exitCode":1},"isError":false})");
  ASSERT_EQ(u.size(), 1u);
  EXPECT_THAT(u[0], HasSubstr(R"("text":"````console\na\n```\nb\n````\nexit code 1")"));
}

TEST(RowUpdatesTest, ChunksOfTwoMessagesNeverShareAnId) {
  EXPECT_EQ(Updates(R"({"seq":4,"kind":"prompt","text":"hi"})"),
            std::vector<std::string>{
                R"({"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"hi"},"messageId":"m4"})"});
  const std::vector<std::string> a = Updates(R"({"seq":9,"kind":"assistant","reasoning":"r","text":"t"})");
  ASSERT_EQ(a.size(), 2u);
  EXPECT_THAT(a[0], HasSubstr(R"("agent_thought_chunk","content":{"type":"text","text":"r"},"messageId":"m9")"));
  EXPECT_THAT(a[1], HasSubstr(R"("agent_message_chunk","content":{"type":"text","text":"t"},"messageId":"m9")"));
  EXPECT_TRUE(Updates(R"({"seq":1,"kind":"turn","turn":0})").empty());
}

TEST(RowUpdatesTest, ASeqNoIntegerHoldsStillNamesItsMessage) {
  // Found by fuzz_acp_updates: the seq was cast to int64 (undefined for 1e59).
  EXPECT_EQ(Updates(R"({"seq":99999999999999999999999999999999999999999999999999999999998,"kind":"prompt","text":"x"})"),
            std::vector<std::string>{
                R"({"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"x"},"messageId":"m1e+59"})"});
  EXPECT_THAT(Updates(R"({"seq":2.5,"kind":"prompt","text":"x"})")[0], HasSubstr(R"("messageId":"m2.5")"));
}

TEST(CursorTest, RoundTripsAndRejectsAnythingElse) {
  EXPECT_EQ(DecodeCursor(EncodeCursor("s/1 é")), "s/1 é");
  EXPECT_EQ(DecodeCursor("rc1.6"), std::nullopt);
  EXPECT_EQ(DecodeCursor("rc1.zz"), std::nullopt);
  EXPECT_EQ(DecodeCursor("abc"), std::nullopt);
}

}  // namespace
}  // namespace retrace::acp
