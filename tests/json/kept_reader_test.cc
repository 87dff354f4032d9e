#include "engine/json/kept_reader.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/json/parser.h"
#include "engine/json/writer.h"

namespace retrace::json::kept {
namespace {

// Texts as json::AppendSerialized writes them: a kept text.
std::string Canonical(std::string_view text) { return Serialize(Parse(text).value()); }

TEST(KeptReaderTest, ValuesEndWhereTheirBracketsBalanceOutsideStrings) {
  const std::string text = Canonical(R"([{"a":"]}\"\\","b":[1,[2]]},-1.5e+30,"x\\",true,null])");
  std::vector<std::string> items;
  EXPECT_TRUE(ForEachItem(text, [&](std::string_view item, std::span<const Member>) {
    items.emplace_back(item);
    return true;
  }));
  EXPECT_EQ(items, (std::vector<std::string>{R"({"a":"]}\"\\","b":[1,[2]]})", "-1.5e+30", R"("x\\")", "true", "null"}));
  EXPECT_EQ(ValueAt(text, 1), items[0]);
  EXPECT_EQ(ValueAt(text, text.size()), "");
}

TEST(KeptReaderTest, StringsOfEveryLengthEndAtTheirClosingQuote) {
  // Lengths across the scan's 16- and 64-byte blocks, with escaped quotes
  // and backslashes at and around block edges.
  Value::Array items;
  for (size_t n = 0; n < 200; ++n) {
    std::string s(n, 'x');
    if (n > 0) s[n - 1] = '"';
    if (n > 17) s[16] = '\\';
    if (n > 64) s[63] = '"';
    items.emplace_back(s);
  }
  const std::string text = Serialize(Value(items));
  size_t i = 0;
  EXPECT_TRUE(ForEachItem(text, [&](std::string_view item, std::span<const Member>) {
    EXPECT_EQ(item, Serialize(items[i])) << i;
    return ++i <= items.size();
  }));
  EXPECT_EQ(i, items.size());
}

TEST(KeptReaderTest, ObjectItemsAreSplitIntoTheirMembersInOrder) {
  const std::string text = Canonical(R"([{"number":3,"text":"a,b}","nested":{"number":9}},{},7])");
  std::vector<std::vector<Member>> seen;
  EXPECT_TRUE(ForEachItem(text, [&](std::string_view, std::span<const Member> members) {
    seen.emplace_back(members.begin(), members.end());
    return true;
  }));
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0], (std::vector<Member>{{"number", "3"}, {"text", R"("a,b}")"}, {"nested", R"({"number":9})"}}));
  EXPECT_TRUE(seen[1].empty());
  EXPECT_TRUE(seen[2].empty()) << "not an object";
  EXPECT_EQ(Find(seen[0], "text"), R"("a,b}")");
  EXPECT_EQ(Find(seen[0], "absent"), "");
  EXPECT_EQ(KindOf(Find(seen[0], "absent")), Value::Kind::kNull);
}

TEST(KeptReaderTest, ItemsStopWhenTheCallerSaysSo) {
  int calls = 0;
  EXPECT_FALSE(ForEachItem("[1,2,3]", [&](std::string_view, std::span<const Member>) { return ++calls < 2; }));
  EXPECT_EQ(calls, 2);
  EXPECT_TRUE(ForEachItem("[]", [&](std::string_view, std::span<const Member>) { return false; }));
}

TEST(KeptReaderTest, KindsAndNumbersReadAsTheParserReadsThem) {
  EXPECT_EQ(KindOf("{}"), Value::Kind::kObject);
  EXPECT_EQ(KindOf("[]"), Value::Kind::kArray);
  EXPECT_EQ(KindOf(R"("s")"), Value::Kind::kString);
  EXPECT_EQ(KindOf("false"), Value::Kind::kBool);
  EXPECT_EQ(KindOf("null"), Value::Kind::kNull);
  EXPECT_EQ(KindOf("-3"), Value::Kind::kNumber);
  for (const char* n : {"0", "-7", "123456789012345", "1.5", "-0.25", "1e+21", "5e-324", "9007199254740993"}) {
    const std::string written = Canonical(n);
    EXPECT_EQ(NumberOf(written), Parse(written).value().as_number()) << n;
  }
}

}  // namespace
}  // namespace retrace::json::kept
