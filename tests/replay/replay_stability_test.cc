// The replay-stability helper (testing/replay_stability.h) on our own
// built-in tools: recorded sessions replay to their references, and each
// deliberately broken session yields exactly the finding it should.
// Corpus: tests/replay/corpus (README there).
#include "testing/replay_stability.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <memory>

#include "presenters/reference_tools.h"
#include "tests/test_util.h"

namespace retrace::testing {
namespace {

const std::string kCorpus = RETRACE_SOURCE_DIR "/tests/replay/corpus";
const std::string kGolden = kCorpus + "/golden";

std::string Broken(const std::string& name) { return kCorpus + "/broken/" + name + ".jsonl"; }

TEST(ReplayStabilityTest, RecordedSessionsOfTheBuiltInToolsReplayStably) {
  EXPECT_REPLAYS_STABLY(kCorpus + "/good", kGolden, {.fuzz = 200});
}

TEST(ReplayStabilityTest, EachBrokenSessionYieldsExactlyItsFinding) {
  using Set = std::set<std::string>;
  EXPECT_EQ(ReplayFindings(Broken("broken-removed-field"), kGolden), Set{"differs"});
  EXPECT_EQ(ReplayFindings(Broken("broken-renamed-tool"), kGolden), Set{"differs"});
  EXPECT_EQ(ReplayFindings(Broken("broken-missing-call"), kGolden), Set{"missing"});
  EXPECT_EQ(ReplayFindings(Broken("broken-extra-call"), kGolden), Set{"extra"});
  EXPECT_EQ(ReplayFindings(Broken("broken-unknown-required"), kGolden), Set{"unreadable"});
  EXPECT_EQ(ReplayFindings(Broken("ok-unknown-ignorable"), kGolden), Set{});
  EXPECT_TRUE(ReplaysStably(Broken("ok-unknown-ignorable"), kGolden));
  EXPECT_FALSE(ReplaysStably(Broken("broken-removed-field"), kGolden));
}

// A presenter set as a tool author would change it: "read" now requires an
// "encoding" argument that old logs never had.
presenters::PresenterSet WithChangedReadSchema() {
  presenters::PresenterSet set;
  for (const std::string& name : presenters::ReferencePresenters().Names()) {
    const presenters::ToolPresenter& p = *presenters::ReferencePresenters().Find(name);
    json::Value dsl = presenters::ReferenceParameters(name);
    if (name == "read") dsl.Set("encoding", json::Value::MakeObject({{"type", "string"}, {"required", true}}));
    EXPECT_TRUE(set.Add(name, dsl, p.present_call, p.present_result, "2").ok()) << name;
  }
  return set;
}

TEST(ReplayStabilityTest, AChangedSchemaFallsBackToTheGenericCardAndIsAnErrorOnlyWhenStrict) {
  const presenters::PresenterSet changed = WithChangedReadSchema();
  // The old read call no longer fits: its card falls back, so it also differs from the reference.
  EXPECT_EQ(ReplayFindings(Broken("broken-changed-schema"), kGolden, {.presenters = &changed}),
            (std::set<std::string>{"differs", "fallback"}));
  // Against references written with the changed presenters, only the fallback remains: a warning.
  ::retrace::testing::ReplayStabilityOptions relaxed{.presenters = &changed};
  check::CheckOptions write;
  write.presenters = &changed;
  const std::string golden = ::testing::TempDir() + "/changed-golden";
  write.golden_dir = golden;
  write.update_golden = true;
  ASSERT_TRUE(check::CheckInputs({Broken("broken-changed-schema")}, write).ok());
  EXPECT_TRUE(ReplaysStably(Broken("broken-changed-schema"), golden, relaxed));
  relaxed.strict = true;
  EXPECT_FALSE(ReplaysStably(Broken("broken-changed-schema"), golden, relaxed));
}

TEST(ReplayStabilityTest, APresenterThatThrowsIsAHardFailure) {
  presenters::PresenterSet throwing;
  for (const std::string& name : presenters::ReferencePresenters().Names()) {
    const presenters::ToolPresenter& p = *presenters::ReferencePresenters().Find(name);
    presenters::PresentResultFn result = p.present_result;
    if (name == "edit") result = [](const json::Value&, const presenters::DurableResult&) -> std::optional<json::Value> {
      throw std::runtime_error("index out of range");
    };
    ASSERT_TRUE(throwing.Add(name, presenters::ReferenceParameters(name), p.present_call, result).ok());
  }
  // The edit card falls back to the generic one (so it differs), and the throw is reported apart.
  EXPECT_EQ(ReplayFindings(kCorpus + "/good/good-edit-inject.jsonl", kGolden, {.presenters = &throwing}),
            (std::set<std::string>{"differs", "threw"}));
}

TEST(ReplayStabilityTest, APresenterWithHiddenStateIsCaughtByTheSecondReplay) {
  // An impure presenter: the edit card counts how often it was made, so the
  // two replays of one log differ, and the report says where.
  auto made = std::make_shared<int>(0);
  presenters::PresenterSet counting;
  for (const std::string& name : presenters::ReferencePresenters().Names()) {
    const presenters::ToolPresenter& p = *presenters::ReferencePresenters().Find(name);
    presenters::PresentResultFn result = p.present_result;
    if (name == "edit") result = [made](const json::Value&, const presenters::DurableResult&) -> std::optional<json::Value> {
      return json::Value::MakeObject({{"card", "generic"}, {"title", "edit #" + std::to_string(++*made)}});
    };
    ASSERT_TRUE(counting.Add(name, presenters::ReferenceParameters(name), p.present_call, result).ok());
  }
  check::CheckOptions o;
  o.presenters = &counting;
  auto report = check::CheckInputs({kCorpus + "/good/good-edit-inject.jsonl"}, o);
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(report->sessions.size(), 1u);
  const auto& findings = report->sessions[0].findings;
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].finding, check::Finding::kNondeterministic);
  EXPECT_THAT(findings[0].path, ::testing::EndsWith("/result/title"));
  EXPECT_EQ(findings[0].expected, "\"edit #1\"");
  EXPECT_FALSE(report->Clean(/*strict=*/false));
}

// What `migrate --rewrite` verifies with: two stores' cards, compared call by call.
TEST(CompareStoreCardsTest, ListsEveryCallWhoseCardWouldChange) {
  const std::string dir = ::testing::TempDir() + "/compare-" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  std::string log = retrace::testing::ReadFile(std::string(RETRACE_FIXTURE_DIR) + "/s1-tools-inject.jsonl");
  retrace::testing::WriteFile(dir + "/same.jsonl", log);
  log.replace(log.find(R"("oldText":"export function add)"), 28, R"("oldText":"export function sum)");
  retrace::testing::WriteFile(dir + "/changed.jsonl", log);
  EXPECT_TRUE(check::CompareStoreCards(dir + "/same.jsonl", dir + "/same.jsonl").value().empty());
  auto differences = check::CompareStoreCards(dir + "/same.jsonl", dir + "/changed.jsonl");
  ASSERT_TRUE(differences.ok());
  ASSERT_EQ(differences->size(), 1u);
  EXPECT_THAT(differences->front(), ::testing::StartsWith("session s1-tools-inject: call call_edit_02 differs at /result/diffs/0/oldText"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace retrace::testing
