// Whole-process tests of the headless host: sessions recorded by `retrace
// run` (and by the test host, whose test tools reach every pipeline path)
// load in the real dsh packages with the session invariant companion; a
// host killed mid-tool leaves a tool/call without a result, which re-opening
// the session repairs to TOOL_OUTCOME_UNKNOWN.
//
// The dsh checks need Node 22 and the dsh packages (bench/setup_upstream.sh,
// or $RETRACE_UPSTREAM pointing at a directory holding node22/ and
// node_modules/); without them those tests are skipped with the reason.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "store/event_store.h"
#include "tests/test_util.h"

namespace retrace::service {
namespace {

using ::testing::HasSubstr;
using retrace::testing::Shell;
using retrace::testing::TempDir;
using retrace::testing::WriteFile;

const std::string kRetrace = std::string(RETRACE_BUILD_DIR) + "/cli/retrace";
const std::string kTestHost = std::string(RETRACE_BUILD_DIR) + "/tests/retrace_test_script_host";

std::string Upstream() { return retrace::testing::UpstreamDir({"dsh-session-persistence-jsonl", "dsh-invariants"}); }

#define REQUIRE_UPSTREAM(dir)                                                                             \
  const std::string dir = Upstream();                                                                     \
  if (dir.empty()) {                                                                                      \
    GTEST_SKIP() << "Node 22 and the dsh packages are not installed (run bench/setup_upstream.sh, or set " \
                    "RETRACE_UPSTREAM); the dsh interop check did not run";                               \
  }

class HostTest : public ::testing::Test {
 protected:
  std::string Db() const { return dir_ / "t.db"; }
  retrace::testing::ShellOutcome Retrace(const std::string& args) {
    return Shell(kRetrace + " --db " + Db() + " " + args + " 2>&1 </dev/null");
  }
  // Exports `session` into a dsh root and loads it with dsh; returns dsh's report.
  retrace::testing::ShellOutcome LoadInDsh(const std::string& upstream, const std::string& session) {
    const std::string root = dir_ / ("root-" + session);
    EXPECT_EQ(Retrace("export " + session + " --dsh-root " + root).code, 0);
    return Shell(upstream + "/node22/package/bin/node " + RETRACE_SOURCE_DIR + "/tests/interop/dsh_load.mjs " +
                 upstream + " " + root + " " + session + " 2>&1");
  }
  std::string Script(const std::string& name, const std::string& text) {
    WriteFile(dir_ / name, text);
    return dir_ / name;
  }
  TempDir dir_;
};

constexpr char kRichScript[] = R"({"op":"prompt","text":"exercise every path"}
{"op":"assistant","reasoning":"try them all","text":"Running tools.","toolCalls":[{"id":"c1","name":"echo","arguments":"{\"s\":\"hi\"}"},{"id":"c2","name":"echo","arguments":"{\"s\":\"there\"}"},{"id":"c3","name":"sleep","arguments":"{\"ms\":5}"},{"id":"c4","name":"fail","arguments":"{\"message\":\"disk full\"}"},{"id":"c5","name":"echo","arguments":"{\"s\":1}"},{"id":"c6","name":"echo","arguments":"{bad json"},{"id":"c7","name":"deploy","arguments":""},{"id":"c8","name":"note","arguments":"{\"text\":\"remember this\"}"},{"id":"c9","name":"slow","arguments":"{}"},{"id":"c10","name":"echo","arguments":"{\"s\":\"\\ud800\"}"}]}
{"op":"inject","text":"<system-reminder>file changed</system-reminder>","plugin":"file-watch","form":"notice","summary":"file changed"}
{"op":"assistant","text":"Finishing.","toolCalls":[{"id":"c11","name":"finish","arguments":"{}"}]}
{"op":"prompt","text":"now cancel"}
{"op":"cancel","afterCalls":1}
{"op":"assistant","toolCalls":[{"id":"d1","name":"echo","arguments":"{\"s\":\"a\"}"},{"id":"d2","name":"echo","arguments":"{\"s\":\"b\"}"}]}
{"op":"prompt","text":"cancel mid-body"}
{"op":"cancel","afterMs":30}
{"op":"assistant","toolCalls":[{"id":"e1","name":"sleep","arguments":"{\"ms\":10000}"},{"id":"e2","name":"fail","arguments":"{\"message\":\"x\"}"}]}
{"op":"prompt","text":"last"}
{"op":"assistant","text":"All done."}
)";

TEST_F(HostTest, RichScriptRecordsEveryOutcome) {
  ASSERT_EQ(Shell(kTestHost + " " + Db() + " " + Script("rich.jsonl", kRichScript) + " rich 2>&1").code, 0);
  const std::string events = Retrace("events rich").out;
  for (const char* want : {"c4 error\n", "c5 error INVALID_ARGS", "c6 error INVALID_ARGS", "c7 error UNKNOWN_TOOL",
                           "c9 error TOOL_TIMEOUT", "d2 error ABORTED", "e1 error ABORTED",
                           "e2 error ABORTED_BEFORE_DISPATCH", "turn 1 completed", "turn 3 aborted"}) {
    EXPECT_THAT(events, HasSubstr(want));
  }
  // The audit read model classifies each recorded call (docs/AUDIT.md).
  const std::string outcomes = Retrace("query \"SELECT call_id, outcome FROM v_tool_calls ORDER BY call_seq\" --csv").out;
  EXPECT_EQ(outcomes,
            "call_id,outcome\r\nc1,ok\r\nc2,ok\r\nc3,ok\r\nc4,plain-error\r\nc5,error\r\nc6,error\r\nc7,error\r\nc8,ok\r\n"
            "c9,error\r\nc10,ok\r\nc11,ok\r\nd1,ok\r\nd2,aborted\r\ne1,aborted\r\ne2,aborted\r\n");
}

TEST_F(HostTest, RichSessionLoadsInDshWithTheInvariantCompanion) {
  REQUIRE_UPSTREAM(upstream);
  ASSERT_EQ(Shell(kTestHost + " " + Db() + " " + Script("rich.jsonl", kRichScript) + " rich 2>&1").code, 0);
  retrace::testing::ShellOutcome dsh = LoadInDsh(upstream, "rich");
  EXPECT_EQ(dsh.code, 0) << dsh.out;
  EXPECT_THAT(dsh.out, HasSubstr(R"({"events":70,)"));
}

TEST_F(HostTest, RetraceRunSessionLoadsInDsh) {
  REQUIRE_UPSTREAM(upstream);
  const std::string script = Script("s.jsonl", R"({"op":"prompt","text":"list files"}
{"op":"assistant","text":"Looking.","toolCalls":[{"id":"c1","name":"glob","arguments":"{\"pattern\":\"*\"}"},{"id":"c2","name":"present","arguments":"{}"}]}
{"op":"inject","text":"ctx","plugin":"test"}
{"op":"assistant","text":"Done."}
)");
  retrace::testing::ShellOutcome run = Retrace("run " + script + " --session cli-run");
  ASSERT_EQ(run.code, 0) << run.out;
  EXPECT_THAT(run.out, HasSubstr("session cli-run: 1 turn, 2 tool calls (1 failed)"));  // present is not built in
  retrace::testing::ShellOutcome dsh = LoadInDsh(upstream, "cli-run");
  EXPECT_EQ(dsh.code, 0) << dsh.out;
}

TEST_F(HostTest, BadScriptIsRefusedBeforeAnythingIsRecorded) {
  const std::string script = Script("bad.jsonl", "{\"op\":\"prompt\",\"text\":\"x\"}\n{\"op\":\"asistant\"}\n");
  retrace::testing::ShellOutcome run = Retrace("run " + script + " --session s");
  EXPECT_EQ(run.code, 3);
  EXPECT_THAT(run.out, HasSubstr("bad.jsonl:2: unknown op \"asistant\""));
  EXPECT_THAT(Retrace("sessions").out, ::testing::Not(HasSubstr(" s ")));
}

TEST_F(HostTest, AMalformedToolCallIsNamedByItsScriptLine) {
  // Found by fuzz_run_script: a call's own errors once lacked the script and line.
  const std::string script =
      Script("calls.jsonl", "{\"op\":\"prompt\",\"text\":\"x\"}\n{\"op\":\"assistant\",\"toolCalls\":[{\"id\":\"c\"}]}\n");
  retrace::testing::ShellOutcome run = Retrace("run " + script + " --session s");
  EXPECT_EQ(run.code, 3);
  EXPECT_THAT(run.out, HasSubstr("calls.jsonl:2: toolCalls[0]: missing \"name\""));
}

// Starts the test host on `script` in the background; returns its pid.
pid_t Spawn(const std::vector<std::string>& argv) {
  pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  return pid;
}

TEST_F(HostTest, KilledHostLeavesACallThatReopeningRepairsToOutcomeUnknown) {
  const std::string script = Script("slow.jsonl", R"({"op":"prompt","text":"wait"}
{"op":"assistant","toolCalls":[{"id":"c1","name":"echo","arguments":"{\"s\":\"fast\"}"},{"id":"c2","name":"sleep","arguments":"{\"ms\":60000}"}]}
)");
  const pid_t pid = Spawn({kTestHost, Db(), script, "crash"});
  ASSERT_GT(pid, 0);
  // Wait until the fast call's result and the slow call's tool/call are both durable, then kill the
  // host mid-body. The batch runs the two calls side by side, so c2's tool/call can be visible before
  // c1's result: waiting for c2 alone once killed the host before c1 had settled.
  bool started = false;
  for (int i = 0; i < 500 && !started; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    const std::string seen = Retrace("events crash").out;
    started = seen.find("tool/call            sleep c2") != std::string::npos &&
              seen.find("tool/result          c1") != std::string::npos;
  }
  ASSERT_TRUE(started) << Retrace("events crash").out;
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  std::string events = Retrace("events crash").out;
  EXPECT_THAT(events, HasSubstr("tool/result          c1"));
  EXPECT_THAT(events, ::testing::Not(HasSubstr("tool/result          c2")));
  const std::string audit = "audit failures --session crash --csv";
  EXPECT_THAT(Retrace(audit).out, HasSubstr("crash,c2,sleep,missing-result,"));

  // Continuing the session closes the crashed turn first, as dsh's cold load does.
  const std::string next = Script("next.jsonl", R"({"op":"prompt","text":"again"}
{"op":"assistant","text":"ok"}
)");
  retrace::testing::ShellOutcome run = Retrace("run " + next + " --session crash");
  ASSERT_EQ(run.code, 0) << run.out;
  EXPECT_THAT(run.out, HasSubstr("session crash: closed a turn a crash left open (3 events)"));
  events = Retrace("events crash").out;
  EXPECT_THAT(events, HasSubstr("c2 error TOOL_OUTCOME_UNKNOWN"));
  EXPECT_THAT(Retrace(audit).out, HasSubstr("crash,c2,sleep,outcome-unknown,TOOL_OUTCOME_UNKNOWN,"));
  EXPECT_THAT(events, HasSubstr("turn 1 interrupted"));
  EXPECT_THAT(events, HasSubstr("turn 2 completed"));

  const std::string upstream = Upstream();
  if (!upstream.empty()) {
    retrace::testing::ShellOutcome dsh = LoadInDsh(upstream, "crash");
    EXPECT_EQ(dsh.code, 0) << dsh.out;
  }
}

}  // namespace
}  // namespace retrace::service
