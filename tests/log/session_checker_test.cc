#include "engine/log/session_checker.h"

#include <gtest/gtest.h>

#include "tests/log/log_test_util.h"

namespace retrace::log {
namespace {

using testing::Ev;

class SessionCheckerTest : public ::testing::Test {
 protected:
  Status Feed(const std::vector<std::string>& lines) {
    for (const auto& l : lines) {
      Status st = checker_.Check(Ev(l));
      if (!st.ok()) return st;
    }
    return Status::Ok();
  }
  SessionChecker checker_{"sid"};
};

TEST_F(SessionCheckerTest, AcceptsAValidSession) {
  ASSERT_TRUE(Feed(testing::SmallSessionLines()).ok());
  EXPECT_EQ(checker_.next_seq(), 8);
  EXPECT_EQ(checker_.surface().nodes(), (std::vector<int64_t>{2, 3, 5}));
}

TEST_F(SessionCheckerTest, RefusesASeqGap) {
  Status st = Feed({R"({"type":"turn/start","seq":0,"time":1,"data":{"turn":1}})",
                    R"({"type":"step/start","seq":2,"time":1,"data":{"turn":1,"step":1}})"});
  EXPECT_EQ(st.message(), "event at index 1 has seq 2 (expected 1); a log must be contiguous from 0");
}

TEST_F(SessionCheckerTest, RefusesUnknownTypesUnlessIgnorable) {
  EXPECT_TRUE(Feed({R"({"type":"retrace/note","seq":0,"time":1,"data":{},"ignorable":true})"}).ok());
  Status st = Feed({R"({"type":"future/thing","seq":1,"time":1,"data":{}})"});
  EXPECT_EQ(st.message(),
            "session \"sid\" contains event type \"future/thing\" (seq 1) unknown to this harness and not marked "
            "ignorable; refusing to interpret the log — it was likely written by a newer harness");
}

TEST_F(SessionCheckerTest, RefusesBadMessageShapes) {
  Status st = Feed({R"({"type":"assistant/message","seq":0,"time":1,"data":{"message":{"role":"assistant","content":[],"source":{"kind":"model","provider":"","model":"m"},"id":"a"}},"surfaceOp":"append"})"});
  EXPECT_NE(st.message().find("provider and model"), std::string::npos) << st.message();
}

TEST_F(SessionCheckerTest, RefusesToolResultWithMismatchedCallId) {
  Status st = Feed({R"({"type":"tool/result","seq":0,"time":1,"data":{"message":{"source":{"kind":"tool","callId":"a"},"content":[{"type":"tool-result","toolCallId":"b","content":[]}],"role":"user","id":"r"}},"surfaceOp":"append"})"});
  EXPECT_NE(st.message().find("toolCallId does not match"), std::string::npos) << st.message();
}

TEST_F(SessionCheckerTest, FailedCheckLeavesStateUnchanged) {
  ASSERT_TRUE(Feed({R"({"type":"turn/start","seq":0,"time":1,"data":{"turn":1}})"}).ok());
  EXPECT_FALSE(Feed({R"({"type":"bogus","seq":1,"time":1,"data":{}})"}).ok());
  EXPECT_EQ(checker_.next_seq(), 1);
}

}  // namespace
}  // namespace retrace::log
