#include "engine/json/parser.h"
#include "engine/json/writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace retrace::json {
namespace {

// Expected strings were printed by Node 22's JSON.stringify.
TEST(JsonWriterTest, NumbersMatchJavaScript) {
  const std::pair<double, const char*> cases[] = {
      {0, "0"},
      {-0.0, "0"},
      {1, "1"},
      {-1, "-1"},
      {0.1, "0.1"},
      {1e21, "1e+21"},
      {1e20, "100000000000000000000"},
      {123e-7, "0.0000123"},
      {1e-7, "1e-7"},
      {1.5e-7, "1.5e-7"},
      {5e-324, "5e-324"},
      {1.7976931348623157e308, "1.7976931348623157e+308"},
      {0.000001, "0.000001"},
      {123456789012345680000.0, "123456789012345680000"},
      {9007199254740992.0, "9007199254740992"},
      {1.1, "1.1"},
      {1e15, "1000000000000000"},
      {1234500000000000.0, "1234500000000000"},
      {-1.5e-10, "-1.5e-10"},
      {9223372036854775808.0, "9223372036854776000"},
      {0.1 + 0.2, "0.30000000000000004"},
      {1e16, "10000000000000000"},
      {123.456, "123.456"},
      {-0.0000001234, "-1.234e-7"},
      {1796003747260.0, "1796003747260"},
  };
  for (const auto& [d, want] : cases) EXPECT_EQ(FormatNumber(d), want) << d;
}

TEST(JsonWriterTest, StringsEscapeOnlyWhatJsonStringifyEscapes) {
  std::string s = "\"\\/\b\f\n\r\t";
  s += '\x01';
  s += '\x1f';
  s += "\x7f\u2028\u2029é😀";
  std::string out;
  AppendQuoted(out, s);
  EXPECT_EQ(out, "\"\\\"\\\\/\\b\\f\\n\\r\\t\\u0001\\u001f\x7f\u2028\u2029é😀\"");
}

TEST(JsonWriterTest, EscapesAnywhereInALongPlainRun) {
  // Plain text is scanned sixteen bytes, then eight, at a time: put each
  // special byte at every offset of the first blocks, before tails of every
  // length around a block, twice in one string, and check it is still escaped.
  const std::vector<std::pair<std::string, std::string>> specials = {
      {"\"", "\\\""}, {"\\", "\\\\"}, {"\n", "\\n"}, {std::string(1, '\0'), "\\u0000"},
      {"\x1f", "\\u001f"}, {"\xC3\xA9", "\xC3\xA9"}, {"\xED\xA0\x80", "\\ud800"}, {"\xFF", "\xEF\xBF\xBD"}};
  for (const auto& [raw, escaped] : specials) {
    for (size_t at = 0; at < 40; ++at) {
      for (size_t tail : {0, 1, 7, 8, 9, 15, 16, 17, 23, 24, 33}) {
        const std::string s = std::string(at, 'a') + raw + std::string(tail, 'b') + raw + "c";
        std::string out;
        AppendQuoted(out, s);
        EXPECT_EQ(out, "\"" + std::string(at, 'a') + escaped + std::string(tail, 'b') + escaped + "c\"")
            << "at " << at << ", tail " << tail;
      }
    }
  }
}

TEST(JsonWriterTest, WritesObjectsArraysAndLiteralsCompactly) {
  Value v = Value::MakeObject({{"a", Value::Array{1, true, Value(), "x"}}, {"b", Value::MakeObject()}, {"c", Value::Array{}}});
  EXPECT_EQ(Serialize(v), R"({"a":[1,true,null,"x"],"b":{},"c":[]})");
}

TEST(JsonWriterTest, SetHoistsIndexKeys) {
  Value v = Value::MakeObject();
  v.Set("b", 1);
  v.Set("10", 2);
  v.Set("a", 3);
  v.Set("2", 4);
  EXPECT_EQ(Serialize(v), R"({"2":4,"10":2,"b":1,"a":3})");
}

TEST(JsonWriterTest, BytesThatAreNotUtf8BecomeReplacementCharactersAndReadBack) {
  // Lone 0xFF, a truncated 3-byte sequence, an overlong '/', a truncated surrogate lead.
  const std::string raw = std::string("a\xff") + "\xe2\x82" + "\xc0\xaf" + "\xed\xa0";
  const std::string text = Serialize(Value(raw));
  std::string want = "\"a";
  for (int k = 0; k < 7; ++k) want += "\xEF\xBF\xBD";  // one U+FFFD per byte that is not part of UTF-8
  EXPECT_EQ(text, want + "\"");
  retrace::Result<Value> back = Parse(text);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(Serialize(*back), text);
  // A well-formed WTF-8 surrogate and ordinary UTF-8 are untouched.
  EXPECT_EQ(Serialize(Value(std::string("\xed\xa0\x80\xed\x9f\xbf"))), "\"\\ud800\xed\x9f\xbf\"");
}

}  // namespace
}  // namespace retrace::json
