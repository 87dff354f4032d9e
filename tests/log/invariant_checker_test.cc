#include "engine/log/invariant_checker.h"

#include <gtest/gtest.h>

#include "tests/log/log_test_util.h"

namespace retrace::log {
namespace {

Status FeedAll(InvariantChecker& c, const std::vector<std::string>& lines) {
  for (const auto& l : lines) RETURN_IF_ERROR(c.Check(testing::Ev(l)));
  return Status::Ok();
}

TEST(InvariantCheckerTest, AcceptsAWellFormedTurn) {
  InvariantChecker c;
  EXPECT_TRUE(FeedAll(c, testing::SmallSessionLines()).ok());
  EXPECT_FALSE(c.turn_open());
}

TEST(InvariantCheckerTest, AcceptsEveryClosedFixture) {
  for (const char* name : {"c01-fs-read.jsonl", "c04-bash-jobs.jsonl", "c06-errors-policy.jsonl", "s1-tools-inject.jsonl"}) {
    InvariantChecker c;
    for (const Event& e : testing::PlainFixtureEvents(name)) {
      if (e.type == "assistant/chunk") continue;  // packed rows are skipped by the helper anyway
      Status st = c.Check(e);
      ASSERT_TRUE(st.ok()) << name << ": " << st.message();
    }
  }
}

TEST(InvariantCheckerTest, RefusesWrongTurnNumberAndNesting) {
  InvariantChecker c;
  EXPECT_FALSE(FeedAll(c, {R"({"type":"turn/start","seq":0,"time":1,"data":{"turn":2}})"}).ok());
  InvariantChecker d;
  EXPECT_FALSE(FeedAll(d, {R"({"type":"turn/start","seq":0,"time":1,"data":{"turn":1}})",
                           R"({"type":"turn/start","seq":1,"time":1,"data":{"turn":2}})"}).ok());
}

TEST(InvariantCheckerTest, RefusesResultWithoutCallExceptNotStarted) {
  auto lines = testing::SmallSessionLines();
  lines.erase(lines.begin() + 4);  // drop the tool/call
  InvariantChecker c;
  Status st = FeedAll(c, lines);
  EXPECT_NE(st.message().find("no tool/call \"c1\" earlier in this step"), std::string::npos) << st.message();
}

TEST(InvariantCheckerTest, RefusesTurnEndWithOpenStep) {
  InvariantChecker c;
  Status st = FeedAll(c, {R"({"type":"turn/start","seq":0,"time":1,"data":{"turn":1}})",
                          R"({"type":"step/start","seq":1,"time":1,"data":{"turn":1,"step":1}})",
                          R"({"type":"turn/end","seq":2,"time":1,"data":{"turn":1,"reason":{"kind":"completed"}}})"});
  EXPECT_NE(st.message().find("step 1 is still open"), std::string::npos);
}

}  // namespace
}  // namespace retrace::log
