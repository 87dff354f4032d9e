// Every line of every fixture re-serializes to identical bytes.
#include <gtest/gtest.h>

#include "engine/json/parser.h"
#include "engine/json/writer.h"
#include "tests/test_util.h"

namespace retrace::json {
namespace {

class FixtureRoundTripTest : public ::testing::TestWithParam<std::string> {};

TEST_P(FixtureRoundTripTest, EveryCompleteLineReserializesIdentically) {
  const std::string text = testing::ReadFile(testing::FixturePath(GetParam()));
  ASSERT_FALSE(text.empty());
  auto lines = testing::Lines(text);
  if (text.back() != '\n') lines.pop_back();  // a torn final line is not JSON
  size_t checked = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    auto v = Parse(lines[i]);
    ASSERT_TRUE(v.ok()) << GetParam() << ":" << i + 1 << ": " << v.status().message();
    ASSERT_EQ(Serialize(*v), lines[i]) << GetParam() << ":" << i + 1;
    ++checked;
  }
  EXPECT_GT(checked, 20u);
}

INSTANTIATE_TEST_SUITE_P(AllRawFixtures, FixtureRoundTripTest, ::testing::ValuesIn(testing::RawFixtures()),
                         [](const auto& test_param) {
                           std::string n = test_param.param;
                           for (char& c : n)
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

}  // namespace
}  // namespace retrace::json
