// `retrace check|replay --presenters-cmd` as a tool author runs them: the
// reference adapter (check/dsh-presenters.mjs) serving the upstream dsh
// tool packages gives the built-in presenters' cards on every fixture, a
// changed upstream presenter is caught, and a broken program gives findings
// that name the calls, in bounded time.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "engine/json/parser.h"
#include "tests/test_util.h"

namespace retrace::testing {
namespace {

namespace fs = std::filesystem;

const std::string kRetrace = std::string(RETRACE_BUILD_DIR) + "/cli/retrace";
const std::string kAdapter = std::string(RETRACE_SOURCE_DIR) + "/check/dsh-presenters.mjs";
const std::string kGolden = std::string(RETRACE_SOURCE_DIR) + "/tests/golden/cards";
// The tool packages of a default deployment, as tests/golden/cards/upstream_cards.mjs registers them.
const char kPackages[] =
    "@deepseek-ai/dsh-tool-fs '@deepseek-ai/dsh-tool-fs-search={\"sampleOverCapGlobResults\":true}' "
    "@deepseek-ai/dsh-tool-bash @deepseek-ai/dsh-tool-web @deepseek-ai/dsh-tool-jobs";

class PresentersCmdTest : public ::testing::Test {
 protected:
  void SetUp() override {
    upstream_ = UpstreamDir({"dsh-tools", "cordis", "dsh-tool-fs", "dsh-tool-fs-search", "dsh-tool-bash",
                             "dsh-tool-web", "dsh-tool-jobs"});
    if (upstream_.empty()) {
      GTEST_SKIP() << "Node 22 and the dsh tool packages are not installed (run bench/setup_upstream.sh)";
    }
  }

  // A script that runs the adapter over `modules`; the command is `sh SCRIPT`.
  std::string AdapterCommand(const std::string& modules) {
    const std::string script = dir_ / "presenters.sh";
    WriteFile(script, "exec " + upstream_ + "/node22/package/bin/node " + kAdapter + " --modules " + modules + " " +
                          kPackages + "\n");
    return "sh " + script;
  }

  std::string upstream_;
  TempDir dir_;
};

std::string Fixtures() {
  std::string all;
  for (const std::string& f : RawFixtures()) all += " " + FixturePath(f);
  return all;
}

// The report of `retrace check --json` over every fixture against the upstream golden cards.
json::Value CheckReport(const std::string& presenters_option) {
  const ShellOutcome r = Shell(kRetrace + " check --json --golden " + kGolden + presenters_option + Fixtures());
  EXPECT_EQ(r.code, 0) << r.out;
  auto report = json::Parse(r.out);
  EXPECT_TRUE(report.ok()) << r.out;
  return report.ok() ? *report : json::Value();
}

// Clean, and the same fallbacks as the built-in presenters: the fixtures'
// deliberately malformed arguments (c06-errors-policy) fit neither schema.
void ExpectSameReportAsTheBuiltInPresenters(const json::Value& external) {
  const json::Value builtin = CheckReport("");
  ASSERT_TRUE(external.is_object());
  EXPECT_TRUE(external.Find("clean")->as_bool());
  EXPECT_EQ(external.Find("sessions")->as_array().size(), RawFixtures().size());
  for (const char* key : {"calls", "hardFailures", "warnings"}) {
    EXPECT_EQ(external.Find(key)->as_number(), builtin.Find(key)->as_number()) << key;
  }
  EXPECT_GT(external.Find("calls")->as_number(), 20);
  for (const auto& s : external.Find("sessions")->as_array()) {
    EXPECT_EQ(s.Find("reference")->as_string(), "compared") << s.Find("source")->as_string();
    for (const auto& f : s.Find("findings")->as_array()) EXPECT_EQ(f.Find("finding")->as_string(), "fallback");
  }
}

TEST_F(PresentersCmdTest, TheDshAdapterIsCleanOnEveryFixtureAgainstTheUpstreamGoldenCards) {
  ExpectSameReportAsTheBuiltInPresenters(
      CheckReport(" --presenters-cmd '" + AdapterCommand(upstream_ + "/node_modules") + "'"));
}

TEST_F(PresentersCmdTest, TheDshAdapterGivesTheBuiltInPresentersCardsByteForByte) {
  const std::string with = " --presenters-cmd '" + AdapterCommand(upstream_ + "/node_modules") + "'";
  for (const std::string& f : RawFixtures()) {
    for (const char* format : {"cards", "transcript"}) {
      const std::string replay = kRetrace + " replay --format " + format + " " + FixturePath(f);
      const ShellOutcome builtin = Shell(replay);
      const ShellOutcome external = Shell(replay + with + " 2>&1");
      ASSERT_EQ(builtin.code, 0) << f;
      ASSERT_EQ(external.code, 0) << f << external.out;
      EXPECT_EQ(external.out, builtin.out) << f << " " << format;
    }
  }
}

// The upstream package as a tool author would change it: `read`'s pending card says "Open".
TEST_F(PresentersCmdTest, AChangedUpstreamPresenterIsReportedAsDiffers) {
  const std::string modules = dir_ / "node_modules";
  fs::create_directories(modules + "/@deepseek-ai");
  for (const auto& entry : fs::directory_iterator(upstream_ + "/node_modules")) {
    if (entry.path().filename() != "@deepseek-ai") fs::create_directory_symlink(entry.path(), modules + "/" + entry.path().filename().string());
  }
  for (const auto& entry : fs::directory_iterator(upstream_ + "/node_modules/@deepseek-ai")) {
    const std::string to = modules + "/@deepseek-ai/" + entry.path().filename().string();
    if (entry.path().filename() == "dsh-tool-fs") {
      fs::copy(entry.path(), to, fs::copy_options::recursive);
    } else {
      fs::create_directory_symlink(entry.path(), to);
    }
  }
  const std::string lib = modules + "/@deepseek-ai/dsh-tool-fs/lib/index.js";
  std::string code = ReadFile(lib);
  const size_t at = code.find("title: `Read ${args.file_path}");
  ASSERT_NE(at, std::string::npos) << "the upstream read presenter changed; update this test";
  code.replace(at, std::string("title: `Read").size(), "title: `Open");
  WriteFile(lib, code);

  const ShellOutcome r = Shell(kRetrace + " check --golden " + kGolden + " --presenters-cmd '" + AdapterCommand(modules) +
                               "' " + FixturePath("c01-fs-read.jsonl"));
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("  differs  seq "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("read  presenter "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"Open "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("threw"), std::string::npos) << r.out;
}

// A TypeScript tool whose arguments changed (tests/check/testdata/dsh-tool-weather.mjs)
// exports its revisions; through the adapter, its revision-1 calls replay to today's cards.
TEST_F(PresentersCmdTest, ATypeScriptToolsRevisionsUpcastItsOldCallsThroughTheAdapter) {
  fs::create_directory_symlink(upstream_ + "/node_modules", dir_ / "node_modules");
  fs::copy_file(std::string(RETRACE_SOURCE_DIR) + "/tests/check/testdata/dsh-tool-weather.mjs", dir_ / "dsh-tool-weather.mjs");
  const std::string script = dir_ / "weather.sh";
  WriteFile(script, "exec " + upstream_ + "/node22/package/bin/node " + kAdapter + " --modules " + (dir_ / "node_modules") +
                        " ./dsh-tool-weather.mjs\n");
  const std::string log = dir_ / "weather.jsonl";
  WriteFile(log,
            R"({"type":"session","version":0,"id":"weather","createdAt":1,"delegationDepth":0})" "\n"
            R"({"type":"turn/start","seq":0,"time":1,"data":{"turn":1}})" "\n"
            R"({"type":"step/start","seq":1,"time":1,"data":{"turn":1,"step":1}})" "\n"
            R"({"type":"tool/call","seq":2,"time":1,"data":{"turn":1,"step":1,"callId":"c1","name":"weather","arguments":"{\"town\":\"Oslo\"}"}})" "\n"
            R"({"type":"tool/result","seq":3,"time":1,"data":{"turn":1,"step":1,"message":{"content":[{"type":"tool-result","toolCallId":"c1","toolName":"weather","content":[{"type":"text","text":"sunny"}]}],"source":{"kind":"tool","callId":"c1"},"role":"user","id":"m1"},"meta":{"temp":21}},"sourceEventSeqs":[2],"surfaceOp":"append"})" "\n"
            R"({"type":"step/end","seq":4,"time":1,"data":{"turn":1,"step":1}})" "\n"
            R"({"type":"turn/end","seq":5,"time":1,"data":{"turn":1,"reason":{"kind":"completed"}}})" "\n");
  const std::string with = " --presenters-cmd 'sh " + script + "' ";
  const ShellOutcome cards = Shell("cd " + dir_.path() + " && " + kRetrace + " replay" + with + log + " 2>&1");
  EXPECT_EQ(cards.code, 0) << cards.out;
  EXPECT_NE(cards.out.find(R"("title":"Weather in Oslo, 21 C")"), std::string::npos) << cards.out;
  EXPECT_NE(cards.out.find(R"("args":{"city":{"name":"Oslo"}})"), std::string::npos) << cards.out;
  const ShellOutcome check = Shell("cd " + dir_.path() + " && " + kRetrace + " check --strict" + with + log + " 2>&1");
  EXPECT_EQ(check.code, 0) << check.out;
  EXPECT_NE(check.out.find("tool weather: 1 at revision 1, 0 recorded, 1 upcast"), std::string::npos) << check.out;
}

// The protocol against itself: the built-in presenters served by
// check/presenter_server.h and asked by check/external_presenters.h.
TEST(PresenterServerTest, TheBuiltInPresentersServedOverTheProtocolGiveTheirOwnCards) {
  const std::string with = " --presenters-cmd " + std::string(RETRACE_BUILD_DIR) + "/tests/retrace_test_presenters";
  for (const std::string& f : RawFixtures()) {
    const std::string replay = kRetrace + " replay " + FixturePath(f);
    const ShellOutcome builtin = Shell(replay);
    const ShellOutcome served = Shell(replay + with + " 2>&1");
    ASSERT_EQ(builtin.code, 0) << f;
    EXPECT_EQ(served.out, builtin.out) << f;
  }
  ExpectSameReportAsTheBuiltInPresenters(CheckReport(with));
}

// A program that never answers a presentation: each call it was asked about is
// a hard finding naming the call, and the check ends in bounded time.
TEST(PresentersCmdHostileTest, AHangingProgramGivesFindingsNamingTheCallsNeverAHungCheck) {
  TempDir dir;
  WriteFile(dir / "hang.sh",
            "while IFS= read -r line; do\n"
            "  id=$(printf '%s' \"$line\" | sed -n 's/^{\"jsonrpc\":\"2.0\",\"id\":\\([0-9]*\\),.*/\\1/p')\n"
            "  case \"$line\" in *initialize*)\n"
            "    printf '{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"tools\":[{\"name\":\"read\",\"parameters\":{\"type\":\"object\"}}]}}\\n' \"$id\" ;;\n"
            "  *) sleep 60 ;; esac\n"
            "done\n");
  const auto started = std::chrono::steady_clock::now();
  const ShellOutcome r = Shell(kRetrace + " check --presenters-timeout 0.3 --presenters-cmd 'sh " + (dir / "hang.sh") +
                               "' " + FixturePath("c01-fs-read.jsonl"));
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(20));
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("threw (hard failure)  seq "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("did not answer within 300 ms"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("given up after 3 failures in a row"), std::string::npos) << r.out;
}

TEST(PresentersCmdHostileTest, AProgramThatCannotStartFailsTheCommandClearly) {
  const ShellOutcome r = Shell(kRetrace + " replay --presenters-cmd 'echo no packages here >&2; exit 4' " +
                               FixturePath("c01-fs-read.jsonl") + " 2>&1");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_EQ(r.out,
            "retrace: presenters command 'echo no packages here >&2; exit 4': initialize: exited with code 4 "
            "(stderr: no packages here)\n");
}

}  // namespace
}  // namespace retrace::testing
