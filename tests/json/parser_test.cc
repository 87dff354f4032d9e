#include "engine/json/parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <thread>
#include <utility>

#include "engine/json/lossless.h"
#include "engine/json/writer.h"

namespace retrace::json {
namespace {

std::string RoundTrip(std::string_view text) {
  auto v = Parse(text);
  EXPECT_TRUE(v.ok()) << v.status().message();
  return v.ok() ? Serialize(*v) : "";
}

std::string ErrorOf(std::string_view text) {
  auto v = Parse(text);
  EXPECT_FALSE(v.ok()) << "accepted: " << text;
  return v.ok() ? "" : v.status().message();
}

TEST(JsonParserTest, KeepsObjectKeyOrder) { EXPECT_EQ(RoundTrip(R"({"z":1,"a":2,"m":3})"), R"({"z":1,"a":2,"m":3})"); }

TEST(JsonParserTest, HoistsArrayIndexKeysLikeJavaScript) {
  // Observed in Node: JSON.stringify(JSON.parse('{"b":1,"2":2,"a":3,"1":4,"b":5}')).
  EXPECT_EQ(RoundTrip(R"({"b":1,"2":2,"a":3,"1":4,"b":5})"), R"({"1":4,"2":2,"b":5,"a":3})");
}

TEST(JsonParserTest, DuplicateKeyKeepsFirstPositionLastValue) {
  EXPECT_EQ(RoundTrip(R"({"a":1,"b":2,"a":3})"), R"({"a":3,"b":2})");
}

// Builds `members` with Set() one by one: the definition of JS object order.
Value BySet(const Value::Object& members) {
  Value v = Value::MakeObject();
  for (const auto& [k, x] : members) v.Set(k, x);
  return v;
}

TEST(JsonValueTest, LargeObjectsGetJsOrderAndDuplicateRulesInOnePass) {
  // Past the small-object limit MakeObject checks keys with a hash set; the
  // result must still be exactly what Set() in order gives.
  for (size_t n : {size_t{3}, size_t{16}, size_t{17}, size_t{500}, size_t{5000}}) {
    Value::Object members;
    for (size_t i = 0; i < n; ++i) {
      std::string key;
      switch (i % 5) {
        case 0: key = "k" + std::to_string(i); break;
        case 1: key = std::to_string((i * 7919) % (n + 3)); break;  // index keys, out of order
        case 2: key = "k" + std::to_string(i / 3); break;           // repeats an earlier key
        case 3: key = "0" + std::to_string(i); break;               // not canonical: ordinary
        default: key = std::to_string(i % 4); break;                 // small indexes, repeated
      }
      members.emplace_back(key, Value(static_cast<double>(i)));
    }
    EXPECT_EQ(Serialize(Value::MakeObject(members)), Serialize(BySet(members))) << n << " members";
  }
  Value::Object plain;
  for (int i = 0; i < 1000; ++i) plain.emplace_back("key" + std::to_string(i), Value(i));
  EXPECT_EQ(Serialize(Value::MakeObject(plain)), Serialize(BySet(plain)));
}

TEST(JsonValueTest, ALargeObjectOfOrdinaryKeysWithOneRepeatKeepsFirstPositionLastValue) {
  // No index key anywhere: only the duplicate check itself can send the
  // members through the JS-order pass. Past 16 members it is the hash set's.
  for (size_t n : {size_t{5}, size_t{16}, size_t{17}, size_t{100}}) {
    SCOPED_TRACE(std::to_string(n) + " members");
    Value::Object members;
    for (size_t i = 0; i + 1 < n; ++i) members.emplace_back("k" + std::to_string(i), Value(static_cast<double>(i)));
    members.emplace_back("k0", Value(-1.0));  // the first key again, last
    const Value v = Value::MakeObject(members);
    ASSERT_EQ(v.as_object().size(), n - 1);
    EXPECT_EQ(v.as_object().front().first, "k0");
    EXPECT_EQ(v.Find("k0")->as_number(), -1.0);
    EXPECT_EQ(Serialize(v), Serialize(BySet(members)));
    std::string text = "{";
    for (const auto& [k, x] : members) text += (text.size() > 1 ? ",\"" : "\"") + k + "\":" + Serialize(x);
    EXPECT_EQ(RoundTrip(text + "}"), Serialize(BySet(members)));
  }
}

TEST(JsonLosslessTest, OnlyFiniteNumbersOtherThanMinusZeroAreLossless) {
  EXPECT_TRUE(IsLosslessNumber(0.0));
  EXPECT_TRUE(IsLosslessNumber(-1.5));
  EXPECT_TRUE(IsLosslessNumber(1e308));
  EXPECT_TRUE(IsLosslessNumber(5e-324));
  EXPECT_FALSE(IsLosslessNumber(-0.0));
  EXPECT_FALSE(IsLosslessNumber(std::nan("")));
  EXPECT_FALSE(IsLosslessNumber(HUGE_VAL));
  EXPECT_FALSE(IsLosslessNumber(-HUGE_VAL));
}

TEST(JsonLosslessTest, ANonLosslessNumberAnywhereMakesTheValueLossy) {
  auto parsed = Parse(R"({"a":[1,{"b":[2,3]}],"c":"-0"})");
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(IsLossless(*parsed));  // "-0" is a string
  for (double bad : {-0.0, std::nan(""), HUGE_VAL}) {
    Value deep = *parsed;
    Value inner = Value::MakeObject({{"b", Value(Value::Array{Value(2.0), Value(bad)})}});
    deep.Set("a", Value(Value::Array{Value(1.0), inner}));
    EXPECT_FALSE(IsLossless(deep)) << bad;
    EXPECT_FALSE(IsLossless(Value(bad)));
  }
  EXPECT_TRUE(IsLossless(Value(Value::Array{})));
}

TEST(JsonParserTest, ObjectWithFortyThousandKeysKeepsEveryRule) {
  // Once quadratic in its keys (10 s for this line); bench/parse_bench times it.
  std::string text = "{";
  for (int i = 0; i < 40000; ++i) text += (i ? ",\"" : "\"") + std::string(i % 2 ? "k" : "") + std::to_string(i % 30000) + "\":" + std::to_string(i);
  text += "}";
  Result<Value> v = Parse(text);
  ASSERT_TRUE(v.ok()) << v.status().message();
  ASSERT_EQ(v->as_object().size(), 30000u);  // keys 30000.. repeat earlier ones
  EXPECT_EQ(v->as_object().front().first, "0");
  EXPECT_EQ(v->Find("20000")->as_number(), 20000);
  EXPECT_EQ(v->Find("k1")->as_number(), 30001);  // the last value of a repeated key
}

TEST(JsonParserTest, NonCanonicalIndexKeysAreOrdinary) {
  EXPECT_EQ(RoundTrip(R"({"b":1,"01":2,"4294967295":3,"-1":4})"), R"({"b":1,"01":2,"4294967295":3,"-1":4})");
}

TEST(JsonParserTest, KeepsLoneSurrogatesAndWritesThemEscaped) {
  EXPECT_EQ(RoundTrip(R"(["\ud800","x\udfffy","\ud83d\ude00","\uDBFF"])"), "[\"\\ud800\",\"x\\udfffy\",\"😀\",\"\\udbff\"]");
}

TEST(JsonParserTest, HighSurrogateFollowedByNonLowEscapeStaysLone) {
  EXPECT_EQ(RoundTrip(R"("\ud800\u0041")"), R"("\ud800A")");
}

TEST(JsonParserTest, NormalizesOptionalEscapes) {
  EXPECT_EQ(RoundTrip(R"("\/\u0041\u00e9\u2028")"), "\"/Aé\u2028\"");
}

TEST(JsonParserTest, ParsesNumbersAsDoubles) {
  EXPECT_EQ(RoundTrip("[0,-0,1.50,1e2,1E-2,12345678901234567890,-0.0,2.5e-400]"),
            "[0,0,1.5,100,0.01,12345678901234567000,0,0]");
}

TEST(JsonParserTest, NegativeZeroIsKeptDistinct) {
  auto v = Parse("-0");
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(std::signbit(v->as_number()));
}

TEST(JsonParserTest, RefusesNumbersBeyondDoubleRange) { EXPECT_NE(ErrorOf("1e400").find("out of range"), std::string::npos); }

TEST(JsonParserTest, RefusesNonJsonLiterals) {
  for (const char* bad : {"NaN", "Infinity", "-Infinity", "undefined", "01", "1.", ".5", "+1", "1e", "tru", "nul"})
    ErrorOf(bad);
}

TEST(JsonParserTest, RefusesStructuralErrors) {
  for (const char* bad : {"", "  ", "{", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "[1 2]", "\"abc", "[1]x",
                          "{\"a\":1}}", "'a'", "[\"\\x\"]", "[\"\\u12\"]", "[\"a\tb\"]"})
    ErrorOf(bad);
}

TEST(JsonParserTest, ErrorNamesTheByteOffset) {
  EXPECT_EQ(ErrorOf(R"({"a":1,})"), "invalid JSON at byte 7: expected a string key");
}

TEST(JsonParserTest, RefusesInvalidUtf8) {
  for (std::string bad : {std::string("\"\xff\""), std::string("\"\xc0\x80\""), std::string("\"\xed\xa0\x80\""),
                          std::string("\"\xe2\x82\""), std::string("\"\xf4\x90\x80\x80\"")})
    EXPECT_NE(ErrorOf(bad).find("invalid UTF-8"), std::string::npos) << bad;
}

TEST(JsonParserTest, DeepNestingDoesNotOverflowTheStack) {
  constexpr int kDepth = 200000;
  std::string text(kDepth, '[');
  text += std::string(kDepth, ']');
  auto v = Parse(text);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(Serialize(*v), text);
  std::string objects;
  for (int i = 0; i < kDepth; ++i) objects += "{\"a\":";
  objects += "1" + std::string(kDepth, '}');
  auto o = Parse(objects);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(Serialize(*o), objects);
}

TEST(JsonValueTest, DeepValuesCopyCompareAndDestroyWithoutRecursion) {
  constexpr int kDepth = 300000;
  std::string text;
  for (int i = 0; i < kDepth; ++i) text += "{\"a\":[";
  text += "1";
  for (int i = 0; i < kDepth; ++i) text += "]}";
  auto v = Parse(text);
  ASSERT_TRUE(v.ok());
  Value copy = *v;
  EXPECT_TRUE(copy == *v);
  Value other = copy;
  other = Value(2);
  EXPECT_FALSE(other == *v);
  EXPECT_EQ(Serialize(copy), text);

  // A copy changed at its deepest level leaves the original alone; both then
  // go away (the copy first, then the original) without recursion.
  Value changed = *v;
  Value* at = &changed;
  for (int i = 0; i < kDepth; ++i) at = &at->Find("a")->as_array()[0];
  *at = Value(2);
  EXPECT_FALSE(changed == *v);
  EXPECT_EQ(Serialize(*v), text);
  changed = Value();
  v = Value();
}

TEST(JsonValueTest, AValueAssignedOneOfItsOwnDescendantsKeepsIt) {
  Value v = Parse(R"({"keep":{"deep":[{"text":"kept"},"also"]},"drop":[1,2]})").value();
  v = std::move(*v.Find("keep"));  // the old value goes only after the new one is in place
  EXPECT_EQ(Serialize(v), R"({"deep":[{"text":"kept"},"also"]})");
  v = std::move(v.Find("deep")->as_array()[1]);  // a string, not a container
  EXPECT_EQ(Serialize(v), R"("also")");
}

// A kept text stands for its container in the writer's output, as it is (its
// promise, that it is what the writer would write, is the parse's to keep:
// tests/format/fast_json_parser_test.cc), until the container may change.
TEST(JsonValueTest, AKeptTextIsWrittenForItsContainerUntilAMutableAccess) {
  auto text = std::make_shared<const std::string>("{\"a\": [1 ]}");
  Value v = Parse(R"({"in":{"a":[1]},"other":[2]})").value();
  Value inner = *std::as_const(v).Find("in");  // shares the box with v's member
  inner.KeepText({text, *text});
  EXPECT_EQ(Serialize(v), R"({"in":{"a": [1 ]},"other":[2]})");
  Value copy = v;
  v.Find("in")->Set("b", true);  // v's own object now, and its own "in"
  EXPECT_EQ(Serialize(v), R"({"in":{"a":[1],"b":true},"other":[2]})");
  EXPECT_EQ(Serialize(copy), R"({"in":{"a": [1 ]},"other":[2]})");  // the copy still holds the kept one
  copy.Find("in")->as_object();  // a mutable access of the kept container itself
  EXPECT_EQ(Serialize(copy), R"({"in":{"a":[1]},"other":[2]})");
  Value empty{Value::Array{}};
  empty.KeepText({text, *text});  // an empty container keeps nothing
  EXPECT_EQ(Serialize(empty), "[]");
}

// An array known by its kept text: the text as json::AppendSerialized
// writes `items`.
Value Unbuilt(const std::string& text) {
  auto buffer = std::make_shared<const std::string>(text);
  return Value::UnbuiltArray({buffer, *buffer});
}

TEST(JsonValueTest, AnUnbuiltArrayIsWrittenFromItsTextAndBuiltWhenRead) {
  const std::string text = R"([{"number":1,"text":"a"},{"number":2,"text":"b \"q\""},[3,"x"],null])";
  const Value lines = Unbuilt(text);
  ASSERT_TRUE(lines.is_array());
  EXPECT_EQ(lines.kept_text(), text);
  EXPECT_EQ(Serialize(lines), text);  // written again as it was
  ASSERT_EQ(lines.as_array().size(), 4u);  // the first read builds the items
  EXPECT_EQ(lines, Parse(text).value());
  EXPECT_EQ(lines.as_array()[1].Find("text")->as_string(), "b \"q\"");
  EXPECT_EQ(lines.kept_text(), text) << "a read keeps the text";
}

TEST(JsonValueTest, AChangedUnbuiltArrayIsBuiltFirstAndItsCopiesKeepTheOriginal) {
  const std::string text = R"([1,2,{"a":[3]}])";
  Value v = Unbuilt(text);
  const Value copy = v;  // shares the unbuilt box
  v.as_array().push_back(Value(4));
  EXPECT_EQ(Serialize(v), R"([1,2,{"a":[3]},4])");
  EXPECT_TRUE(v.kept_text().empty());
  EXPECT_EQ(Serialize(copy), text);
  EXPECT_EQ(copy.as_array().size(), 3u);

  Value alone = Unbuilt(text);  // not shared: changed in place once built
  alone.as_array()[2].Set("b", true);
  EXPECT_EQ(Serialize(alone), R"([1,2,{"a":[3],"b":true}])");
}

TEST(JsonValueTest, AnUnbuiltArrayReadOnSeveralThreadsAtOnceIsBuiltOnce) {
  std::string text = "[";
  for (int i = 0; i < 2000; ++i) text += (i ? "," : "") + std::string(R"({"number":)") + std::to_string(i) + R"(,"text":"line"})";
  text += "]";
  const Value expected = Parse(text).value();
  for (int round = 0; round < 20; ++round) {
    const Value lines = Unbuilt(text);
    const Value::Array* seen[2] = {nullptr, nullptr};
    auto read = [&](int id) {
      seen[id] = &lines.as_array();
      EXPECT_EQ(lines, expected);
    };
    std::thread a(read, 0), b(read, 1);
    a.join();
    b.join();
    EXPECT_EQ(seen[0], seen[1]) << "both threads read the one built array";
  }
}

TEST(JsonValueTest, SharedContainersMayBeCopiedChangedAndDroppedOnSeveralThreads) {
  const Value shared = Parse(R"({"lines":[{"n":1,"text":"a"},{"n":2,"text":"b"}],"path":"p"})").value();
  auto work = [&shared](int id) {
    for (int i = 0; i < 20000; ++i) {
      Value copy = shared;  // shares, on every thread at once
      copy.Find("lines")->as_array()[i % 2].Set("text", std::to_string(id));
      Value again = copy;
      again.Set("path", "q");
      ASSERT_EQ(copy.Find("lines")->as_array()[i % 2].Find("text")->as_string(), std::to_string(id));
    }
  };
  std::thread a(work, 1), b(work, 2);
  a.join();
  b.join();
  EXPECT_EQ(Serialize(shared), R"({"lines":[{"n":1,"text":"a"},{"n":2,"text":"b"}],"path":"p"})");
}

TEST(JsonValueTest, CopiesShareContainersUntilOneIsChanged) {
  Value original = Parse(R"({"lines":[{"n":1,"text":"a"},{"n":2,"text":"b"}],"path":"p"})").value();
  Value copy = original;
  EXPECT_EQ(&std::as_const(copy).as_object(), &std::as_const(original).as_object()) << "a copy shares the object";

  copy.Set("path", "q");
  copy.Find("lines")->as_array()[0].Set("text", "changed");
  Value::Array& lines = copy.Find("lines")->as_array();
  lines.insert(lines.end(), Value("three"));
  EXPECT_EQ(Serialize(original), R"({"lines":[{"n":1,"text":"a"},{"n":2,"text":"b"}],"path":"p"})");
  EXPECT_EQ(Serialize(copy), R"({"lines":[{"n":1,"text":"changed"},{"n":2,"text":"b"},"three"],"path":"q"})");
  // The untouched line is still shared by both.
  EXPECT_EQ(&std::as_const(copy).Find("lines")->as_array()[1].as_object(),
            &std::as_const(original).Find("lines")->as_array()[1].as_object());

  // A moved-from or default container is empty and usable.
  Value moved = std::move(copy);
  Value empty_array = Value(Value::Array{});
  empty_array.as_array().push_back(1);
  EXPECT_EQ(Serialize(empty_array), "[1]");
  EXPECT_EQ(Serialize(Value::MakeObject()), "{}");
  EXPECT_TRUE(Value(Value::Array{}) == Value(Value::Array{}));
  EXPECT_FALSE(Value(Value::Array{}) == Value::MakeObject());
}

}  // namespace
}  // namespace retrace::json
