// Code Mode end to end, as `retrace run --tools-mode code` records it: a
// TypeScript program (Node 22) and a Python program (python3) call the
// built-in tools through `tools.<name>(args)`; every sub-call is logged as a
// tool/code-dispatch-start / tool/code-dispatch pair inside the open turn; the
// log loads in the real dsh packages with the session invariant companion, and
// `retrace check` is clean on it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "engine/json/parser.h"
#include "engine/json/writer.h"
#include "tests/test_util.h"

namespace retrace::service {
namespace {

using ::testing::HasSubstr;
using json::Value;
using retrace::testing::Shell;
using retrace::testing::TempDir;
using retrace::testing::WriteFile;

const std::string kRetrace = std::string(RETRACE_BUILD_DIR) + "/cli/retrace";

// A program per language: two parallel reads, a failing write caught as
// ToolCallError, a log line and a returned value.
constexpr char kTypeScript[] =
    "const [a, b] = await Promise.all([tools.read({file_path: 'a.txt'}), tools.grep({pattern: 'TODO', path: 'a.txt'})]);\n"
    "let failed: string = '';\n"
    "try { await tools.write({file_path: 'x.txt'}); } catch (e) { if (e instanceof ToolCallError) failed = `${e.toolName}: ${e.message}`; }\n"
    "console.log('lines', a.totalLines);\n"
    "return {matches: b.matches.length, failed};";
constexpr char kPython[] =
    "import asyncio\n"
    "a, b = await asyncio.gather(tools.read({'file_path': 'a.txt'}), tools.grep({'pattern': 'TODO', 'path': 'a.txt'}))\n"
    "failed = ''\n"
    "try:\n    await tools.write({'file_path': 'x.txt'})\nexcept ToolCallError as e:\n    failed = f'{e.toolName}: {e}'\n"
    "print('lines', a['totalLines'])\n"
    "return {'matches': len(b['matches']), 'failed': failed}";

class CodeModeHostTest : public ::testing::TestWithParam<bool> {
 protected:
  bool python() const { return GetParam(); }
  std::string Db() const { return dir_ / "t.db"; }
  retrace::testing::ShellOutcome Retrace(const std::string& args) {
    return Shell(kRetrace + " --db " + Db() + " " + args + " 2>&1 </dev/null");
  }
  std::vector<Value> Events(const std::string& session) {
    std::vector<Value> out;
    std::istringstream lines(Retrace("events " + session + " --json").out);
    for (std::string line; std::getline(lines, line);) {
      if (auto v = json::Parse(line); v.ok()) out.push_back(*v);
    }
    return out;
  }
  TempDir dir_;
};

TEST_P(CodeModeHostTest, AProgramsToolCallsAreRecordedNestedAndTheLogLoadsInDshAndChecksClean) {
  const std::string upstream = retrace::testing::UpstreamDir({"dsh-session-persistence-jsonl", "dsh-invariants"});
  if (upstream.empty()) {
    GTEST_SKIP() << "Node 22 and the dsh packages are not installed (run bench/setup_upstream.sh); Code Mode's "
                    "TypeScript runtime and the dsh interop check did not run";
  }
  const std::string workspace = dir_ / "ws";
  std::filesystem::create_directories(workspace);
  WriteFile(workspace + "/a.txt", "one\nTODO two\nthree\n");
  Value call = Value::MakeObject({{"code", python() ? kPython : kTypeScript}, {"description", "Count TODO markers"}});
  Value tool_call = Value::MakeObject({{"id", "c1"}, {"name", "run_code"}, {"arguments", call}});
  const std::string script =
      R"({"op":"prompt","text":"count"})" "\n" +
      json::Serialize(Value::MakeObject({{"op", "assistant"}, {"toolCalls", Value(Value::Array{tool_call})}})) + "\n" +
      R"({"op":"assistant","toolCalls":[{"id":"c2","name":"read","arguments":{"file_path":"a.txt"}}]})" "\n" +
      R"({"op":"assistant","text":"Done."})" "\n";
  WriteFile(dir_ / "s.jsonl", script);
  const std::string runtime = python() ? "--code-runtime python"
                                       : "--code-runtime typescript --code-runtime-bin " + upstream + "/node22/package/bin/node";
  auto run = Retrace("run " + dir_ / "s.jsonl" + " --session cm --workspace " + workspace + " --tools-mode code " + runtime +
                     " --code-sandbox none");
  ASSERT_EQ(run.code, 0) << run.out;

  // run_code's result, then the dispatch pairs inside the turn, before it.
  std::vector<Value> events = Events("cm");
  std::vector<std::string> dispatches;
  std::string result_text, direct_text;
  for (const Value& e : events) {
    const std::string& type = e.Find("type")->as_string();
    const Value& data = *e.Find("data");
    if (type == "tool/code-dispatch-start" || type == "tool/code-dispatch") {
      EXPECT_EQ(data.Find("parentCallId")->as_string(), "c1");
      EXPECT_EQ(data.Find("rootCallId")->as_string(), "c1");
      dispatches.push_back(type.substr(5) + " " + data.Find("subCallId")->as_string() + " " + data.Find("name")->as_string() +
                           (data.Find("isError") ? (data.Find("isError")->as_bool() ? " error" : " ok") : ""));
      EXPECT_TRUE(result_text.empty()) << "a dispatch event after run_code's result";
    }
    if (type == "tool/result") {
      const Value& block = data.Find("message")->Find("content")->as_array()[0];
      (result_text.empty() ? result_text : direct_text) = block.Find("content")->as_array()[0].Find("text")->as_string();
    }
  }
  // Numbered in submission order; each start logged before its settlement
  // (the two reads may overlap: their pairs can interleave).
  EXPECT_THAT(dispatches, ::testing::UnorderedElementsAre(
                              "code-dispatch-start c1:code:1 read", "code-dispatch-start c1:code:2 grep",
                              "code-dispatch c1:code:1 read ok", "code-dispatch c1:code:2 grep ok",
                              "code-dispatch-start c1:code:3 write", "code-dispatch c1:code:3 write error"));
  for (size_t i = 0; i < dispatches.size(); ++i) {
    if (dispatches[i].rfind("code-dispatch ", 0) != 0) continue;
    const std::string start = "code-dispatch-start" + dispatches[i].substr(13, dispatches[i].rfind(' ') - 13);
    EXPECT_NE(std::find(dispatches.begin(), dispatches.begin() + static_cast<std::ptrdiff_t>(i), start),
              dispatches.begin() + static_cast<std::ptrdiff_t>(i))
        << dispatches[i] << " before its start";
  }
  EXPECT_EQ(dispatches.back(), "code-dispatch c1:code:3 write error");  // the write waited for the reads
  EXPECT_EQ(result_text, "lines 3\n{\n  \"matches\": 1,\n  \"failed\": \"write: invalid arguments: missing required property \\\"content\\\"\"\n}");
  EXPECT_THAT(direct_text, HasSubstr("only `run_code` is callable directly"));

  // retrace audit counts the sub-calls as calls of their own, with their parent.
  EXPECT_THAT(Retrace("audit failures --session cm --csv").out,
              HasSubstr("cm,c1:code:3,write,plain-error,,\"Error: invalid arguments: missing required property \"\"content\"\"\""));
  EXPECT_THAT(Retrace("audit failures --session cm --csv").out, ::testing::ContainsRegex("c1:code:3,write,.*,c1\r\n"));
  EXPECT_THAT(Retrace("audit tools --session cm --csv").out, HasSubstr("read,2,"));  // c1:code:1 and the direct c2

  // dsh loads it with its invariant companion; check is clean on it.
  ASSERT_EQ(Retrace("export cm --dsh-root " + dir_ / "root").code, 0);
  auto loaded = Shell(upstream + "/node22/package/bin/node " + RETRACE_SOURCE_DIR + "/tests/interop/dsh_load.mjs " + upstream +
                      " " + dir_ / "root" + " cm 2>&1");
  EXPECT_EQ(loaded.code, 0) << loaded.out;
  EXPECT_THAT(loaded.out, HasSubstr("\"tool/code-dispatch\":3"));
  // (check sees from the card snapshots that the session was recorded in Code Mode.)
  auto checked = Retrace("check " + Db());
  EXPECT_EQ(checked.code, 0) << checked.out;
  EXPECT_THAT(checked.out, HasSubstr("0 hard failures, 0 divergences"));
}

TEST_P(CodeModeHostTest, TheSdkInTheMcpInstructionsIsTheOneRetraceSdkPrints) {
  const std::string lang = python() ? "python" : "typescript";
  auto sdk = Shell(kRetrace + " sdk --language " + lang);
  ASSERT_EQ(sdk.code, 0);
  const std::string init =
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})" "\n"
      R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})" "\n";
  WriteFile(dir_ / "in.jsonl", init);
  const std::string upstream = retrace::testing::UpstreamDir({});
  const std::string bin = python() ? "" : " --code-runtime-bin " + (upstream.empty() ? std::string("node") : upstream + "/node22/package/bin/node");
  auto served = Shell(kRetrace + " --db " + Db() + " mcp --workspace " + dir_.path() + " --tools-mode code --code-runtime " +
                      lang + bin + " --code-sandbox none < " + dir_ / "in.jsonl" + " 2>/dev/null");
  if (!python() && upstream.empty()) GTEST_SKIP() << "Node 22 is not installed (bench/setup_upstream.sh)";
  ASSERT_EQ(served.code, 0) << served.out;
  std::istringstream lines(served.out);
  std::string first, second;
  std::getline(lines, first);
  std::getline(lines, second);
  const Value init_result = *json::Parse(first);
  const std::string instructions = init_result.Find("result")->Find("instructions")->as_string();
  EXPECT_THAT(instructions, HasSubstr("`run_code` is the only tool you can call directly"));
  EXPECT_THAT(instructions, ::testing::EndsWith(sdk.out));
  const Value list = *json::Parse(second);
  const Value::Array& tools = list.Find("result")->Find("tools")->as_array();
  ASSERT_EQ(tools.size(), 1u);
  EXPECT_EQ(tools[0].Find("name")->as_string(), "run_code");
}

INSTANTIATE_TEST_SUITE_P(Languages, CodeModeHostTest, ::testing::Values(false, true),
                         [](const auto& p) { return p.param ? "Python" : "TypeScript"; });

}  // namespace
}  // namespace retrace::service

namespace retrace::service {
namespace {

// The same programs, on the same workspace, through upstream dsh-tools with
// its worker-thread runtime and tool packages (tests/interop/code_mode_parity.mjs)
// and through `retrace run --tools-mode code`: the same result text, error
// identity and sub-calls (ids, names, arguments, isError, content). A thrown
// exception's message carries the runtime's own stack, so for those the kind
// is compared (docs/COMPATIBILITY.md).
TEST(CodeModeParityTest, ProgramsGiveUpstreamsResultsAndDispatches) {
  const std::string upstream = retrace::testing::UpstreamDir(
      {"dsh-code-runtime-worker-thread", "dsh-tool-fs", "dsh-fs-local", "dsh-tool-bash", "dsh-bash-local"});
  if (upstream.empty()) {
    GTEST_SKIP() << "Node 22 and the dsh packages are not installed (run bench/setup_upstream.sh); the live Code "
                    "Mode parity check did not run";
  }
  TempDir dir;
  const std::string ws = dir / "ws";
  const std::string reset = dir / "reset.sh";
  // (The directory itself stays: the upstream process works in it.)
  WriteFile(reset, "mkdir -p '" + ws + "' && find '" + ws + "' -mindepth 1 -delete && printf 'one\\nTODO two\\nthree\\n' > '" +
                       ws + "/notes.txt'\n");
  ASSERT_EQ(Shell("sh " + reset).code, 0);
  struct Case {
    const char* name;
    const char* code;
    bool kind_only = false;
  };
  const std::vector<Case> cases = {
      {"read, grep and a log",
       "const a = await tools.read({file_path: 'notes.txt'});\nconst g = await tools.grep({pattern: 'TODO', path: 'notes.txt'});\n"
       "console.log('lines', a.totalLines);\nreturn {a: a.lines.length, m: g.matches.map((m) => m.line)};"},
      {"a failed call caught",
       "try { await tools.read({}); } catch (e) { return [e.name, e.toolName, e.message, e instanceof ToolCallError]; }"},
      {"write then read",
       "await tools.write({file_path: 'out.txt', content: 'hi\\n'});\nreturn (await tools.read({file_path: 'out.txt'})).lines;"},
      {"arguments that are not JSON", "try { await tools.read(undefined); } catch (e) { return e.message; }"},
      {"an unknown binding", "try { await tools.nope({}); } catch (e) { return String(e); }"},
      {"a throw", "console.log('before');\nthrow new Error('boom');", true},
      {"a completion that is not JSON", "return {f: () => 1};"},
      {"parallel calls",
       "const [a, b] = await Promise.all([tools.read({file_path: 'notes.txt'}), tools.glob({pattern: '*.txt'})]);\n"
       "return [a.totalLines, b.paths];"},
      {"bash", "const r = await tools.bash({command: 'echo hi; exit 3', description: 'Say hi'});\nreturn [r.kind, r.exitCode, r.stdout.text];"},
      {"no output", "await tools.read({file_path: 'notes.txt'});"},
      {"an uncaught tool failure", "await tools.edit({file_path: 'notes.txt', old_string: 'zzz', new_string: 'y'});", true},
  };
  Value::Array case_values;
  for (const Case& c : cases) case_values.push_back(Value::MakeObject({{"name", c.name}, {"code", c.code}}));
  WriteFile(dir / "cases.json", json::Serialize(Value(case_values)));
  auto up = Shell(upstream + "/node22/package/bin/node " + RETRACE_SOURCE_DIR + "/tests/interop/code_mode_parity.mjs " +
                  upstream + " " + ws + " " + dir / "cases.json" + " " + reset + " 2>" + dir / "upstream.err");
  ASSERT_EQ(up.code, 0) << up.out << retrace::testing::ReadFile(dir / "upstream.err");
  auto parsed = json::Parse(up.out);
  ASSERT_TRUE(parsed.ok()) << up.out;
  const Value want = *parsed;

  const std::string db = dir / "t.db";
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(cases[i].name);
    ASSERT_EQ(Shell("sh " + reset).code, 0);
    Value call = Value::MakeObject({{"code", cases[i].code}, {"description", cases[i].name}});
    Value tool_call = Value::MakeObject({{"id", "c1"}, {"name", "run_code"}, {"arguments", call}});
    WriteFile(dir / "s.jsonl",
              R"({"op":"prompt","text":"go"})" "\n" +
                  json::Serialize(Value::MakeObject({{"op", "assistant"}, {"toolCalls", Value(Value::Array{tool_call})}})) + "\n");
    const std::string session = "p" + std::to_string(i);
    auto run = Shell(kRetrace + " --db " + db + " run " + dir / "s.jsonl" + " --session " + session + " --workspace " + ws +
                     " --tools-mode code --code-sandbox none --code-runtime-bin " + upstream + "/node22/package/bin/node 2>&1");
    ASSERT_EQ(run.code, 0) << run.out;
    Value::Array subs;
    Value result;
    std::istringstream lines(Shell(kRetrace + " --db " + db + " events " + session + " --json").out);
    for (std::string line; std::getline(lines, line);) {
      const Value e = *json::Parse(line);
      const std::string& type = e.Find("type")->as_string();
      const Value& data = *e.Find("data");
      if (type == "tool/code-dispatch") {
        subs.push_back(Value::MakeObject({{"subCallId", *data.Find("subCallId")},
                                          {"name", *data.Find("name")},
                                          {"arguments", *data.Find("arguments")},
                                          {"isError", *data.Find("isError")},
                                          {"content", *data.Find("content")}}));
      }
      if (type == "tool/result") result = data;
    }
    std::sort(subs.begin(), subs.end(), [](const Value& a, const Value& b) {
      return a.Find("subCallId")->as_string() < b.Find("subCallId")->as_string();
    });
    const Value& w = want.as_array()[i];
    const Value& block = result.Find("message")->Find("content")->as_array()[0];
    const std::string text = block.Find("content")->as_array()[0].Find("text")->as_string();
    EXPECT_EQ(block.Find("isError")->as_bool(), w.Find("isError")->as_bool());
    const std::string want_text = w.Find("text")->as_string();
    if (cases[i].kind_only) {
      const std::string kind = want_text.substr(0, want_text.find("):") + 2);
      EXPECT_THAT(kind, HasSubstr("code run failed ("));
      EXPECT_EQ(text.substr(0, kind.size()), kind);
    } else {
      EXPECT_EQ(text, want_text);
    }
    const Value* error = result.Find("error");
    EXPECT_EQ(error ? json::Serialize(*error) : "null", json::Serialize(*w.Find("error")));
    EXPECT_EQ(json::Serialize(Value(subs)), json::Serialize(*w.Find("subCalls")));
  }
}

}  // namespace
}  // namespace retrace::service
