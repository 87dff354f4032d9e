#include "engine/log/in_memory_event_log.h"

#include <gtest/gtest.h>

#include "tests/log/log_test_util.h"

namespace retrace::log {
namespace {

SessionHeader Header() {
  SessionHeader h;
  h.id = "s";
  h.created_at = 1;
  return h;
}

class InMemoryEventLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(log_.CreateSession(Header()).ok());
    for (const auto& l : testing::SmallSessionLines()) records_.push_back(testing::Rec(l));
  }
  std::span<const EventRecord> Batch(size_t from, size_t n) { return std::span(records_).subspan(from, n); }
  InMemoryEventLog log_;
  std::vector<EventRecord> records_;
};

TEST_F(InMemoryEventLogTest, AppendsBatchesAndReadsThemBack) {
  ASSERT_EQ(*log_.Append("s", 0, Batch(0, 3)), AppendOutcome::kAppended);
  ASSERT_EQ(*log_.Append("s", 3, Batch(3, 5)), AppendOutcome::kAppended);
  auto events = log_.Read("s", 2);
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 6u);
  EXPECT_EQ((*events)[0].text, records_[2].text);
  EXPECT_EQ(*log_.NextSeq("s"), 8);
}

TEST_F(InMemoryEventLogTest, IdenticalResendIsAlreadyAppended) {
  ASSERT_TRUE(log_.Append("s", 0, Batch(0, 3)).ok());
  EXPECT_EQ(*log_.Append("s", 0, Batch(0, 3)), AppendOutcome::kAlreadyAppended);
  EXPECT_EQ(*log_.NextSeq("s"), 3);
}

TEST_F(InMemoryEventLogTest, DifferentBatchAtTakenSeqIsAConflict) {
  ASSERT_TRUE(log_.Append("s", 0, Batch(0, 3)).ok());
  EventRecord other = testing::Rec(R"({"type":"turn/start","seq":0,"time":99,"data":{"turn":1}})");
  auto r = log_.Append("s", 0, std::span(&other, 1));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kConflict);
}

TEST_F(InMemoryEventLogTest, GapIsRefused) {
  auto r = log_.Append("s", 3, Batch(3, 1));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("append gap"), std::string::npos);
}

TEST_F(InMemoryEventLogTest, InvalidEventRefusesTheWholeBatch) {
  std::vector<EventRecord> batch = {records_[0], testing::Rec(R"({"type":"nope","seq":1,"time":1,"data":{}})")};
  EXPECT_FALSE(log_.Append("s", 0, batch).ok());
  EXPECT_EQ(*log_.NextSeq("s"), 0);
}

TEST_F(InMemoryEventLogTest, UnknownSessionIsNotFound) {
  EXPECT_EQ(log_.NextSeq("zz").status().code(), Status::Code::kNotFound);
  EXPECT_EQ(log_.CreateSession(Header()).code(), Status::Code::kAlreadyExists);
}

}  // namespace
}  // namespace retrace::log
