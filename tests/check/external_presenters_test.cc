// External presenters (check/external_presenters.h) against a small shell
// program that answers well or misbehaves on demand: every failure is a
// throwing presentation with a message that says what happened, bounded in
// time, and the program is restarted or given up as the contract says.
#include "check/external_presenters.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <set>
#include <string>
#include <thread>

#include "check/replay_check.h"
#include "engine/json/parser.h"
#include "tests/test_util.h"

namespace retrace::check {
namespace {

using json::Value;
using presenters::Presented;
using retrace::testing::TempDir;
using retrace::testing::WriteFile;

// `sh fake.sh MODE [ONCE_FILE]`: lists one tool, "greet" taking {who:
// string} (or, with TOOL set, that tool taking any object), and answers
// each presentation as MODE says. With ONCE_FILE, it misbehaves only while
// that file does not exist (it creates it), so a restarted copy answers well.
constexpr char kFakeProgram[] = R"SH(
mode="$1"; once="$2"
[ "$mode" = exit-at-start ] && { echo "cannot load the packages" >&2; exit 3; }
[ "$mode" = silent-at-start ] && { sleep 30.25; exit 0; }
n=0
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":\([0-9]*\),.*/\1/p')
  case "$line" in
    *'"method":"initialize"'*)
      case "$mode" in
        twice) tools='{"name":"greet","parameters":{"type":"object"}},{"name":"greet","parameters":{"type":"object"}}' ;;
        bad-schema) tools='{"name":"greet","parameters":{"type":"object","minProperties":1}}' ;;
        revision-gap) tools='{"name":"greet","parameters":{"type":"object"},"revisions":{"current":3,"parameters":{"1":{"type":"object"}}}}' ;;
        *) if [ -n "$TOOL" ]; then tools='{"name":"'"$TOOL"'","parameters":{"type":"object"}}'
           else tools='{"name":"greet","revision":"r1","parameters":{"type":"object","properties":{"who":{"type":"string"}},"required":["who"],"additionalProperties":false}}'; fi ;;
      esac
      printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[%s]}}\n' "$id" "$tools"
      continue ;;
  esac
  n=$((n+1))
  m="$mode"
  if [ -n "$once" ]; then
    if [ -e "$once" ]; then m=ok; else : > "$once"; fi
  fi
  case "$m" in
    ok) printf '{"jsonrpc":"2.0","id":%s,"result":{"view":{"card":"generic","title":"hello"}}}\n' "$id" ;;
    null) printf '{"jsonrpc":"2.0","id":%s,"result":{"view":null}}\n' "$id" ;;
    counter) printf '{"jsonrpc":"2.0","id":%s,"result":{"view":{"card":"generic","title":"answer %s"}}}\n' "$id" "$n" ;;
    crash) echo "presenter blew up" >&2; exit 9 ;;
    hang) sleep 30.5 ;;
    garbage) echo 'this is not json' ;;
    wrong-id) printf '{"jsonrpc":"2.0","id":999,"result":{"view":null}}\n' ;;
    not-object) printf '{"jsonrpc":"2.0","id":%s,"result":{"view":42}}\n' "$id" ;;
    error) printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32000,"message":"TypeError: x is undefined"}}\n' "$id" ;;
  esac
done
)SH";

class ExternalPresentersTest : public ::testing::Test {
 protected:
  void SetUp() override { WriteFile(dir_ / "fake.sh", kFakeProgram); }

  Result<std::unique_ptr<ExternalPresenters>> Start(const std::string& args, int timeout_ms = 10000) {
    ExternalPresentersOptions o;
    o.command = "sh " + (dir_ / "fake.sh") + " " + args;
    o.timeout = std::chrono::milliseconds(timeout_ms);
    return ExternalPresenters::Start(o);
  }

  static presenters::PresentOutcome Greet(const ExternalPresenters& p, const char* who = "Ada") {
    return presenters::PresentCallOutcome(*p.presenters().Find("greet"), Value::MakeObject({{"who", who}}));
  }

  TempDir dir_;
};

// True while a process whose command line holds `marker` runs.
bool Running(const std::string& marker) {
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string cmdline = retrace::testing::ReadFile(entry.path().string() + "/cmdline");
    if (cmdline.find(marker) != std::string::npos) return true;
  }
  return false;
}

// True once no process whose command line holds `marker` runs, within 5 s: a
// SIGKILL is delivered at once, but a loaded machine may take a moment to
// tear the process down.
bool Gone(const std::string& marker) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (Running(marker)) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

TEST_F(ExternalPresentersTest, AWellBehavedProgramListsItsToolsAndPresentsEachCall) {
  auto p = Start("ok");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ((*p)->presenters().Names(), std::vector<std::string>{"greet"});
  const auto out = Greet(**p);
  ASSERT_EQ(out.how, Presented::kView) << out.detail;
  EXPECT_EQ(out.view->Find("title")->as_string(), "hello");
  const presenters::Content content;
  const auto result = presenters::PresentResultOutcome(*(*p)->presenters().Find("greet"),
                                                       Value::MakeObject({{"who", "Ada"}}), {content, false, nullptr});
  EXPECT_EQ(result.how, Presented::kView);
  EXPECT_EQ((*p)->failures(), 0);
}

TEST_F(ExternalPresentersTest, ANullViewIsNoView) {
  auto p = Start("null");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(Greet(**p).how, Presented::kNone);
}

TEST_F(ExternalPresentersTest, ArgumentsThatFailTheListedSchemaAreNeverSentToTheProgram) {
  auto p = Start("counter");
  ASSERT_TRUE(p.ok()) << p.status().message();
  const auto invalid = presenters::PresentCallOutcome(*(*p)->presenters().Find("greet"), Value::MakeObject({{"who", 7.0}}));
  EXPECT_EQ(invalid.how, Presented::kInvalidArguments);
  // The first question the program gets is this one.
  EXPECT_EQ(Greet(**p).view->Find("title")->as_string(), "answer 1");
}

TEST_F(ExternalPresentersTest, AnErrorAnswerIsThePresenterThrowingAndTheProgramIsKept) {
  auto p = Start("error");
  ASSERT_TRUE(p.ok()) << p.status().message();
  for (int i = 0; i < 5; ++i) {  // never given up: the program itself is fine
    const auto out = Greet(**p);
    EXPECT_EQ(out.how, Presented::kThrew);
    EXPECT_EQ(out.detail, "TypeError: x is undefined");
  }
  EXPECT_EQ((*p)->failures(), 5);
}

TEST_F(ExternalPresentersTest, ACrashSaysHowTheProgramEndedAndItIsGivenUpAfterThreeInARow) {
  auto p = Start("crash");
  ASSERT_TRUE(p.ok()) << p.status().message();
  for (int i = 0; i < 3; ++i) {
    const auto out = Greet(**p);
    EXPECT_EQ(out.how, Presented::kThrew);
    EXPECT_EQ(out.detail, "presenters command presentCall: exited with code 9 (stderr: presenter blew up)");
  }
  const auto after = Greet(**p);
  EXPECT_EQ(after.how, Presented::kThrew);
  EXPECT_EQ(after.detail.rfind("presenters command given up after 3 failures in a row; the last: presentCall: exited", 0), 0)
      << after.detail;
}

TEST_F(ExternalPresentersTest, AHangIsCutAtTheTimeoutAndTheProgramsGroupKilled) {
  auto p = Start("hang", /*timeout_ms=*/300);
  ASSERT_TRUE(p.ok()) << p.status().message();
  const auto started = std::chrono::steady_clock::now();
  const auto out = Greet(**p);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
  EXPECT_EQ(out.how, Presented::kThrew);
  EXPECT_EQ(out.detail, "presenters command presentCall: did not answer within 300 ms");
  EXPECT_TRUE(Gone("30.5")) << "the program's sleep outlived it";
}

TEST_F(ExternalPresentersTest, MalformedAnswersEachFailWithWhatWasWrong) {
  const std::pair<const char*, const char*> cases[] = {
      {"garbage", "presenters command presentCall: answered a line that is not a JSON object: this is not json"},
      {"wrong-id", "presenters command presentCall: answered for another id (asked 1): "
                   "{\"jsonrpc\":\"2.0\",\"id\":999,\"result\":{\"view\":null}}"},
      {"not-object", "presenters command presentCall: answered a view that is not an object: 42"},
  };
  for (const auto& [mode, detail] : cases) {
    auto p = Start(mode);
    ASSERT_TRUE(p.ok()) << p.status().message();
    const auto out = Greet(**p);
    EXPECT_EQ(out.how, Presented::kThrew) << mode;
    EXPECT_EQ(out.detail, detail) << mode;
  }
}

TEST_F(ExternalPresentersTest, AfterAFailureTheProgramIsStartedAgainForTheNextCall) {
  auto p = Start("garbage " + (dir_ / "once"));
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(Greet(**p).how, Presented::kThrew);
  const auto next = Greet(**p);
  EXPECT_EQ(next.how, Presented::kView) << next.detail;
}

TEST_F(ExternalPresentersTest, AProgramThatCannotStartIsAClearError) {
  auto p = Start("exit-at-start");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message(), "presenters command 'sh " + (dir_ / "fake.sh") +
                                      " exit-at-start': initialize: exited with code 3 (stderr: cannot load the packages)");
  auto silent = Start("silent-at-start", /*timeout_ms=*/300);
  ASSERT_FALSE(silent.ok());
  EXPECT_NE(silent.status().message().find("initialize: did not answer within 300 ms"), std::string::npos);
  EXPECT_TRUE(Gone("30.25"));
  auto missing = ExternalPresenters::Start({.command = "/no/such/presenters"});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("exited with code 127"), std::string::npos) << missing.status().message();
}

TEST_F(ExternalPresentersTest, AMalformedToolListIsRefused) {
  auto twice = Start("twice");
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().message().find("the tool greet is listed twice"), std::string::npos);
  auto bad = Start("bad-schema");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("the parameters of greet are not a schema dsh supports: "), std::string::npos)
      << bad.status().message();
}

TEST_F(ExternalPresentersTest, ListedRevisionsWithoutAnOlderSchemaAreRefusedNamingTheRevision) {
  auto gap = Start("revision-gap");
  ASSERT_FALSE(gap.ok());
  EXPECT_NE(gap.status().message().find("tool \"greet\": revision 2 has no parameter schema"), std::string::npos)
      << gap.status().message();
}

TEST_F(ExternalPresentersTest, CallsFromManyThreadsAreAskedOneAtATime) {
  auto p = Start("counter");
  ASSERT_TRUE(p.ok()) << p.status().message();
  std::vector<std::thread> threads;
  std::atomic<int> views{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 25; ++i) views += Greet(**p).how == Presented::kView ? 1 : 0;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(views.load(), 100);
  EXPECT_EQ(Greet(**p).view->Find("title")->as_string(), "answer 101");
}

// Every presentation is asked twice, once per replay: answers that change are caught.
TEST_F(ExternalPresentersTest, AProgramThatAnswersDifferentlyTheSecondTimeIsNondeterministic) {
  ExternalPresentersOptions o;
  o.command = "TOOL=read sh " + (dir_ / "fake.sh") + " counter";
  auto read = ExternalPresenters::Start(o);
  ASSERT_TRUE(read.ok()) << read.status().message();
  CheckOptions check;
  check.presenters = &(*read)->presenters();
  auto report = CheckInputs({retrace::testing::FixturePath("c01-fs-read.jsonl")}, check);
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(report->sessions.size(), 1u);
  std::set<std::string> kinds;
  for (const Divergence& d : report->sessions[0].findings) kinds.insert(FindingName(d.finding));
  EXPECT_EQ(kinds, std::set<std::string>{"nondeterministic"});
}

}  // namespace
}  // namespace retrace::check
