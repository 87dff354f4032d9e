// One chain on every read path: a log whose calls are at revision 1 of a tool
// now at revision 2 replays to the current views through replay's cards (one
// thread and in pieces), transcript, text and HTML; through `check`; through
// ACP's session/load; and a Code Mode sub-call's arguments are shown upcast.
// Each test fails when its path stops going through the card fold's upcast.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "check/replay_check.h"
#include "engine/json/parser.h"
#include "engine/json/writer.h"
#include "engine/schema/schema_spec.h"
#include "frontends/acp/server.h"
#include "presenters/presenter.h"
#include "service/catalog.h"
#include "service/import.h"
#include "service/migrate.h"
#include "service/replay.h"
#include "store/event_source.h"
#include "tests/test_util.h"

namespace retrace {
namespace {

using json::Value;
using ::testing::HasSubstr;
using ::testing::Not;

// `weather` took {town} (revision 1); today it takes {city: {name}} (revision 2).
presenters::PresenterSet WeatherPresenters() {
  presenters::RevisionSpec revisions{
      .current = 2,
      .parameters = {{1, schema::Parameters({{"town", schema::String().Required()}})}},
      .steps = {{.from = 1, .to = 2, .arguments = [](const Value& a) {
                   return Value::MakeObject({{"city", Value::MakeObject({{"name", *a.Find("town")}})}});
                 }}}};
  presenters::PresenterSet set;
  Status st = set.Add(
      "weather",
      schema::Parameters({{"city", schema::Object(false, {{"name", schema::String().Required()}}).Required()}}),
      [](const Value& args) -> std::optional<Value> {
        return Value::MakeObject({{"card", "generic"},
                                  {"title", "Weather in " + args.Find("city")->Find("name")->as_string()},
                                  {"kind", "fetch"}});
      },
      nullptr, "1", std::move(revisions));
  EXPECT_TRUE(st.ok()) << st.message();
  return set;
}

// A log of `turns` turns, each one weather call at revision 1 (`Town<n>`) and
// its result; a Code Mode dispatch of the tool in the first turn.
std::string WeatherLog(int turns) {
  std::string log = R"({"type":"session","version":0,"id":"weather","createdAt":1,"cwd":"/w","delegationDepth":0})"
                    "\n";
  int64_t seq = 0;
  auto line = [&](const std::string& type, const std::string& data, const std::string& extra = "") {
    log +=
        R"({"type":")" + type + R"(","seq":)" + std::to_string(seq++) + R"(,"time":1,"data":)" + data + extra + "}\n";
  };
  for (int t = 1; t <= turns; ++t) {
    const std::string turn = std::to_string(t), id = "c" + turn;
    line("turn/start", R"({"turn":)" + turn + "}");
    line("step/start", R"({"turn":)" + turn + R"(,"step":1})");
    if (t == 1) {
      line(
          "tool/code-dispatch",
          R"({"rootCallId":"c1","parentCallId":"c1","subCallId":"c1:code:1","name":"weather","arguments":{"town":"Sub"},"isError":false,"content":[]})");
    }
    const int64_t call_seq = seq;
    line("tool/call", R"({"turn":)" + turn + R"(,"step":1,"callId":")" + id +
                          R"(","name":"weather","arguments":"{\"town\":\"Town)" + turn + R"(\"}"})");
    line(
        "tool/result",
        R"({"turn":)" + turn + R"(,"step":1,"message":{"content":[{"type":"tool-result","toolCallId":")" + id +
            R"(","toolName":"weather","content":[{"type":"text","text":"sunny"}]}],"source":{"kind":"tool","callId":")" +
            id + R"("},"role":"user","id":"m)" + turn + R"("}})",
        R"(,"sourceEventSeqs":[)" + std::to_string(call_seq) + R"(],"surfaceOp":"append")");
    line("step/end", R"({"turn":)" + turn + R"(,"step":1})");
    line("turn/end", R"({"turn":)" + turn + R"(,"reason":{"kind":"completed"}})");
  }
  return log;
}

class UpcastPathsTest : public ::testing::Test {
 protected:
  void SetUp() override { retrace::testing::WriteFile(path_, WeatherLog(3)); }
  std::string Replayed(service::ReplayFormat format, unsigned threads = 1, const std::string& path = "") {
    auto source = store::EventSource::File(path.empty() ? path_ : path);
    EXPECT_TRUE(source.ok()) << source.status().message();
    std::string out;
    Status st =
        service::WriteReplay(*source, format, {.presenters = &set_, .threads = threads}, [&](std::string_view s) {
          out += s;
          return Status::Ok();
        });
    EXPECT_TRUE(st.ok()) << st.message();
    return out;
  }

  // `retrace check` of `input` with the weather presenters, which must be clean even with --strict.
  check::CheckReport CleanCheck(const std::string& input) {
    check::CheckOptions options;
    options.presenters = &set_;
    auto report = check::CheckInputs({input}, options);
    EXPECT_TRUE(report.ok()) << report.status().message();
    if (!report.ok()) return {};
    EXPECT_TRUE(report->Clean(/*strict=*/true)) << check::ReportText(*report, true);
    return std::move(report).value();
  }

  retrace::testing::TempDir dir_;
  std::string path_ = dir_ / "weather.jsonl";
  presenters::PresenterSet set_ = WeatherPresenters();
};

TEST_F(UpcastPathsTest, EveryReplayFormatShowsTheUpcastCall) {
  for (service::ReplayFormat format : {service::ReplayFormat::kCards, service::ReplayFormat::kTranscript,
                                       service::ReplayFormat::kText, service::ReplayFormat::kHtml}) {
    const std::string out = Replayed(format);
    EXPECT_THAT(out, HasSubstr("Weather in Town1")) << static_cast<int>(format);
    EXPECT_THAT(out, HasSubstr("Weather in Town3")) << static_cast<int>(format);
  }
}

TEST_F(UpcastPathsTest, APiecedReplayUpcastsAsOneThreadDoes) {
  const std::string big = dir_ / "big.jsonl";
  retrace::testing::WriteFile(big, WeatherLog(12000));  // several MiB: worth cutting
  auto source = store::EventSource::File(big);
  ASSERT_TRUE(source.ok());
  std::optional<replay::CardBuilder> pieced = service::PiecedCards(*source, {.presenters = &set_, .threads = 2});
  ASSERT_TRUE(pieced.has_value()) << "the log was not replayed in pieces";
  const std::string two = pieced->FinishText();
  EXPECT_THAT(two, HasSubstr("Weather in Town11999"));
  EXPECT_THAT(two, Not(HasSubstr(R"("title":"weather")")));  // no generic card
  EXPECT_EQ(two + "\n", Replayed(service::ReplayFormat::kCards, 1, big));
}

TEST_F(UpcastPathsTest, CheckCountsTheUpcastCalls) {
  const check::CheckReport report = CleanCheck(path_);
  const check::ToolRevisions t = check::RevisionTotals(report).at("weather");
  EXPECT_EQ(t.at_revision, (std::map<int, int64_t>{{1, 3}}));
  EXPECT_EQ(t.upcast, 3);
  EXPECT_THAT(check::ReportText(report, true), HasSubstr("tool weather: 3 at revision 1, 0 recorded, 3 upcast"));
}

TEST_F(UpcastPathsTest, AThrowingOrSchemaBreakingStepIsAHardCheckFindingAndAGenericCard) {
  const presenters::ToolPresenter& weather = *set_.Find("weather");
  for (const bool throws : {true, false}) {
    presenters::RevisionSpec spec{
        .current = 2,
        .parameters = {{1, schema::Parameters({{"town", schema::String().Required()}})}},
        .steps = {{.from = 1, .to = 2, .arguments = [throws](const Value& a) -> Value {
                     if (throws) throw std::runtime_error("no such town");
                     return a;  // forgets to make the city: fails revision 2's schema
                   }}}};
    presenters::PresenterSet broken;
    broken.Add(presenters::MakeToolPresenter(
        "weather", weather.parameters, weather.present_call, weather.present_result, "1",
        presenters::CompileRevisions("weather", std::move(spec), weather.parameters, /*dsl=*/true).value()));
    check::CheckOptions options;
    options.presenters = &broken;
    auto report = check::CheckInputs({path_}, options);
    ASSERT_TRUE(report.ok()) << report.status().message();
    EXPECT_FALSE(report->Clean(/*strict=*/false));
    EXPECT_EQ(report->Count(check::IsHardFailure), 3);
    const std::string text = check::ReportText(*report, false);
    EXPECT_THAT(text, HasSubstr("upcast (hard failure)  seq "));
    EXPECT_THAT(text, HasSubstr(throws ? "step 1 (revision 1 → 2) threw: no such town"
                                       : "step 1 (revision 1 → 2) gave arguments that fail revision 2's schema"));
    const Value json = check::ReportJson(*report, false);
    const Value* tally = json.Find("revisions")->Find("weather");
    ASSERT_NE(tally, nullptr);
    EXPECT_EQ(json::Serialize(*tally->Find("generic")),
              throws ? R"({"a step threw":3})" : R"({"a step's output fails the next schema":3})");
    // Replay shows the generic card, never a crash.
    service::ReplayOptions replay{.presenters = &broken};
    auto source = store::EventSource::File(path_);
    ASSERT_TRUE(source.ok());
    std::string cards;
    ASSERT_TRUE(service::WriteCards(*source, replay, [&](std::string_view t) {
                  cards += t;
                  return Status::Ok();
                }).ok());
    EXPECT_THAT(cards, HasSubstr(R"("title":"weather")"));
    EXPECT_THAT(cards, Not(HasSubstr("Weather in")));
  }
}

TEST_F(UpcastPathsTest, AcpSessionLoadShowsTheUpcastCall) {
  service::Catalog catalog({.db_path = dir_ / "t.db"});
  auto imported = service::ImportLogs(catalog, {path_});
  ASSERT_TRUE(imported.ok() && imported->refused == 0);
  std::string frames;
  acp::Server server(catalog,
                     [&](const std::string& frame) {
                       frames += frame + "\n";
                       return true;
                     },
                     {.version = "test", .presenters = &set_});
  server.HandleLine(
      R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}})");
  server.HandleLine(
      R"({"jsonrpc":"2.0","id":1,"method":"session/load","params":{"sessionId":"weather","cwd":"/w","mcpServers":[]}})");
  EXPECT_THAT(frames, HasSubstr(R"("title":"Weather in Town2")"));
  EXPECT_THAT(frames, Not(HasSubstr(R"("title":"weather")")));
}

TEST_F(UpcastPathsTest, ACodeModeSubCallShowsItsUpcastArguments) {
  const std::string transcript = Replayed(service::ReplayFormat::kTranscript);
  EXPECT_THAT(transcript, HasSubstr(R"("subCallId":"c1:code:1","name":"weather","args":{"city":{"name":"Sub"}})"));
}

TEST_F(UpcastPathsTest, MigrateRewriteWritesEveryCallAtTheCurrentRevisionWithTheSameCards) {
  service::Catalog catalog({.db_path = dir_ / "t.db"});
  auto imported = service::ImportLogs(catalog, {path_});
  ASSERT_TRUE(imported.ok() && imported->refused == 0);
  const std::string out = dir_ / "rewritten.db";
  auto rewrite = service::RewriteVerified(catalog, out, {}, &set_);
  ASSERT_TRUE(rewrite.ok()) << rewrite.status().message();
  EXPECT_TRUE(rewrite->differences.empty());
  EXPECT_EQ(rewrite->calls_upcast, 3);
  // Every call of the copy is at the current revision, and nothing is upcast on read any more.
  const check::ToolRevisions t = check::RevisionTotals(CleanCheck(out)).at("weather");
  EXPECT_EQ(t.at_revision, (std::map<int, int64_t>{{2, 3}}));
  EXPECT_EQ(t.upcast, 0);
  auto cards = check::CompareStoreCards(dir_ / "t.db", out, &set_);
  ASSERT_TRUE(cards.ok());
  EXPECT_TRUE(cards->empty());
  // Without the tool's presenters the copy keeps the calls as logged.
  const std::string plain = dir_ / "plain.db";
  auto untouched = service::RewriteVerified(catalog, plain, {});
  ASSERT_TRUE(untouched.ok()) << untouched.status().message();
  EXPECT_EQ(untouched->calls_upcast, 0);
}

}  // namespace
}  // namespace retrace
