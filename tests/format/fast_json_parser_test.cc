// FastJsonParser gives the same values and verdicts as json::Parse.
#include "format/fast_json_parser.h"

#include <gtest/gtest.h>

#include "engine/json/parser.h"
#include "engine/json/writer.h"
#include "tests/test_util.h"

namespace retrace::format {
namespace {

void ExpectSameAsReference(FastJsonParser& fast, const std::string& text) {
  auto a = fast.Parse(text);
  auto b = json::Parse(text);
  ASSERT_EQ(a.ok(), b.ok()) << text;
  if (a.ok()) {
    EXPECT_EQ(json::Serialize(*a), json::Serialize(*b)) << text;
  } else {
    EXPECT_EQ(a.status().message(), b.status().message());
  }
}

TEST(FastJsonParserTest, MatchesTheReferenceParserOnEveryFixtureLine) {
  FastJsonParser fast;
  for (const auto& name : retrace::testing::RawFixtures())
    for (const auto& line : retrace::testing::Lines(retrace::testing::ReadFile(retrace::testing::FixturePath(name))))
      ExpectSameAsReference(fast, line);
}

TEST(FastJsonParserTest, MatchesTheReferenceParserOnEdgeCases) {
  FastJsonParser fast;
  for (const char* text :
       {R"({"b":1,"2":2,"a":3,"1":4,"b":5})", R"(["\ud800","\udfff x","\ud83d\ude00"])", "12345678901234567890123",
        "1e400", "-1e-400", "0.1", "[1.5e300,-0,5e-324]", R"({"a":{"a":{"a":[]}}})", "NaN", "[1,]", "\"\xff\"",
        "\"a\tb\"", "", "{} x", R"("\u0000\u001f")", "18446744073709551616", "-9223372036854775809"})
    ExpectSameAsReference(fast, text);
  std::string deep(5000, '[');
  deep += std::string(5000, ']');
  ExpectSameAsReference(fast, deep);  // deeper than simdjson's limit: falls back
}

}  // namespace
}  // namespace retrace::format
