// FastJsonParser gives the same values and verdicts as json::Parse.
#include "format/fast_json_parser.h"

#include <gtest/gtest.h>

#include "engine/json/parser.h"
#include "engine/json/writer.h"
#include "engine/log/event_types.h"
#include "format/chunk_rows.h"
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

// ParseLine's shortcut (an event or a row read straight from the parse) must
// give what the general road gives: log::EventFromJson of the parsed value
// (its data null when `need` refuses the type), or ParsePackedRow's row; and
// it must take the general road whenever that road refuses the line, so that
// its messages are the ones a user sees.
void ExpectLineAsGeneralRoad(FastJsonParser& fast, const std::string& text,
                             const std::function<bool(std::string_view)>* need) {
  auto line = fast.ParseLine(text, need);
  auto value = fast.Parse(text);
  ASSERT_EQ(line.ok(), value.ok()) << text;
  if (!line.ok()) return;
  const json::Value* type = value->Find("type");
  const bool typed = type && type->is_string();
  const bool needed = need == nullptr || !typed || (*need)(type->as_string());
  if (line->packed) {
    auto row = ParsePackedRow(*value);  // (blanking strings changes no verdict of its)
    ASSERT_TRUE(row.ok()) << text;
    EXPECT_EQ(line->packed->tag, row->tag);
    EXPECT_EQ(line->packed->seq0, row->seq0);
    EXPECT_EQ(line->packed->time0, row->time0);
    EXPECT_EQ(line->packed->count, row->count);
    EXPECT_EQ(line->packed->times, row->times);
    EXPECT_EQ(json::Serialize(line->packed->turn), json::Serialize(row->turn));
    EXPECT_EQ(json::Serialize(line->packed->step), json::Serialize(row->step));
    return;
  }
  if (!line->event) {
    if (needed) {
      EXPECT_EQ(json::Serialize(line->value), json::Serialize(*value)) << text;
    } else {  // the envelope as it is; the data not copied
      for (const auto& [key, member] : value->as_object()) {
        const json::Value* got = line->value.Find(key);
        ASSERT_NE(got, nullptr) << key << " in " << text;
        if (key != "data") {
          EXPECT_EQ(json::Serialize(*got), json::Serialize(member)) << text;
        }
      }
    }
    return;
  }
  ASSERT_FALSE(typed && IsChunkRowTag(type->as_string())) << text;
  auto event = log::EventFromJson(*value);
  ASSERT_TRUE(event.ok()) << text << ": " << event.status().message();
  EXPECT_EQ(line->event->type, event->type);
  EXPECT_EQ(line->event->seq, event->seq);
  EXPECT_EQ(line->event->time, event->time);
  EXPECT_EQ(json::Serialize(line->event->data), needed ? json::Serialize(event->data) : "null") << text;
  EXPECT_EQ(line->event->source_event_seqs, event->source_event_seqs);
  EXPECT_EQ(line->event->surface_op, event->surface_op);
  EXPECT_EQ(line->event->ignorable, event->ignorable);
}

// ParseEvent gives what log::EventFromJson makes of the parsed text, error
// messages included.
void ExpectEventAsGeneralRoad(FastJsonParser& fast, const std::string& text) {
  auto quick = fast.ParseEvent(text);
  auto parsed = json::Parse(text);
  auto general = parsed.ok() ? log::EventFromJson(*parsed) : Result<log::Event>(parsed.status());
  ASSERT_EQ(quick.ok(), general.ok()) << text;
  if (!quick.ok()) {
    EXPECT_EQ(quick.status().message(), general.status().message()) << text;
    return;
  }
  EXPECT_EQ(quick->type, general->type);
  EXPECT_EQ(quick->seq, general->seq);
  EXPECT_EQ(quick->time, general->time);
  EXPECT_EQ(json::Serialize(quick->data), json::Serialize(general->data)) << text;
  EXPECT_EQ(quick->source_event_seqs, general->source_event_seqs);
  EXPECT_EQ(quick->surface_op, general->surface_op);
}

TEST(FastJsonParserTest, AFixtureLineReadStraightIsWhatTheGeneralRoadReads) {
  FastJsonParser fast;
  const std::function<bool(std::string_view)> only_calls = [](std::string_view t) { return t == log::kToolCall; };
  size_t lines = 0;
  for (const auto& name : retrace::testing::RawFixtures()) {
    for (const auto& line : retrace::testing::Lines(retrace::testing::ReadFile(retrace::testing::FixturePath(name)))) {
      ExpectLineAsGeneralRoad(fast, line, nullptr);
      ExpectLineAsGeneralRoad(fast, line, &only_calls);
      ExpectEventAsGeneralRoad(fast, line);
      ++lines;
    }
  }
  EXPECT_GT(lines, 100u);
}

TEST(FastJsonParserTest, AnUnusualEnvelopeOrRowTakesTheGeneralRoad) {
  FastJsonParser fast;
  const std::function<bool(std::string_view)> refuse_all = [](std::string_view) { return false; };
  struct Case {
    const char* text;
    bool straight;  // read without the general road
  };
  for (const Case& c : std::initializer_list<Case>{
           {R"({"type":"turn/start","seq":3,"time":9,"data":{"turn":1}})", true},
           {R"({"type":"tool/result","seq":3,"time":-9,"data":{},"sourceEventSeqs":[1,2],"surfaceOp":"append","ignorable":true})", true},
           {R"({"type":"turn/start","seq":3,"time":9,"data":{},"seq":4})", false},        // a repeated key
           {R"({"type":"turn/start","seq":3,"time":9,"data":{},"extra":1})", false},      // an unknown key
           {R"({"type":"turn/start","seq":3.0,"time":9,"data":{}})", false},               // an integer as a double
           {R"({"type":"turn/start","seq":-1,"time":9,"data":{}})", false},
           {R"({"type":"turn/start","seq":9007199254740992,"time":9,"data":{}})", false},  // beyond safe integers
           {R"({"type":"turn/start","seq":3,"data":{}})", false},                          // no time
           {R"({"type":"turn/start","seq":3,"time":9})", false},                           // no data
           {R"({"type":7,"seq":3,"time":9,"data":{}})", false},
           {R"({"type":"x","seq":3,"time":9,"data":{},"ignorable":false})", false},
           {R"({"type":"x","seq":3,"time":9,"data":{},"surfaceOp":{"op":"replace","start":1,"end":2}})", false},
           {R"({"type":"x","seq":3,"time":9,"data":{},"sourceEventSeqs":[1,-2]})", false},
           {R"({"type":"text-chunks","seq":3,"time":9,"data":{}})", false},                // a row tag on an event
           {R"({"type":"text-chunks","seq0":3,"time0":9,"data":{"turn":1,"step":1,"index":0,"dt":[2],"texts":["a","b"]}})", true},
           {R"({"type":"tool-call-chunks","seq0":3,"time0":9,"data":{"turn":1,"step":1,"index":0,"id":"c","name":"n","dt":[1,1],"args":["a","b","c"]}})", true},
           {R"({"type":"text-chunks","seq0":3,"time0":9,"data":{"turn":1,"step":1,"index":0,"dt":[2.0],"texts":["a","b"]}})", false},
           {R"({"type":"text-chunks","seq0":3,"time0":9,"data":{"turn":1,"step":1,"index":0,"dt":[],"texts":["a","b"]}})", false},
           {R"({"type":"text-chunks","seq0":3,"time0":9,"data":{"turn":1,"step":1,"index":0,"dt":[1],"texts":["a",2]}})", false},
           {R"({"type":"text-chunks","seq0":3,"time0":9,"data":{"turn":1,"step":1,"index":0,"index":0,"dt":[1],"texts":["a","b"]}})", false},
           {R"({"type":"tool-call-chunks","seq0":3,"time0":9,"data":{"turn":1,"step":1,"index":0,"id":4,"dt":[1],"args":["a","b"]}})", false},
           {R"({"type":"text-chunks","seq0":9007199254740991,"time0":9,"data":{"turn":1,"step":1,"index":0,"dt":[1],"texts":["a","b"]}})", false},
           {R"([1,2])", false},
           {R"({"type":"x","seq":3,"time":9,"data":"\ud800"})", false},  // simdjson refuses a lone surrogate
       }) {
    auto line = fast.ParseLine(c.text, nullptr);
    ASSERT_TRUE(line.ok()) << c.text;
    EXPECT_EQ(line->event.has_value() || line->packed.has_value(), c.straight) << c.text;
    ExpectLineAsGeneralRoad(fast, c.text, nullptr);
    ExpectLineAsGeneralRoad(fast, c.text, &refuse_all);
    ExpectEventAsGeneralRoad(fast, c.text);
  }
  EXPECT_FALSE(fast.ParseLine("{\"type\":", nullptr).ok());
}

}  // namespace
}  // namespace retrace::format
