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

// Walks `fast` (the fast parser's data) and `reference` (json::Parse's) side
// by side: every kept text is what the writer writes for the reference's
// container. Returns how many containers kept their text.
size_t ExpectKeptTextsAsWritten(const json::Value& fast, const json::Value& reference, const std::string& line) {
  size_t kept = 0;
  if (!fast.kept_text().empty()) {
    EXPECT_EQ(fast.kept_text(), json::Serialize(reference)) << line;
    ++kept;
  }
  if (fast.is_array() && reference.is_array() && fast.as_array().size() == reference.as_array().size()) {
    for (size_t i = 0; i < fast.as_array().size(); ++i) {
      kept += ExpectKeptTextsAsWritten(fast.as_array()[i], reference.as_array()[i], line);
    }
  } else if (fast.is_object() && reference.is_object() && fast.as_object().size() == reference.as_object().size()) {
    for (size_t i = 0; i < fast.as_object().size(); ++i) {
      kept += ExpectKeptTextsAsWritten(fast.as_object()[i].second, reference.as_object()[i].second, line);
    }
  }
  return kept;
}

size_t KeptTexts(FastJsonParser& fast, const std::string& line) {
  fast.set_keep_texts(true);
  auto quick = fast.ParseEvent(line);
  auto reference = json::Parse(line);
  if (!quick.ok() || !reference.ok() || !reference->Find("data")) {
    ADD_FAILURE() << line;
    return 0;
  }
  EXPECT_EQ(json::Serialize(quick->data), json::Serialize(*reference->Find("data"))) << line;
  return ExpectKeptTextsAsWritten(quick->data, *reference->Find("data"), line);
}

TEST(FastJsonParserTest, EveryKeptTextOfAFixtureEventIsWhatTheWriterWrites) {
  FastJsonParser fast;
  size_t kept = 0;
  for (const auto& name : retrace::testing::RawFixtures()) {
    for (const auto& line : retrace::testing::Lines(retrace::testing::ReadFile(retrace::testing::FixturePath(name)))) {
      auto event = fast.ParseEvent(line);
      if (event.ok() && event->data.is_object()) kept += KeptTexts(fast, line);
    }
  }
  EXPECT_GT(kept, 10u);  // the fixtures' tool results keep theirs
}

// An object's text, unclosed, with `n` keys k0, k1, ...
std::string ManyKeys(int n) {
  std::string text = "{";
  for (int k = 0; k < n; ++k) text += (k ? ",\"k" : "\"k") + std::to_string(k) + "\":" + std::to_string(k);
  return text;
}

// A read result's meta, as dsh writes it, with `lines` written by `line`.
std::string ReadEvent(const std::function<std::string(int)>& line, const std::string& meta_tail = "") {
  std::string lines;
  for (int i = 1; i <= 12; ++i) lines += (i > 1 ? "," : "") + line(i);
  return R"({"type":"tool/result","seq":5,"time":9,"data":{"turn":1,"meta":{"path":"/w/a.ts","lines":[)" + lines +
         "]" + meta_tail + "}}}";
}

TEST(FastJsonParserTest, AContainerWrittenOtherwiseThanTheWriterWritesKeepsNoText) {
  FastJsonParser fast;
  auto plain = [](int i) { return R"({"number":)" + std::to_string(i) + R"(,"text":"let x = value + )" + std::to_string(i) + R"(;"})"; };
  // Written as the writer writes it: data, meta and lines keep their texts.
  EXPECT_EQ(KeptTexts(fast, ReadEvent(plain)), 3u);
  EXPECT_EQ(KeptTexts(fast, ReadEvent(plain, R"(,"totalLines":40,"ok":true,"none":null,"no":false,"neg":-7)")), 3u);
  EXPECT_EQ(KeptTexts(fast, ReadEvent([&](int i) { return i == 7 ? ManyKeys(20) + "}" : plain(i); })), 3u);
  // Otherwise, in one line or one token: the text is not what the writer
  // writes, so neither lines, nor meta, nor data keeps it.
  const std::vector<std::function<std::string(int)>> others = {
      [&](int i) { return i == 7 ? R"({"number":7, "text":"x"})" : plain(i); },           // a space
      [&](int i) { return i == 7 ? R"({"number":7,"text":"a\/b"})" : plain(i); },         // an escape the writer does not use
      [&](int i) { return i == 7 ? R"({"number":7,"text":"caf\u00e9"})" : plain(i); },    // ... or writes as the character
      [&](int i) { return i == 7 ? R"({"number":7,"text":"a\nb"})" : plain(i); },        // any escape: not checked, not kept
      [&](int i) { return i == 7 ? R"({"number":7.0,"text":"x"})" : plain(i); },         // a double
      [&](int i) { return i == 7 ? R"({"number":7e0,"text":"x"})" : plain(i); },
      [&](int i) { return i == 7 ? R"({"number":-0,"text":"x"})" : plain(i); },
      [&](int i) { return i == 7 ? R"({"number":1000000000000000,"text":"x"})" : plain(i); },  // past the writer's integers
      [&](int i) { return i == 7 ? R"({"text":"x","1":7})" : plain(i); },                // an index key goes first
      [&](int i) { return i == 7 ? R"({"number":7,"number":8})" : plain(i); },           // a repeated key
      [&](int i) { return i == 7 ? ManyKeys(20) + R"(,"k3":0})" : plain(i); },            // ... among many
  };
  for (const auto& other : others) EXPECT_EQ(KeptTexts(fast, ReadEvent(other)), 0u) << ReadEvent(other);
  // An envelope whose data comes first: its members after data are still read.
  const std::string first = ReadEvent(plain);
  const std::string data = first.substr(first.find("\"data\":") + 7, first.size() - first.find("\"data\":") - 8);
  const std::string reordered = R"({"data":)" + data + R"(,"seq":5,"sourceEventSeqs":[1,2],"type":"tool/result","time":9})";
  auto event = fast.ParseEvent(reordered);
  ASSERT_TRUE(event.ok());
  EXPECT_EQ(event->type, "tool/result");
  EXPECT_EQ(event->source_event_seqs, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(KeptTexts(fast, reordered), 3u);
  // ... and members before it, an array among them, are counted to find its tokens.
  const std::string counted = R"({"type":"tool/result","sourceEventSeqs":[1,2,3],"seq":5,"time":9,"data":)" + data + "}";
  EXPECT_EQ(KeptTexts(fast, counted), 3u);
}

TEST(FastJsonParserTest, AParserNotAskedToKeepTextsKeepsNone) {
  FastJsonParser fast;
  auto line = [](int i) { return R"({"number":)" + std::to_string(i) + R"(,"text":"some text of the line"})"; };
  auto event = fast.ParseEvent(ReadEvent(line));
  ASSERT_TRUE(event.ok());
  EXPECT_TRUE(event->data.kept_text().empty());
  EXPECT_TRUE(event->data.Find("meta")->kept_text().empty());
  fast.set_keep_texts(true);
  EXPECT_EQ(KeptTexts(fast, ReadEvent(line)), 3u);
}

TEST(FastJsonParserTest, DataNestedToSimdjsonsDepthLimitIsReadAndKept) {
  FastJsonParser fast;
  fast.set_keep_texts(true);
  const std::string deep = std::string(1000, '[') + R"("a long enough string to make the innermost arrays kept, and more")" +
                           std::string(1000, ']');
  const std::string line = R"({"type":"x","seq":1,"time":2,"data":)" + deep + "}";
  auto event = fast.ParseEvent(line);
  ASSERT_TRUE(event.ok()) << event.status().message();
  EXPECT_EQ(json::Serialize(event->data), deep);
  EXPECT_EQ(event->data.kept_text(), deep);
}

TEST(FastJsonParserTest, AKeptContainerChangedAfterTheParseIsWrittenAsChanged) {
  FastJsonParser fast;
  fast.set_keep_texts(true);
  auto line = [](int i) { return R"({"number":)" + std::to_string(i) + R"(,"text":"some text of the line"})"; };
  auto event = fast.ParseEvent(ReadEvent(line));
  ASSERT_TRUE(event.ok());
  const json::Value before = event->data;  // shares the kept containers
  event->data.Find("meta")->Find("lines")->as_array()[0].Set("text", "changed");
  const std::string written = json::Serialize(event->data);
  EXPECT_NE(written.find(R"({"number":1,"text":"changed"})"), std::string::npos) << written;
  EXPECT_EQ(json::Serialize(before), json::Serialize(json::Parse(ReadEvent(line)).value().as_object()[3].second));
}

}  // namespace
}  // namespace retrace::format
