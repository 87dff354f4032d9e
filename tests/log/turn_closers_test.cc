#include "engine/log/turn_closers.h"

#include <gtest/gtest.h>

#include "tests/log/log_test_util.h"

namespace retrace::log {
namespace {

TEST(TurnClosersTest, BalancedAndEmptyLogsGetNone) {
  EXPECT_TRUE(InterruptedTurnClosers({}).empty());
  std::vector<Event> events;
  for (const auto& l : testing::SmallSessionLines()) events.push_back(testing::Ev(l));
  EXPECT_TRUE(InterruptedTurnClosers(events).empty());
}

TEST(TurnClosersTest, CrashedFixtureGetsDshClosersByteExact) {
  // The crashed s2 log ends with tool/call seq 33 (bash recorded, read not).
  auto events = testing::PlainFixtureEvents("s2-interrupted-tool.crashed.jsonl");
  ASSERT_EQ(events.back().seq, 33);
  const auto closers = InterruptedTurnClosers(events);
  ASSERT_EQ(closers.size(), 4u);
  const auto expected = retrace::testing::Lines(retrace::testing::ReadFile(
      retrace::testing::FixturePath("s2-interrupted-tool.repaired-resumed.jsonl")));
  // Lines 26..29 of the repaired fixture (1-based) are seqs 34..37.
  for (size_t i = 0; i < closers.size(); ++i)
    EXPECT_EQ(SerializeEvent(closers[i], EnvelopeOrder::kRepairCloser), expected[25 + i]) << i;
}

TEST(TurnClosersTest, OpenTurnWithoutStepGetsOnlyTurnEnd) {
  auto closers = InterruptedTurnClosers(std::vector<Event>{testing::Ev(R"({"type":"turn/start","seq":0,"time":7,"data":{"turn":3}})")});
  ASSERT_EQ(closers.size(), 1u);
  EXPECT_EQ(SerializeEvent(closers[0], EnvelopeOrder::kRepairCloser),
            R"({"type":"turn/end","seq":1,"time":7,"data":{"turn":3,"reason":{"kind":"interrupted"}}})");
}

}  // namespace
}  // namespace retrace::log
