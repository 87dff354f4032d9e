// Whole-process tests of `retrace mcp`: the official MCP TypeScript SDK
// client drives it (tests/interop/mcp_client.mjs) and the recorded sessions
// then load in the real dsh packages with the invariant companion, replay
// and pass `retrace check`; raw frames probe the protocol edges (malformed,
// oversized and hostile lines, revisions, end of input, SIGTERM, SIGKILL).
//
// The SDK and dsh checks need Node 22 with the pinned packages
// (bench/setup_upstream.sh, or $RETRACE_UPSTREAM); without them those tests
// are skipped with the reason.
#include <filesystem>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/json/parser.h"
#include "engine/json/value.h"
#include "engine/json/writer.h"
#include "tests/test_util.h"

namespace retrace::mcp {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;
using json::Value;
using retrace::testing::Shell;
using retrace::testing::TempDir;
using retrace::testing::WriteFile;

const std::string kRetrace = std::string(RETRACE_BUILD_DIR) + "/cli/retrace";

std::string Upstream() {
  std::string dir = retrace::testing::UpstreamDir({"dsh-session-persistence-jsonl", "dsh-invariants"});
  if (dir.empty() || !std::filesystem::exists(dir + "/node_modules/@modelcontextprotocol/sdk/package.json")) return "";
  return dir;
}

#define REQUIRE_UPSTREAM(dir)                                                                                  \
  const std::string dir = Upstream();                                                                          \
  if (dir.empty()) {                                                                                           \
    GTEST_SKIP() << "Node 22, the MCP SDK and the dsh packages are not installed (run bench/setup_upstream.sh, " \
                    "or set RETRACE_UPSTREAM); the SDK client test did not run";                               \
  }

class McpTest : public ::testing::Test {
 protected:
  McpTest() { std::filesystem::create_directories(Workspace()); }
  std::string Db() const { return dir_ / "t.db"; }
  std::string Workspace() const { return dir_ / "ws"; }
  retrace::testing::ShellOutcome Retrace(const std::string& args) {
    return Shell(kRetrace + " --db " + Db() + " " + args + " 2>&1 </dev/null");
  }
  // Feeds `lines` to `retrace mcp` (then end of input); returns its exit code and the frames it wrote.
  struct Served {
    int code = -1;
    std::vector<Value> frames;
    std::string raw;
  };
  Served Serve(const std::string& lines, const std::string& flags = "") {
    WriteFile(dir_ / "in.jsonl", lines);
    Served s;
    retrace::testing::ShellOutcome r = Shell(kRetrace + " --db " + Db() + " mcp --workspace " + Workspace() +
                                             " --session s1 " + flags + " <" + (dir_ / "in.jsonl") + " 2>" +
                                             (dir_ / "err.txt"));
    s.code = r.code;
    s.raw = r.out;
    for (const std::string& line : retrace::testing::Lines(r.out)) {
      if (line.empty()) continue;
      Result<Value> v = json::Parse(line);
      EXPECT_TRUE(v.ok()) << "not one JSON frame per line: " << line;
      if (v.ok()) s.frames.push_back(*v);
    }
    return s;
  }
  // The frame answering request `id`, or null.
  static const Value* Answer(const Served& s, int id) {
    for (const Value& f : s.frames) {
      const Value* fid = f.Find("id");
      if (fid && fid->is_number() && fid->as_number() == id) return &f;
    }
    return nullptr;
  }
  static int ErrorCode(const Value& frame) {
    const Value* e = frame.Find("error");
    return e ? static_cast<int>(e->Find("code")->as_number()) : 0;
  }
  // `env` goes before the client's command (e.g. "HOME=/x"); `db` replaces Db().
  retrace::testing::ShellOutcome Client(const std::string& upstream, const std::string& scenario,
                                        const std::string& session, const std::string& env = "",
                                        const std::string& db = "") {
    return Shell(env + " " + upstream + "/node22/package/bin/node " + RETRACE_SOURCE_DIR +
                 "/tests/interop/mcp_client.mjs " + upstream + " " + scenario + " " + kRetrace + " " +
                 (db.empty() ? Db() : db) + " " + Workspace() + " " + session + " 2>&1");
  }
  retrace::testing::ShellOutcome LoadInDsh(const std::string& upstream, const std::string& session) {
    const std::string root = dir_ / ("root-" + session);
    EXPECT_EQ(Retrace("export " + session + " --dsh-root " + root).code, 0);
    return Shell(upstream + "/node22/package/bin/node " + RETRACE_SOURCE_DIR + "/tests/interop/dsh_load.mjs " +
                 upstream + " " + root + " " + session + " 2>&1");
  }
  // The recorded session is a session like any other: dsh loads it, it replays, and it checks clean.
  void ExpectLikeAnyOtherSession(const std::string& upstream, const std::string& session) {
    retrace::testing::ShellOutcome dsh = LoadInDsh(upstream, session);
    EXPECT_EQ(dsh.code, 0) << dsh.out;
    EXPECT_EQ(Retrace("replay " + session + " --format text").code, 0);
    retrace::testing::ShellOutcome check = Retrace("check " + Db());
    EXPECT_EQ(check.code, 0) << check.out;
    EXPECT_THAT(check.out, HasSubstr("0 hard failures, 0 divergences"));
  }
  // Shell text that starts `retrace mcp` on in.jsonl with its input left open, waits
  // until its call is running, and leaves the server's pid in $pid. `globals` go
  // before `mcp` (e.g. " --durability normal").
  std::string RunInBackground(const std::string& flags, const std::string& globals = "") {
    const std::string pidfile = dir_ / "pid";
    return "(cat " + (dir_ / "in.jsonl") + "; sleep 5) | sh -c 'echo $$ > " + pidfile + "; exec " + kRetrace +
           " --db " + Db() + globals + " mcp --workspace " + Workspace() + " --session s1" + flags +
           " 2>/dev/null >/dev/null' & sleep 1; pid=$(cat " + pidfile + ")";
  }
  TempDir dir_;
};

constexpr char kInit[] =
    R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw-test","version":"9"}}})"
    "\n"
    R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
    "\n";

// The handshake, then `n` glob calls with ids 1..n.
std::string GlobCalls(int n) {
  std::string lines = kInit;
  for (int id = 1; id <= n; ++id) {
    lines += R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
             R"(,"method":"tools/call","params":{"name":"glob","arguments":{"pattern":"*"}}})" "\n";
  }
  return lines;
}

// ---- the official SDK client ----

TEST_F(McpTest, SdkClientCallsEveryBuiltinToolAndTheSessionLoadsInDsh) {
  REQUIRE_UPSTREAM(upstream);
  retrace::testing::ShellOutcome run = Client(upstream, "tour", "tour");
  ASSERT_EQ(run.code, 0) << run.out;
  EXPECT_THAT(run.out, HasSubstr(R"("ok":true)"));
  ExpectLikeAnyOtherSession(upstream, "tour");
  const std::string events = Retrace("events tour").out;
  EXPECT_THAT(events, HasSubstr("retrace/mcp-client"));
  // Every tool ran through the pipeline; the refused unknown tool is noted, not called.
  for (const char* tool : {"write", "read", "edit", "glob", "grep", "bash", "web_fetch", "job_output", "job_list",
                           "job_kill"}) {
    EXPECT_THAT(events, ContainsRegex(std::string("tool/call +") + tool + " ")) << tool;
    // Before each tool's first call, the revision of its arguments (presenters/revisions.h).
    EXPECT_THAT(events, ContainsRegex(std::string("retrace/tool-revision +") + tool + " revision 1")) << tool;
  }
  EXPECT_THAT(events, Not(ContainsRegex("tool/call +nope")));
  const std::string notes = Retrace(
      "query \"select json_extract(json,'$.data.outcome') as outcome, count(*) as n from v_events where "
      "type='retrace/mcp-request' group by 1 order by 1\" --csv").out;
  EXPECT_THAT(notes, HasSubstr("error,1"));    // Unknown tool: nope
  EXPECT_THAT(notes, HasSubstr("isError,2"));  // invalid arguments; a path outside the workspace
  EXPECT_THAT(Retrace("audit tools --session tour").out, HasSubstr("bash"));
  // Full-text search finds what the tools returned (the file read back holds "gamma" after the edit).
  EXPECT_THAT(Retrace("search gamma --session tour").out, HasSubstr("tool/result"));
}

TEST_F(McpTest, SdkClientAbortIsRecordedAsAbortedAndGetsNoAnswer) {
  REQUIRE_UPSTREAM(upstream);
  retrace::testing::ShellOutcome run = Client(upstream, "cancel", "cancel");
  ASSERT_EQ(run.code, 0) << run.out;
  ExpectLikeAnyOtherSession(upstream, "cancel");
  EXPECT_THAT(Retrace("events cancel").out, HasSubstr("error ABORTED"));
  EXPECT_THAT(Retrace("query \"select json_extract(json,'$.data.outcome') from v_events where "
                      "type='retrace/mcp-request'\" --csv").out,
              HasSubstr("cancelled"));
}

TEST_F(McpTest, SdkClientGetsProgressForALongCall) {
  REQUIRE_UPSTREAM(upstream);
  retrace::testing::ShellOutcome run = Client(upstream, "progress", "progress");
  ASSERT_EQ(run.code, 0) << run.out;
  ExpectLikeAnyOtherSession(upstream, "progress");
}

TEST_F(McpTest, SdkClientCallsInFlightOverlapInOneStep) {
  REQUIRE_UPSTREAM(upstream);
  retrace::testing::ShellOutcome run = Client(upstream, "overlap", "overlap");
  ASSERT_EQ(run.code, 0) << run.out;
  ExpectLikeAnyOtherSession(upstream, "overlap");
  // Eight web_fetch calls of 300 ms each, all started before the first result: one step.
  const std::string events = Retrace("events overlap").out;
  EXPECT_THAT(events, HasSubstr("turn 1 step 1"));
  EXPECT_THAT(events, Not(HasSubstr("turn 1 step 2")));
}

// ---- the workspace a client means (docs/MCP.md "Workspace") ----

TEST_F(McpTest, SdkClientRootsAreTheWorkspaceAndARootsChangeIsFollowed) {
  REQUIRE_UPSTREAM(upstream);
  for (const char* root : {"a", "b"}) {
    std::filesystem::create_directories(Workspace() + "/" + root);
    WriteFile(Workspace() + "/" + root + "/in.txt", std::string("in ") + root + "\n");
  }
  WriteFile(Workspace() + "/outside.txt", "secret\n");
  retrace::testing::ShellOutcome run = Client(upstream, "roots", "roots");
  ASSERT_EQ(run.code, 0) << run.out;
  EXPECT_TRUE(std::filesystem::exists(Workspace() + "/b/new.txt"));
  EXPECT_FALSE(std::filesystem::exists(Workspace() + "/written.txt"));  // outside both roots
  ExpectLikeAnyOtherSession(upstream, "roots");
  // The session's cwd is the first root the client gave; its title names the client and that root.
  const std::string listed = Retrace("sessions").out;
  EXPECT_THAT(listed, HasSubstr(Workspace() + "/a"));
  EXPECT_THAT(listed, HasSubstr("retrace-sdk-test in a"));
  EXPECT_THAT(Retrace("sessions --json").out, HasSubstr(R"("title":"retrace-sdk-test in a")"));
}

TEST_F(McpTest, SdkClientStartedInRootWithNoRootsIsRefusedAndToldToPassWorkspace) {
  REQUIRE_UPSTREAM(upstream);
  retrace::testing::ShellOutcome run = Client(upstream, "noroots", "noroots");
  ASSERT_EQ(run.code, 0) << run.out;
  // Nothing outside was written, by the file tools or by bash.
  EXPECT_FALSE(std::filesystem::exists(Workspace() + "/x.txt"));
  EXPECT_FALSE(std::filesystem::exists(Workspace() + "/y.txt"));
}

TEST_F(McpTest, SdkClientOnAFreshHomeCreatesTheDatabaseDirectoryOwnerOnly) {
  REQUIRE_UPSTREAM(upstream);
  // docs/MCP.md's snippets record into ~/.retrace/retrace.db; a fresh home has no ~/.retrace/.
  const std::string home = dir_ / "home";
  std::filesystem::create_directories(home);
  const std::string db = home + "/.retrace/retrace.db";
  retrace::testing::ShellOutcome run = Client(upstream, "tour", "fresh", "HOME=" + home, db);
  ASSERT_EQ(run.code, 0) << run.out;
  EXPECT_TRUE(std::filesystem::exists(db));
  EXPECT_EQ(std::filesystem::status(home + "/.retrace").permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_all);
  EXPECT_THAT(Shell("HOME=" + home + " " + kRetrace + " --db " + db + " sessions 2>&1").out, HasSubstr("fresh"));
}

TEST_F(McpTest, SdkClientConnectsToAServerWhoseDatabaseCannotBeOpenedAndSeesWhy) {
  REQUIRE_UPSTREAM(upstream);
  // A directory cannot be created under a regular file.
  WriteFile(dir_ / "file", "");
  retrace::testing::ShellOutcome run = Client(upstream, "unavailable", "u", "", dir_ / "file/sub/t.db");
  ASSERT_EQ(run.code, 0) << run.out;
}

// ---- raw frames ----

TEST_F(McpTest, BadLinesGetTheirErrorsAndTheServerGoesOn) {
  Served s = Serve(std::string(kInit) +
                   "not json\n"
                   "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]\n"
                   "42\n"
                   "{\"jsonrpc\":\"1.0\",\"id\":2,\"method\":\"ping\"}\n"
                   "{\"jsonrpc\":\"2.0\",\"id\":{\"x\":1},\"method\":\"ping\"}\n"
                   "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":[1]}\n"
                   "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"server/discover\"}\n"
                   "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"prompts/list\"}\n"
                   "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":\"nope\"}}\n"
                   "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"arguments\":{}}}\n"
                   "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{\"name\":\"read\",\"arguments\":\"x\"}}\n"
                   "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\",\"params\":{\"cursor\":\"bogus\"}}\n"
                   "\xff\xfe{\n"
                   "{\"jsonrpc\":\"2.0\",\"id\":10,\"result\":{}}\n"
                   "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/whatever\"}\n"
                   "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"ping\"}\n");
  EXPECT_EQ(s.code, 0) << s.raw;
  std::vector<int> anonymous;  // errors that could not name a request
  for (const Value& f : s.frames) {
    if (f.Find("id")->is_null()) anonymous.push_back(ErrorCode(f));
  }
  EXPECT_THAT(anonymous, ::testing::ElementsAre(-32700, -32600, -32600, -32600, -32700));
  ASSERT_NE(Answer(s, 2), nullptr);
  EXPECT_EQ(ErrorCode(*Answer(s, 2)), -32600);  // jsonrpc 1.0
  EXPECT_EQ(ErrorCode(*Answer(s, 3)), -32602);  // params not an object
  EXPECT_EQ(ErrorCode(*Answer(s, 4)), -32601);  // server/discover: a newer client's probe
  EXPECT_EQ(ErrorCode(*Answer(s, 5)), -32601);
  EXPECT_EQ(ErrorCode(*Answer(s, 6)), -32602);
  EXPECT_THAT(json::Serialize(*Answer(s, 6)), HasSubstr("Unknown tool: nope"));
  EXPECT_EQ(ErrorCode(*Answer(s, 7)), -32602);
  EXPECT_EQ(ErrorCode(*Answer(s, 8)), -32602);
  EXPECT_EQ(ErrorCode(*Answer(s, 9)), -32602);
  EXPECT_EQ(Answer(s, 10), nullptr);  // a response to nothing: ignored
  ASSERT_NE(Answer(s, 11), nullptr);
  EXPECT_TRUE(Answer(s, 11)->Find("result")->is_object());
}

TEST_F(McpTest, AnOversizedLineIsDroppedUnbufferedAndAnswered) {
  std::string big = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"pad\":\"" +
                    std::string(3 << 20, 'x') + "\"}}\n";
  Served s = Serve(std::string(kInit) + big + "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n",
                   "--max-frame-bytes 65536");
  EXPECT_EQ(s.code, 0);
  EXPECT_EQ(Answer(s, 1), nullptr);
  bool told = false;
  for (const Value& f : s.frames) {
    told = told || (f.Find("id")->is_null() && ErrorCode(f) == -32600 &&
                    json::Serialize(f).find("65536-byte limit") != std::string::npos);
  }
  EXPECT_TRUE(told) << s.raw.substr(0, 2000);
  ASSERT_NE(Answer(s, 2), nullptr);
}

TEST_F(McpTest, HandshakeEchoesKnownRevisionsAndAnswersOthersWithTheNewest) {
  auto negotiated = [&](const std::string& version) {
    Served s = Serve(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":")" + version +
                     R"(","capabilities":{},"clientInfo":{"name":"v","version":"1"}}})" "\n");
    const Value* a = Answer(s, 0);
    return a ? a->Find("result")->Find("protocolVersion")->as_string() : std::string("no answer");
  };
  EXPECT_EQ(negotiated("2025-11-25"), "2025-11-25");
  EXPECT_EQ(negotiated("2025-06-18"), "2025-06-18");
  EXPECT_EQ(negotiated("2025-03-26"), "2025-03-26");
  EXPECT_EQ(negotiated("2024-11-05"), "2025-11-25");
  EXPECT_EQ(negotiated("1.0.0"), "2025-11-25");
}

TEST_F(McpTest, TheOldestRevisionGetsNoStructuredOutput) {
  WriteFile(Workspace() + "/a.txt", "hi\n");
  Served s = Serve(
      R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"old","version":"1"}}})"
      "\n"
      R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})"
      "\n"
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read","arguments":{"file_path":"a.txt"}}})"
      "\n");
  ASSERT_NE(Answer(s, 1), nullptr);
  const std::string list = json::Serialize(*Answer(s, 1));
  EXPECT_THAT(list, Not(HasSubstr("outputSchema")));
  EXPECT_THAT(list, HasSubstr("readOnlyHint"));
  ASSERT_NE(Answer(s, 2), nullptr);
  EXPECT_THAT(json::Serialize(*Answer(s, 2)), Not(HasSubstr("structuredContent")));
  EXPECT_THAT(json::Serialize(*Answer(s, 2)), HasSubstr("1: hi"));
}

TEST_F(McpTest, EndOfInputFinishesTheCallsInFlightAndClosesTheTurn) {
  Served s = Serve(std::string(kInit) +
                   R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bash","arguments":{"command":"sleep 0.5; echo late","description":"slow"}}})"
                   "\n");
  EXPECT_EQ(s.code, 0);
  ASSERT_NE(Answer(s, 1), nullptr) << s.raw;
  EXPECT_THAT(json::Serialize(*Answer(s, 1)), HasSubstr("late"));
  EXPECT_THAT(Retrace("events s1").out, ContainsRegex("turn/end +turn 1 completed"));
}

TEST_F(McpTest, AClientThatStopsReadingEndsTheSessionLikeEndOfInput) {
  WriteFile(dir_ / "in.jsonl", GlobCalls(300));
  // The reader goes away after 100 bytes: the answers hit a closed pipe (EPIPE, not SIGPIPE).
  retrace::testing::ShellOutcome r = Shell("bash -c '" + kRetrace + " --db " + Db() + " mcp --workspace " + Workspace() +
                                           " --session s1 <" + (dir_ / "in.jsonl") +
                                           " 2>/dev/null | head -c 100 >/dev/null; echo rc=${PIPESTATUS[0]}'");
  EXPECT_THAT(r.out, HasSubstr("rc=0"));
  EXPECT_THAT(Retrace("events s1").out, ContainsRegex("turn/end +turn 1 completed"));
}

TEST_F(McpTest, AConnectionThatCallsNoToolRecordsNothing) {
  Served s = Serve(std::string(kInit) + R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})" "\n");
  EXPECT_EQ(s.code, 0);
  ASSERT_NE(Answer(s, 1), nullptr);
  // A listed session's line starts with its id. (Not "s1" anywhere: the
  // message about a missing database names the temporary directory, whose
  // random name holds "s1" about once in 800 runs.)
  EXPECT_THAT(Retrace("sessions").out, Not(::testing::ContainsRegex("(^|\n)s1 ")));
}

TEST_F(McpTest, SigtermAbortsCallsPastTheGraceAndRecordsThem) {
  WriteFile(dir_ / "in.jsonl", std::string(kInit) +
                                   R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bash","arguments":{"command":"sleep 30","description":"long"}}})"
                                   "\n");
  // Input stays open (the sleep) while the server gets SIGTERM.
  retrace::testing::ShellOutcome r = Shell(RunInBackground(" --shutdown-grace 0.3") +
                                           "; kill -TERM $pid; start=$(date +%s); wait $pid; "
                                           "echo \"exit=$? took=$(( $(date +%s) - start ))\"");
  EXPECT_THAT(r.out, HasSubstr("exit=0"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("took=[0-4]\n"));
  const std::string events = Retrace("events s1").out;
  EXPECT_THAT(events, HasSubstr("error ABORTED"));
  EXPECT_THAT(events, ContainsRegex("turn/end +turn 1 aborted"));
}

TEST_F(McpTest, TheServersThreadsAreNamedForTopPerfAndGdb) {
  WriteFile(dir_ / "in.jsonl", std::string(kInit) +
                                   R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"glob","arguments":{"pattern":"*"}}})"
                                   "\n"
                                   R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bash","arguments":{"command":"sleep 30","description":"long"}}})"
                                   "\n");
  const retrace::testing::ShellOutcome names =
      Shell(RunInBackground("", " --durability normal") + "; cat /proc/$pid/task/*/comm | sort -u | tr '\\n' ' '; kill -KILL $pid; wait $pid");
  for (const char* name : {"retrace ", "retrace-body ", "retrace-fold "}) {
    EXPECT_THAT(" " + names.out, HasSubstr(std::string(" ") + name)) << names.out;
  }
}

TEST_F(McpTest, SigkillLeavesACrashThatTheNextConnectionRepairs) {
  WriteFile(dir_ / "in.jsonl", std::string(kInit) +
                                   R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bash","arguments":{"command":"sleep 30","description":"long"}}})"
                                   "\n");
  Shell(RunInBackground("") + "; kill -KILL $pid; wait $pid");
  EXPECT_THAT(Retrace("events s1").out, Not(HasSubstr("turn/end")));
  Served s = Serve(std::string(kInit) +
                   R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"glob","arguments":{"pattern":"*"}}})"
                   "\n");
  ASSERT_NE(Answer(s, 1), nullptr);
  const std::string events = Retrace("events s1").out;
  EXPECT_THAT(events, HasSubstr("TOOL_OUTCOME_UNKNOWN"));
  EXPECT_THAT(events, HasSubstr("turn 2"));
  EXPECT_THAT(retrace::testing::ReadFile(dir_ / "err.txt"), HasSubstr("closed a turn a crash left open"));
}

// Shell: waits (up to 10 s) until process $pid is gone. SIGKILL is delivered
// after kill(1) returns, and a process not our child cannot be waited for.
// Until its last thread has exited it holds its journal's lock (the leader
// may show as a zombie before that), and an open leaves a live journal alone;
// its parent, a shell, reaps it at once.
constexpr char kUntilGone[] = "for i in $(seq 1000); do kill -0 $pid 2>/dev/null || break; sleep 0.01; done";

TEST_F(McpTest, AtNormalDurabilityEveryAnsweredCallSurvivesSigkill) {
  WriteFile(dir_ / "in.jsonl", GlobCalls(3));
  const std::string pidfile = dir_ / "pid", out = dir_ / "out.txt";
  // The answers are out (the calls acknowledged), then the server is killed
  // before it could fold its journal into the database, or while it does.
  Shell("{ (cat " + (dir_ / "in.jsonl") + "; sleep 5) | sh -c 'echo $$ > " + pidfile + "; exec " + kRetrace +
        " --db " + Db() + " --durability normal mcp --workspace " + Workspace() + " --session s1 >" + out +
        " 2>/dev/null'; } >/dev/null 2>&1 & for i in $(seq 100); do grep -q '\"id\":3' " + out +
        " 2>/dev/null && break; sleep 0.05; done; pid=$(cat " + pidfile + "); kill -KILL $pid; " + kUntilGone);
  ASSERT_THAT(retrace::testing::ReadFile(out), HasSubstr(R"("id":3)"));
  const std::string events = Retrace("events s1").out;  // the open folds what the journal holds
  size_t results = 0;
  for (size_t at = events.find("tool/result"); at != std::string::npos; at = events.find("tool/result", at + 1)) ++results;
  EXPECT_EQ(results, 3u) << events;
  for (const auto& e : std::filesystem::directory_iterator(dir_.path())) {
    EXPECT_EQ(e.path().filename().string().find("-appends-"), std::string::npos) << "a journal was left: " << e.path();
  }
}

}  // namespace
}  // namespace retrace::mcp
