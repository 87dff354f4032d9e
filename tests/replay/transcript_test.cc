// The transcript and its text and HTML renderings.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <vector>

#include "engine/json/writer.h"
#include "engine/replay/conversation.h"
#include "engine/replay/transcript.h"
#include "presenters/reference_tools.h"
#include "store/event_source.h"
#include "tests/test_util.h"

namespace retrace::replay {
namespace {

using json::Value;
using ::testing::HasSubstr;
using ::testing::Not;
using retrace::testing::FixturePath;

// Two passes over the events `read` gives.
Value TranscriptOf(const std::string& session_id, const std::function<Status(const EventSink&)>& read) {
  auto t = BuildTranscript(session_id, read, presenters::ReferencePresenters());
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? *t : Value();
}

Value TranscriptOf(const std::string& path) {
  auto source = store::EventSource::File(path);
  EXPECT_TRUE(source.ok()) << source.status().message();
  if (!source.ok()) return Value();
  return TranscriptOf(source->session_id(), [&](const EventSink& sink) { return source->Read(TranscriptNeeds, sink); });
}

// A transcript of events made in the test.
Value TranscriptOf(const std::string& session_id, const std::vector<log::Event>& events) {
  return TranscriptOf(session_id, [&](const EventSink& sink) {
    for (log::Event e : events) RETURN_IF_ERROR(sink(std::move(e)));
    return Status::Ok();
  });
}

std::string Kinds(const Value& t) {
  std::string s;
  for (const Value& row : t.Find("rows")->as_array()) s += (s.empty() ? "" : " ") + row.Find("kind")->as_string();
  return s;
}

TEST(TranscriptTest, RowsFollowTheLogWithInjectedContextAndCards) {
  const Value t = TranscriptOf(FixturePath("s1-tools-inject.jsonl"));
  EXPECT_EQ(Kinds(t), "turn prompt context assistant tool context assistant tool assistant turn-end");
  const Value::Array& rows = t.Find("rows")->as_array();
  EXPECT_EQ(json::Serialize(rows[5]),
            R"({"seq":43,"kind":"context","source":"plugin","plugin":"file-watch","form":"notice","summary":"src/math.test.ts changed on disk","text":"<system-reminder>File src/math.test.ts was modified outside the agent.</system-reminder>","inContext":true})");
  EXPECT_EQ(rows[7].Find("pending")->Find("title")->as_string(), "Edit src/math.ts");
  EXPECT_EQ(rows[7].Find("result")->Find("card")->as_string(), "diff");
}

// The streamed conversation is the transcript's prompt, context, assistant and
// tool rows, field for field (inContext and Code-Mode sub-calls aside), in order,
// on every fixture — and rows are handed on while the log is read, not at its end.
TEST(ConversationStreamTest, RowsAreTheTranscriptsAndComeOutAsSoonAsComplete) {
  for (const std::string& fixture : retrace::testing::RawFixtures()) {
    SCOPED_TRACE(fixture);
    std::vector<std::string> want;
    const Value transcript = TranscriptOf(FixturePath(fixture));
    for (Value row : transcript.Find("rows")->as_array()) {
      const std::string kind = row.Find("kind")->as_string();
      if (kind != "prompt" && kind != "context" && kind != "assistant" && kind != "tool") continue;
      Value::Object kept;
      for (auto& [key, value] : row.as_object()) {
        if (key != "inContext" && key != "subCalls") kept.emplace_back(key, value);
      }
      want.push_back(json::Serialize(Value::MakeObject(std::move(kept))));
    }
    std::vector<std::string> got;
    ConversationStream stream(presenters::ReferencePresenters(), [&](Value row) { got.push_back(json::Serialize(row)); });
    ASSERT_TRUE(store::ReadFileEvents(FixturePath(fixture), ConversationNeeds, [&](log::Event&& e) {
                  stream.Add(std::move(e));
                  return Status::Ok();
                }).ok());
    const int64_t before_finish = static_cast<int64_t>(got.size());
    stream.Finish();
    EXPECT_EQ(got, want);
    EXPECT_GT(before_finish, 0);  // streamed, not held to the end
  }
}

TEST(TranscriptTest, CompactionKeepsRowsButMarksThemOutOfContext) {
  auto message = [](const std::string& text, const std::string& id) {
    return Value::MakeObject({{"content", Value(Value::Array{Value::MakeObject({{"type", "text"}, {"text", text}})})},
                              {"source", Value::MakeObject({{"kind", "user"}})},
                              {"role", "user"},
                              {"id", id}});
  };
  log::Event first{"user/message", 0, 1, message("old prompt", "m1"), std::nullopt, log::SurfaceOp{}, false};
  log::Event summary{"user/message", 1, 2, message("<compacted-summary>…</compacted-summary>", "m2"),
                     std::vector<int64_t>{0}, log::SurfaceOp{log::SurfaceOp::Kind::kReplace, 0, 0}, false};
  EXPECT_EQ(json::Serialize(TranscriptOf("s", {first, summary})),
            R"({"sessionId":"s","rows":[{"seq":0,"kind":"prompt","text":"old prompt","inContext":false},{"seq":1,"kind":"notice","text":"Earlier context was compacted into a summary."}]})");
}

// A live session grows while its transcript is made: the second pass stops
// where the first ended, so the rows are those of one moment of the log.
TEST(TranscriptTest, ASessionThatGrowsBetweenThePassesIsShownAsTheFirstPassSawIt) {
  auto prompt = [](int64_t seq, const std::string& text) {
    return log::Event{"user/message", seq, seq,
                      Value::MakeObject({{"content", Value(Value::Array{Value::MakeObject({{"type", "text"}, {"text", text}})})},
                                         {"source", Value::MakeObject({{"kind", "user"}})},
                                         {"role", "user"},
                                         {"id", "m" + std::to_string(seq)}}),
                      std::nullopt, log::SurfaceOp{}, false};
  };
  std::vector<log::Event> events{prompt(0, "first")};
  const Value t = TranscriptOf("s", [&](const EventSink& sink) {
    for (log::Event e : events) RETURN_IF_ERROR(sink(std::move(e)));
    events.push_back(prompt(static_cast<int64_t>(events.size()), "appended meanwhile"));
    return Status::Ok();
  });
  EXPECT_EQ(json::Serialize(t),
            R"({"sessionId":"s","rows":[{"seq":0,"kind":"prompt","text":"first","inContext":true}]})");
}

// Rows are handed on while the log is read (memory holds rows awaiting a
// result, not the session), and an error from the reader of the rows stops both.
TEST(TranscriptTest, RowsStreamDuringTheSecondPassAndAnEmitErrorStopsIt) {
  auto source = store::EventSource::File(FixturePath("c04-bash-jobs.jsonl"));
  ASSERT_TRUE(source.ok());
  int passes = 0, events = 0, rows = 0, events_at_first_row = -1;
  const EventPass pass = [&](const EventSink& sink) {
    ++passes;
    return source->Read(TranscriptNeeds, [&](log::Event&& e) {
      ++events;
      return sink(std::move(e));
    });
  };
  ASSERT_TRUE(StreamTranscript(pass, presenters::ReferencePresenters(), [&](Value) {
                if (rows++ == 0) events_at_first_row = events;
                return Status::Ok();
              }).ok());
  EXPECT_EQ(passes, 2);
  EXPECT_GT(rows, 20);
  EXPECT_LT(events_at_first_row, events / 2 + 5);  // the first row came early in the second pass
  rows = 0;
  const Status st = StreamTranscript(pass, presenters::ReferencePresenters(), [&](Value) {
    ++rows;
    return Status::IoError("gone");
  });
  EXPECT_EQ(st.code(), Status::Code::kIoError);
  EXPECT_EQ(rows, 1);
}

TEST(TranscriptTest, EveryFormatIsDeterministic) {
  for (const std::string& fixture : retrace::testing::RawFixtures()) {
    const Value a = TranscriptOf(FixturePath(fixture)), b = TranscriptOf(FixturePath(fixture));
    EXPECT_EQ(json::Serialize(a), json::Serialize(b)) << fixture;
    EXPECT_EQ(RenderText(a, true), RenderText(b, true)) << fixture;
    EXPECT_EQ(RenderHtml(a), RenderHtml(b)) << fixture;
  }
}

TEST(TranscriptTest, HtmlEscapesEveryLoggedString) {
  const std::string evil = "<script>alert('x')</script>";
  std::vector<log::Event> events;
  Value content = Value(Value::Array{Value::MakeObject({{"type", "text"}, {"text", evil}})});
  events.push_back(log::Event{"user/message", 0, 1,
                   Value::MakeObject({{"content", content},
                                      {"source", Value::MakeObject({{"kind", "plugin"}, {"plugin", evil}, {"summary", evil}})},
                                      {"role", "user"},
                                      {"id", "m"}}),
                   std::nullopt, log::SurfaceOp{}, false});
  events.push_back(log::Event{"tool/call", 1, 1,
                   Value::MakeObject({{"turn", 1}, {"step", 1}, {"callId", evil}, {"name", evil}, {"arguments", "{\"x\":\"" + evil + "\"}"}}),
                   std::nullopt, std::nullopt, false});
  events.push_back(log::Event{"tool/call", 2, 1,
                   Value::MakeObject({{"turn", 1}, {"step", 1}, {"callId", "c2"}, {"name", "bash"},
                                      {"arguments", R"({"command":"<script>x</script>","description":"<b>"})"}}),
                   std::nullopt, std::nullopt, false});
  const std::string html = RenderHtml(TranscriptOf(evil, events));
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, Not(HasSubstr("<b>")));
  EXPECT_THAT(html, HasSubstr("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"));
  EXPECT_THAT(html, Not(HasSubstr("http")));  // self-contained: no external resources
}

// Renders session.html with headless Chromium when it is installed.
TEST(TranscriptTest, HtmlRendersInHeadlessChromium) {
  std::string browser;
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    if (retrace::testing::Shell(std::string("command -v ") + name + " 2>/dev/null").code == 0) {
      browser = name;
      break;
    }
  }
  if (browser.empty()) GTEST_SKIP() << "Chromium is not installed (apt-get install chromium); the screenshot check did not run";
  retrace::testing::TempDir dir;
  retrace::testing::WriteFile(dir / "session.html", RenderHtml(TranscriptOf(FixturePath("c04-bash-jobs.jsonl"))));
  const auto run = retrace::testing::Shell(browser + " --headless --no-sandbox --disable-gpu --window-size=1000,1400 --screenshot=" +
                                           dir / "shot.png" + " file://" + dir / "session.html" + " 2>&1");
  ASSERT_TRUE(std::filesystem::exists(dir / "shot.png")) << run.out;
  EXPECT_GT(std::filesystem::file_size(dir / "shot.png"), 10000u);  // a page was drawn, not a blank
}

}  // namespace
}  // namespace retrace::replay
