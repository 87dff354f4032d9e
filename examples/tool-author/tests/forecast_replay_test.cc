// The forecast tool's replay-stability suite, as a tool author keeps one:
// the sessions recorded in corpus/ must keep replaying to the cards in
// golden/ as the presenters change. After a deliberate change of a view,
// RETRACE_UPDATE_GOLDEN=1 ctest rewrites golden/ (review its diff).
#include <gtest/gtest.h>

#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include <retrace/check/replay_check.h>
#include <retrace/engine/runtime/asio.h>
#include <retrace/engine/runtime/tool_runtime.h>
#include <retrace/testing/replay_stability.h>

#include <gmock/gmock.h>

#include "forecast_tool.h"

namespace {

namespace fs = std::filesystem;
namespace json = retrace::json;
namespace runtime = retrace::runtime;
using retrace::testing::ReplayFindings;
using retrace::testing::ReplaysStably;

const std::string kCorpus = FORECAST_DIR "/corpus";
const std::string kGolden = FORECAST_DIR "/golden";

std::string TempDir(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("forecast-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(ForecastReplay, RecordedSessionsReplayStably) {
  if (std::getenv("RETRACE_UPDATE_GOLDEN")) {
    ASSERT_TRUE(retrace::testing::WriteGolden(kCorpus, kGolden, {.presenters = &forecast::ForecastPresenters()}));
  }
  EXPECT_REPLAYS_STABLY(kCorpus, kGolden, {.presenters = &forecast::ForecastPresenters(), .fuzz = 50});
}

TEST(ForecastReplay, AFreshRecordingReplaysToTheCardsItRecordedAtRunTime) {
  const std::string log = TempDir("fresh") + "/fresh.jsonl";
  ASSERT_EQ(std::system((std::string(FORECAST_RECORD) + " " + log + " Lima Cairo Quito >/dev/null").c_str()), 0);
  // Without a golden directory, the reference is each call's card snapshot.
  retrace::check::CheckOptions options;
  options.presenters = &forecast::ForecastPresenters();
  auto report = retrace::check::CheckInputs({log}, options);
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->calls(), 3);
  EXPECT_TRUE(report->Clean(/*strict=*/true)) << retrace::check::ReportText(*report, true);
  // And the recording is deterministic: the same cities give the same log.
  const std::string again = TempDir("again") + "/fresh.jsonl";
  ASSERT_EQ(std::system((std::string(FORECAST_RECORD) + " " + again + " Lima Cairo Quito >/dev/null").c_str()), 0);
  EXPECT_EQ(ReadFile(log), ReadFile(again));
}

TEST(ForecastReplay, ATamperedGoldenFails) {
  const std::string golden = TempDir("tampered");
  for (const auto& entry : fs::directory_iterator(kGolden)) {
    std::string text = ReadFile(entry.path());
    const size_t at = text.find("Forecast for ");
    ASSERT_NE(at, std::string::npos) << entry.path();
    text.replace(at, 13, "Forecast from");
    std::ofstream(fs::path(golden) / entry.path().filename(), std::ios::binary) << text;
  }
  EXPECT_FALSE(ReplaysStably(kCorpus, golden, {.presenters = &forecast::ForecastPresenters()}));
  EXPECT_EQ(ReplayFindings(kCorpus, golden, {.presenters = &forecast::ForecastPresenters()}),
            std::set<std::string>{"differs"});
}

TEST(ForecastReplay, AChangedPresenterIsCaught) {
  // A change a tool author might make without thinking of old logs: the
  // result card's title now drops the temperature.
  const retrace::presenters::ToolPresenter& p = *forecast::ForecastPresenters().Find("forecast");
  retrace::presenters::PresenterSet changed;
  changed.Add(retrace::presenters::MakeToolPresenter(
      "forecast", p.parameters, p.present_call,
      [](const json::Value& args, const retrace::presenters::DurableResult&) -> std::optional<json::Value> {
        return json::Value::MakeObject(
            {{"card", "generic"}, {"title", "Forecast for " + args.Find("city")->Find("name")->as_string()}});
      },
      "2", p.revisions));
  EXPECT_FALSE(ReplaysStably(kCorpus, kGolden, {.presenters = &changed}));
  EXPECT_EQ(ReplayFindings(kCorpus, kGolden, {.presenters = &changed}), std::set<std::string>{"differs"});
}

// The tool's arguments went through three revisions (forecast_tool.cc); the
// corpus keeps sessions the releases of revisions 1 and 2 recorded.
TEST(ForecastReplay, OldRevisionsReplayToTodaysCardsThroughTheUpcasters) {
  EXPECT_REPLAYS_THROUGH_UPCASTERS(kCorpus, kGolden, {.presenters = &forecast::ForecastPresenters()});
  retrace::check::CheckOptions options;
  options.presenters = &forecast::ForecastPresenters();
  auto report = retrace::check::CheckInputs({kCorpus}, options);
  ASSERT_TRUE(report.ok()) << report.status().message();
  const retrace::check::ToolRevisions t = retrace::check::RevisionTotals(*report).at("forecast");
  EXPECT_EQ(t.at_revision, (std::map<int, int64_t>{{1, 2}, {2, 4}}));
  EXPECT_EQ(t.upcast, 6);
  EXPECT_EQ(t.recorded, 4);  // the sessions that recorded their revision; paris-oslo's is inferred
  EXPECT_TRUE(t.generic.empty());
}

TEST(ForecastReplay, EachRevisionsArgumentsAndMetaUpcastToTodays) {
  const retrace::presenters::PresenterSet& p = forecast::ForecastPresenters();
  EXPECT_UPCASTS_TO(p, "forecast", R"({"town":"Lima","days":2})", R"({"city":{"name":"Lima"},"days":2})",
                    R"({"days":2,"high":15})", R"({"days":2,"warmest":15})");
  EXPECT_UPCASTS_TO(p, "forecast", R"({"city":"Quito"})", R"({"city":{"name":"Quito"}})");
  EXPECT_UPCASTS_TO(p, "forecast", R"({"city":{"name":"Paris","country":"US"}})", R"({"city":{"name":"Paris","country":"US"}})");
  EXPECT_FALSE(retrace::testing::UpcastsTo(p, "forecast", R"({"town":"Lima"})", R"({"city":"Lima"})"));
}

TEST(ForecastReplay, AChainWithAStepRemovedIsRefusedNamingTheStep) {
  retrace::presenters::RevisionSpec spec = forecast::ForecastRevisions();
  spec.steps.erase(spec.steps.begin());  // the rename of town to city
  const retrace::presenters::ToolPresenter& p = *forecast::ForecastPresenters().Find("forecast");
  retrace::presenters::PresenterSet set;
  const retrace::Status st =
      set.Add("forecast", forecast::ForecastParameters(3), p.present_call, p.present_result, "1", std::move(spec));
  EXPECT_THAT(st.message(), ::testing::HasSubstr(
                                "tool \"forecast\": step 1 (revision 2 → 3) leaves a gap: no step reads revision 1"));
}

TEST(ForecastReplay, WithoutTheUpcastersOldCallsShowTheGenericCardAndFail) {
  const retrace::presenters::ToolPresenter& p = *forecast::ForecastPresenters().Find("forecast");
  retrace::presenters::PresenterSet plain;
  plain.Add(retrace::presenters::MakeToolPresenter("forecast", p.parameters, p.present_call, p.present_result));
  EXPECT_FALSE(retrace::testing::ReplaysThroughUpcasters(kCorpus, kGolden, {.presenters = &plain}));
  EXPECT_TRUE(ReplayFindings(kCorpus, kGolden, {.presenters = &plain}).contains("fallback"));
}

TEST(ForecastReplay, AValueNlohmannCannotCarryIsRefusedWithItsPath) {
  runtime::ToolRuntime rt;
  auto registration = rt.registry().Register(forecast::ForecastTool());  // registered while it lives
  ASSERT_TRUE(registration.ok());
  runtime::ToolCallInput call;
  call.call_id = "c1";
  call.name = "forecast";
  call.arguments = json::Value::MakeObject(
      {{"city", json::Value::MakeObject({{"name", std::string("Par\xed\xa0\x80is")}})}});  // a lone surrogate
  runtime::ToolResultPtr result;
  runtime::asio::io_context io;
  runtime::asio::co_spawn(io, rt.Execute(call), [&](std::exception_ptr, runtime::ToolResultPtr r) { result = r; });
  io.run();
  ASSERT_NE(result, nullptr);
  EXPECT_TRUE(result->is_error);
  ASSERT_EQ(result->content.size(), 1u);
  const std::string text = result->content[0].Find("text")->as_string();
  EXPECT_NE(text.find("at /city/name"), std::string::npos) << text;
  EXPECT_NE(text.find("lone surrogate"), std::string::npos) << text;
  ASSERT_TRUE(result->error && result->error->info);
  EXPECT_EQ(result->error->info->code, "UNREPRESENTABLE_VALUE");
}

}  // namespace
