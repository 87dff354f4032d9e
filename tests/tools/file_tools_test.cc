// The built-in file tools (read, write, edit): workspace confinement, and
// parity with upstream dsh-tool-fs executed for real on the same workspace
// (when Node 22 and the dsh packages are installed).
#include <unistd.h>

#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/json/parser.h"
#include "engine/json/writer.h"
#include "engine/runtime/tool_runtime.h"
#include "tests/runtime/runtime_test_util.h"
#include "tests/test_util.h"
#include "tools/builtin_tools.h"
#include "tools/read_tool.h"

namespace retrace::tools {
namespace {

using json::Value;
using ::testing::HasSubstr;
using retrace::testing::TempDir;
using retrace::testing::WriteFile;

class FileToolsTest : public ::testing::Test {
 protected:
  FileToolsTest() {
    root_ = std::filesystem::canonical(dir_.path()).string() + "/ws";
    Populate();
    workspace_ = std::move(Workspace::Open(root_)).value();
    std::vector<runtime::ToolDefinitionPtr> tools = std::move(BuiltinTools(*workspace_)).value();
    for (auto& def : tools) regs_.push_back(runtime::testing::MustRegister(rt_, def));
  }

  // (Re)creates the workspace's files, so both implementations start from the same state.
  void Populate() {
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_ + "/src/deep");
    WriteFile(root_ + "/a.txt", "line one\nline two\n");
    std::string crlf = "alpha\r\nbeta\r\n\r\ngamma";
    WriteFile(root_ + "/crlf.txt", crlf);
    WriteFile(root_ + "/empty.txt", "");
    WriteFile(root_ + "/newline.txt", "\n");
    WriteFile(root_ + "/bom.md", "\xEF\xBB\xBFhello\n");
    WriteFile(root_ + "/bad.bin", "ok\n\xff\xfe\n");
    WriteFile(root_ + "/src/main.py", "print('hi')\n");
    WriteFile(root_ + "/.gitignore", "build/\n");
    std::string long_line(1999, 'x');
    long_line += "\xF0\x9F\x98\x80" + std::string(10, 'y');  // an emoji straddling the 2000-unit cap
    WriteFile(root_ + "/long.ts", long_line + "\n" + std::string(2001, 'z') + "\n");
    std::string big;
    for (int i = 1; i <= 3000; ++i) big += "row " + std::to_string(i) + " " + std::string(30, 'q') + "\n";
    WriteFile(root_ + "/big.txt", big);
    WriteFile(dir_ / "outside.txt", "secret\n");
    std::filesystem::create_symlink(dir_ / "outside.txt", root_ + "/escape.txt");
    std::filesystem::create_symlink(root_ + "/a.txt", root_ + "/alias.txt");
    WriteFile(root_ + "/code.ts", "export function add(a: number, b: number): number {\n  return Math.abs(a) + b\n}\n");
    WriteFile(root_ + "/win.txt", "one\r\ntwo\r\nthree\r\n");
    WriteFile(root_ + "/tail.txt", "first\nsecond\nlast line");
    WriteFile(root_ + "/twice.txt", "x = 1\ny = 2\nx = 1\n");
  }

  // What a session records and shows for one call, as tool_parity.mjs prints it.
  Value Observe(const std::string& name, const std::string& tool, const Value& args) {
    runtime::ToolResultPtr r = runtime::testing::Exec(rt_, runtime::testing::Call(tool, args));
    runtime::ToolDefinitionPtr def = rt_.registry().Get(tool);
    presenters::DurableResult durable{r->content, r->is_error, r->meta ? &*r->meta : nullptr};
    std::optional<Value> pending = def && def->present_call ? def->present_call(args) : std::nullopt;
    std::optional<Value> result = def && def->present_result ? def->present_result(args, durable) : std::nullopt;
    Value error;
    if (r->error && r->error->info) error = Value::MakeObject({{"name", r->error->info->name}, {"code", r->error->info->code}});
    return Value::MakeObject({{"name", name},
                              {"isError", r->is_error},
                              {"content", Value(r->content)},
                              {"error", std::move(error)},
                              {"meta", r->meta ? *r->meta : Value()},
                              {"pending", pending ? *pending : Value()},
                              {"result", result ? *result : Value()}});
  }

  std::string Text(const Value& args) {
    return runtime::testing::Text(*runtime::testing::Exec(rt_, runtime::testing::Call("read", args)));
  }

  TempDir dir_;
  std::string root_;
  std::optional<Workspace> workspace_;
  runtime::ToolRuntime rt_{runtime::RuntimeOptions{.blocking_threads = 1}};
  std::vector<runtime::Registration> regs_;
};

Value Args(std::initializer_list<Value::Member> m) { return Value::MakeObject(m); }

std::string Code(const Value& observed) {
  const Value* error = observed.Find("error");
  return error && error->is_object() ? error->Find("code")->as_string() : "";
}

TEST_F(FileToolsTest, PathsThatLeaveTheWorkspaceAreRefused) {
  EXPECT_EQ(Text(Args({{"file_path", "../outside.txt"}})),
            "Error: cannot read \"" + dir_.path() + "/outside.txt\": outside the workspace \"" + root_ + "\"");
  EXPECT_THAT(Text(Args({{"file_path", dir_ / "outside.txt"}})), HasSubstr("outside the workspace"));
  EXPECT_THAT(Text(Args({{"file_path", "/etc/passwd"}})), HasSubstr("outside the workspace"));
  EXPECT_THAT(Text(Args({{"file_path", "escape.txt"}})), HasSubstr("outside the workspace"));  // a symlink out
  EXPECT_THAT(Text(Args({{"file_path", "src/../a.txt"}})), HasSubstr("1: line one"));           // `..` that stays in
  EXPECT_THAT(Text(Args({{"file_path", "alias.txt"}})), HasSubstr("1: line one"));              // a symlink that stays in
}

TEST(LangFromPathTest, MatchesDshsTable) {
  EXPECT_EQ(LangFromPath("/w/a.TS"), "ts");
  EXPECT_EQ(LangFromPath("x/.gitignore"), "");
  EXPECT_EQ(LangFromPath("x/Makefile"), "");
  EXPECT_EQ(LangFromPath("c:\\x\\y.hpp"), "cpp");
}

TEST_F(FileToolsTest, SameResultsAndCardsAsUpstreamOnTheSameWorkspace) {
  const std::string upstream = retrace::testing::UpstreamDir({"dsh-fs-local", "dsh-tool-fs"});
  if (upstream.empty()) {
    GTEST_SKIP() << "Node 22 and the dsh tool packages are not installed (run bench/setup_upstream.sh, or set "
                    "RETRACE_UPSTREAM); the live parity check did not run";
  }
  const Value cases = json::Parse(R"([
    {"name": "whole file", "tool": "read", "args": {"file_path": "a.txt"}},
    {"name": "absolute path", "tool": "read", "args": {"file_path": ")" + root_ + R"(/a.txt"}},
    {"name": "window", "tool": "read", "args": {"file_path": "big.txt", "offset": 10, "limit": 5}},
    {"name": "from line", "tool": "read", "args": {"file_path": "big.txt", "offset": 2990}},
    {"name": "byte cap", "tool": "read", "args": {"file_path": "big.txt"}},
    {"name": "offset past the end", "tool": "read", "args": {"file_path": "a.txt", "offset": 5}},
    {"name": "limit over the cap", "tool": "read", "args": {"file_path": "a.txt", "limit": 2001}},
    {"name": "fractional offset", "tool": "read", "args": {"file_path": "a.txt", "offset": 1.5}},
    {"name": "negative limit", "tool": "read", "args": {"file_path": "a.txt", "limit": -3}},
    {"name": "blank path", "tool": "read", "args": {"file_path": " \u00a0 "}},
    {"name": "wrong type", "tool": "read", "args": {"file_path": 7}},
    {"name": "missing", "tool": "read", "args": {"file_path": "nope.txt"}},
    {"name": "directory", "tool": "read", "args": {"file_path": "src"}},
    {"name": "crlf lines", "tool": "read", "args": {"file_path": "crlf.txt"}},
    {"name": "empty file", "tool": "read", "args": {"file_path": "empty.txt"}},
    {"name": "empty file offset 2", "tool": "read", "args": {"file_path": "empty.txt", "offset": 2}},
    {"name": "lone newline", "tool": "read", "args": {"file_path": "newline.txt"}},
    {"name": "bom", "tool": "read", "args": {"file_path": "bom.md"}},
    {"name": "not utf-8", "tool": "read", "args": {"file_path": "bad.bin"}},
    {"name": "long lines", "tool": "read", "args": {"file_path": "long.ts"}},
    {"name": "nested python", "tool": "read", "args": {"file_path": "src/main.py", "limit": 1}},
    {"name": "dotfile", "tool": "read", "args": {"file_path": ".gitignore"}},
    {"name": "dot dot inside", "tool": "read", "args": {"file_path": "src/deep/../../a.txt"}},
    {"name": "write new", "tool": "write", "args": {"file_path": "new.txt", "content": "alpha\nbeta\n"}},
    {"name": "write nested", "tool": "write", "args": {"file_path": "sub/dir/x.md", "content": "# title"}},
    {"name": "write update", "tool": "write", "args": {"file_path": "big.txt", "content": "row 1 replaced\nrow 2\n"}},
    {"name": "write same", "tool": "write", "args": {"file_path": "a.txt", "content": "line one\nline two\n"}},
    {"name": "write update small", "tool": "write", "args": {"file_path": "a.txt", "content": "line one\nline 2\nline three\n"}},
    {"name": "write crlf", "tool": "write", "args": {"file_path": "crlf2.txt", "content": "a\r\nb\r\n"}},
    {"name": "write directory", "tool": "write", "args": {"file_path": "src", "content": "x"}},
    {"name": "write blank path", "tool": "write", "args": {"file_path": "  ", "content": "x"}},
    {"name": "write escalation alone", "tool": "write", "args": {"file_path": "e.txt", "content": "x", "sandbox_permissions": "workspace-write"}},
    {"name": "write justification alone", "tool": "write", "args": {"file_path": "e.txt", "content": "x", "justification": "because"}},
    {"name": "write escalation", "tool": "write", "args": {"file_path": "e.txt", "content": "x", "sandbox_permissions": "workspace-write", "justification": "because"}},
    {"name": "edit one", "tool": "edit", "args": {"file_path": "code.ts", "old_string": "return Math.abs(a) + b", "new_string": "return a + b"}},
    {"name": "read edited", "tool": "read", "args": {"file_path": "code.ts"}},
    {"name": "edit ambiguous", "tool": "edit", "args": {"file_path": "twice.txt", "old_string": "x = 1", "new_string": "x = 3"}},
    {"name": "edit all", "tool": "edit", "args": {"file_path": "twice.txt", "old_string": "x = 1", "new_string": "x = 3", "replace_all": true}},
    {"name": "edit missing text", "tool": "edit", "args": {"file_path": "twice.txt", "old_string": "zzz", "new_string": "q"}},
    {"name": "edit missing file", "tool": "edit", "args": {"file_path": "gone.txt", "old_string": "a", "new_string": "b"}},
    {"name": "edit same strings", "tool": "edit", "args": {"file_path": "a.txt", "old_string": "a", "new_string": "a"}},
    {"name": "edit empty old", "tool": "edit", "args": {"file_path": "a.txt", "old_string": "", "new_string": "b"}},
    {"name": "edit crlf file", "tool": "edit", "args": {"file_path": "win.txt", "old_string": "two\nthree", "new_string": "2\n3\n4"}},
    {"name": "read crlf edited", "tool": "read", "args": {"file_path": "win.txt"}},
    {"name": "edit last line", "tool": "edit", "args": {"file_path": "tail.txt", "old_string": "last line", "new_string": "last line\nmore"}},
    {"name": "edit delete", "tool": "edit", "args": {"file_path": "tail.txt", "old_string": "first\n", "new_string": ""}},
    {"name": "edit not text", "tool": "edit", "args": {"file_path": "bad.bin", "old_string": "ok", "new_string": "no"}},
    {"name": "edit outside", "tool": "edit", "args": {"file_path": "../outside.txt", "old_string": "secret", "new_string": "x"}}
  ])").value();
  Value::Array ours;
  for (const Value& c : cases.as_array()) {
    ours.push_back(Observe(c.Find("name")->as_string(), c.Find("tool")->as_string(), *c.Find("args")));
  }
  WriteFile(dir_ / "cases.json", json::Serialize(cases));
  Populate();  // upstream starts from the same files
  const auto theirs = retrace::testing::Shell(upstream + "/node22/package/bin/node " + RETRACE_SOURCE_DIR +
                                              "/tests/interop/tool_parity.mjs " + upstream + " " + root_ + " " +
                                              dir_ / "cases.json" + " 2>&1");
  ASSERT_EQ(theirs.code, 0) << theirs.out;
  const Value upstream_results = json::Parse(theirs.out).value();
  ASSERT_EQ(upstream_results.as_array().size(), ours.size());
  for (size_t i = 0; i < ours.size(); ++i) {
    const Value& theirs_i = upstream_results.as_array()[i];
    if (ours[i].Find("name")->as_string() == "edit outside") {
      // retrace confines the tools to the workspace; upstream's local filesystem does not
      // (docs/COMPATIBILITY.md). Here the only expected difference is the refusal.
      EXPECT_EQ(Code(ours[i]), "FS_OUTSIDE_WORKSPACE");
      continue;
    }
    EXPECT_EQ(json::Serialize(ours[i]), json::Serialize(theirs_i));
  }
}

}  // namespace
}  // namespace retrace::tools
