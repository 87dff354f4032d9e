// The built-in tools: workspace confinement, and parity with the upstream dsh
// tool packages executed for real on the same workspace (when Node 22 and the
// dsh packages are installed): dsh-tool-fs for read/write/edit,
// dsh-tool-fs-search for glob/grep, dsh-tool-bash and dsh-tool-jobs for
// bash and the job tools.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <regex>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/json/parser.h"
#include "engine/json/writer.h"
#include "engine/runtime/tool_runtime.h"
#include "tests/runtime/runtime_test_util.h"
#include "tests/test_util.h"
#include "presenters/reference_tools.h"
#include "tools/builtin_tools.h"
#include "tools/read_tool.h"
#include "tools/write_tool.h"

namespace retrace::tools {
namespace {

using json::Value;
using ::testing::HasSubstr;
using retrace::testing::TempDir;
using retrace::testing::WriteFile;

extern "C" char** environ;

std::vector<std::string> Environment() {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  return env;
}

class BuiltinToolsTest : public ::testing::Test {
 protected:
  BuiltinToolsTest() {
    root_ = std::filesystem::canonical(dir_.path()).string() + "/ws";
    Populate();
    workspace_ = std::move(Workspace::Open(root_)).value();
    jobs_ = std::make_shared<JobRegistry>([] { return int64_t{1000}; });
    ToolHost host{.workspace = *workspace_, .environment = Environment(), .spill_dir = dir_ / "spill", .jobs = jobs_};
    // The parity checks run the ripgrep build upstream ships, so that its error texts (which
    // differ between ripgrep releases) cannot mask a difference in the tools themselves.
    const std::string upstream = retrace::testing::UpstreamDir({"dsh-tool-fs-search"});
    const std::string packaged_rg = upstream + "/node_modules/@vscode/ripgrep-linux-x64/bin/rg";
    if (!upstream.empty() && access(packaged_rg.c_str(), X_OK) == 0) host.ripgrep = packaged_rg;
    std::vector<runtime::ToolDefinitionPtr> tools = std::move(BuiltinTools(host)).value();
    for (auto& def : tools) regs_.push_back(runtime::testing::MustRegister(rt_, def));
  }
  ~BuiltinToolsTest() override { jobs_->Close(); }

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
    // For the search tools: VCS metadata to exclude, an over-cap tree, an over-cap match list.
    WriteFile(root_ + "/.git/config", "[core]\n");
    for (const char* top : {"alpha", "beta", "gamma"}) {
      for (int i = 0; i < 50; ++i) WriteFile(root_ + "/many/" + top + "/f" + std::to_string(i) + ".log", "entry\n");
    }
    WriteFile(root_ + "/one/only.log", "entry\n");
    std::string matches;
    for (int i = 1; i <= 300; ++i) matches += "match " + std::to_string(i) + "\n";
    WriteFile(root_ + "/matches.txt", matches);
    // ripgrep sorts by modification time: give every file its own, in path order,
    // so both implementations see the same order however fast the files were written.
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::recursive_directory_iterator(root_)) {
      if (e.is_regular_file() && !e.is_symlink()) files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    const auto base = std::filesystem::file_time_type::clock::now() - std::chrono::hours(1);
    for (size_t i = 0; i < files.size(); ++i) std::filesystem::last_write_time(files[i], base + std::chrono::seconds(i));
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

  // ripgrep searches files on several threads, so the order of a grep's file
  // groups varies from run to run, on both sides. Sorts the groups by path in
  // the meta, the result card and the text body, so only the content compares.
  static void SortGrepGroups(Value& record) {
    auto by_path = [](const Value& a, const Value& b) {
      return a.Find("path")->as_string() < b.Find("path")->as_string();
    };
    for (const char* key : {"meta", "result"}) {
      Value* files = record.Find(key) && record.Find(key)->is_object() ? record.Find(key)->Find("files") : nullptr;
      if (files && files->is_array()) std::sort(files->as_array().begin(), files->as_array().end(), by_path);
    }
    Value* content = record.Find("content");
    if (!content || !content->is_array() || content->as_array().empty()) return;
    Value* text = content->as_array()[0].Find("text");
    if (!text || !text->is_string()) return;
    // HEADER\n\nGROUP\n\nGROUP[\n\n(RECOVERY)]: groups start with a path line.
    std::vector<std::string> parts;
    const std::string& s = text->as_string();
    for (size_t start = 0;;) {
      const size_t end = s.find("\n\n", start);
      parts.push_back(s.substr(start, end == std::string::npos ? std::string::npos : end - start));
      if (end == std::string::npos) break;
      start = end + 2;
    }
    const auto first = parts.begin() + 1;
    auto last = parts.end();
    if (parts.size() > 1 && parts.back().rfind("(", 0) == 0) --last;
    if (first < last) std::sort(first, last);
    std::string joined;
    for (size_t i = 0; i < parts.size(); ++i) joined += (i ? "\n\n" : "") + parts[i];
    *text = Value(std::move(joined));
  }

  // Runs `cases` ({name, tool, args}) here, then on a fresh copy of the
  // workspace through the upstream packages (tests/interop/tool_parity.mjs),
  // and expects the same record and cards for each, except where `exempt`
  // (which may check the difference itself) says so. Spill file names are
  // random on both sides and compared as <spill>.
  void ExpectParityWithUpstream(const std::string& upstream, const Value& cases,
                                const std::function<bool(const Value&)>& exempt = nullptr) {
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
    Value upstream_results = json::Parse(theirs.out).value();
    ASSERT_EQ(upstream_results.as_array().size(), ours.size());
    static const std::regex spill(R"([^" ,\\]*(dsh-subprocess|retrace)-[0-9]+-[0-9]+-[0-9a-f]+-(stdout|stderr)\.log)");
    auto normalized = [](const Value& v) { return std::regex_replace(json::Serialize(v), spill, "<spill>"); };
    ASSERT_FALSE(ours.empty()) << "no parity cases";
    size_t compared = 0;
    for (size_t i = 0; i < ours.size(); ++i) {
      if (exempt && exempt(ours[i])) continue;
      ++compared;
      if (cases.as_array()[i].Find("tool")->as_string() == "grep") {
        SortGrepGroups(ours[i]);
        SortGrepGroups(upstream_results.as_array()[i]);
      }
      EXPECT_EQ(normalized(ours[i]), normalized(upstream_results.as_array()[i]));
    }
    EXPECT_GT(compared, ours.size() / 2) << "most cases were exempted from the comparison";
  }

  std::string Text(const Value& args) {
    return runtime::testing::Text(*runtime::testing::Exec(rt_, runtime::testing::Call("read", args)));
  }

  TempDir dir_;
  std::string root_;
  std::optional<Workspace> workspace_;
  std::shared_ptr<JobRegistry> jobs_;
  runtime::ToolRuntime rt_{runtime::RuntimeOptions{.blocking_threads = 1}};
  std::vector<runtime::Registration> regs_;
};

Value Args(std::initializer_list<Value::Member> m) { return Value::MakeObject(m); }

std::string Code(const Value& observed) {
  const Value* error = observed.Find("error");
  return error && error->is_object() ? error->Find("code")->as_string() : "";
}

// One route from a tool to its presenters: every built-in tool carries the
// reference tool's presenter itself (the object replay uses), so the
// registry's presenter set is the reference set, tool for tool.
TEST_F(BuiltinToolsTest, EachBuiltinToolPresentsWithTheReferencePresenterReplayUses) {
  const presenters::PresenterSet registered = rt_.registry().Presenters();
  std::vector<std::string> names = registered.Names();
  std::vector<std::string> expected = presenters::ReferencePresenters().Names();
  std::erase(expected, "web_search");  // presented on replay, but it has no provider to run
  EXPECT_EQ(names, expected);
  for (const std::string& name : names) {
    EXPECT_EQ(registered.Find(name), presenters::ReferencePresenters().Find(name)) << name;
  }
}

TEST_F(BuiltinToolsTest, PathsThatLeaveTheWorkspaceAreRefused) {
  EXPECT_EQ(Text(Args({{"file_path", "../outside.txt"}})),
            "Error: cannot read \"" + dir_.path() + "/outside.txt\": outside the workspace \"" + root_ + "\"");
  EXPECT_THAT(Text(Args({{"file_path", dir_ / "outside.txt"}})), HasSubstr("outside the workspace"));
  EXPECT_THAT(Text(Args({{"file_path", "/etc/passwd"}})), HasSubstr("outside the workspace"));
  EXPECT_THAT(Text(Args({{"file_path", "escape.txt"}})), HasSubstr("outside the workspace"));  // a symlink out
  EXPECT_THAT(Text(Args({{"file_path", "src/../a.txt"}})), HasSubstr("1: line one"));           // `..` that stays in
  EXPECT_THAT(Text(Args({{"file_path", "alias.txt"}})), HasSubstr("1: line one"));              // a symlink that stays in
}

TEST_F(BuiltinToolsTest, ReadNamesWhatIsNotAFileAndReadsLargeFilesOnThePool) {
  ASSERT_EQ(::mkfifo((root_ + "/fifo").c_str(), 0600), 0);  // neither open nor read may wait for a writer
  EXPECT_EQ(Text(Args({{"file_path", "fifo"}})), "Error: cannot read \"" + root_ + "/fifo\": not a regular file");
  EXPECT_EQ(Text(Args({{"file_path", "src"}})), "Error: cannot read \"" + root_ + "/src\": not a regular file");
  EXPECT_EQ(Text(Args({{"file_path", "nope.txt"}})), "Error: cannot read \"" + root_ + "/nope.txt\": not found");
  // Over the brief read's 1 MiB: the body declines on the caller's thread and runs on the pool.
  std::string huge;
  for (int i = 1; i <= 40000; ++i) huge += "line " + std::to_string(i) + " " + std::string(40, 'h') + "\n";
  ASSERT_GT(huge.size(), size_t{1} << 20);
  WriteFile(root_ + "/huge.txt", huge);
  const std::string text = Text(Args({{"file_path", "huge.txt"}, {"offset", 39999}}));
  EXPECT_THAT(text, HasSubstr("39999: line 39999 h"));
  EXPECT_THAT(text, HasSubstr("(End of file - total 40000 lines)"));
}

TEST_F(BuiltinToolsTest, AWriteOverTheBriefLimitIsWrittenOnThePool) {
  const std::string huge(BriefWrites::kMaxBytes + 1, 'h');
  const runtime::ToolResultPtr r = runtime::testing::Exec(
      rt_, runtime::testing::Call("write", Args({{"file_path", "huge.txt"}, {"content", huge}})));
  ASSERT_FALSE(r->is_error) << runtime::testing::Text(*r);
  EXPECT_EQ(retrace::testing::ReadFile(root_ + "/huge.txt"), huge);
}

TEST_F(BuiltinToolsTest, AWriteThroughASymlinkReplacesItsTargetAndKeepsTheLink) {
  // alias.txt -> a.txt: the common case's one open declines a link, Resolve() follows it.
  const runtime::ToolResultPtr r = runtime::testing::Exec(
      rt_, runtime::testing::Call("write", Args({{"file_path", "alias.txt"}, {"content", "through the link\n"}})));
  ASSERT_FALSE(r->is_error) << runtime::testing::Text(*r);
  EXPECT_TRUE(std::filesystem::is_symlink(root_ + "/alias.txt"));
  EXPECT_EQ(retrace::testing::ReadFile(root_ + "/a.txt"), "through the link\n");
  EXPECT_EQ(r->meta->Find("diffs")->as_array().size(), 1U);  // the target's old text was the diff basis
}

TEST_F(BuiltinToolsTest, AReplacedFileKeepsItsModeAndANewFilesDirectoriesAreMade) {
  ASSERT_EQ(::chmod((root_ + "/a.txt").c_str(), 0640), 0);
  const runtime::ToolResultPtr replaced = runtime::testing::Exec(
      rt_, runtime::testing::Call("write", Args({{"file_path", "a.txt"}, {"content", "replaced\n"}})));
  ASSERT_FALSE(replaced->is_error) << runtime::testing::Text(*replaced);
  struct stat st;
  ASSERT_EQ(::stat((root_ + "/a.txt").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640U);
  const runtime::ToolResultPtr created = runtime::testing::Exec(
      rt_, runtime::testing::Call("write", Args({{"file_path", "new/deeper/c.txt"}, {"content", "made\n"}})));
  ASSERT_FALSE(created->is_error) << runtime::testing::Text(*created);
  EXPECT_EQ(retrace::testing::ReadFile(root_ + "/new/deeper/c.txt"), "made\n");
  EXPECT_THAT(runtime::testing::Text(*created), HasSubstr("Created file"));
}

TEST(BriefWritesTest, ASlowDiskSendsWritesToThePoolUntilItsWritesAreFastAgain) {
  using std::chrono::microseconds;
  using std::chrono::milliseconds;
  BriefWrites brief;
  EXPECT_TRUE(brief.Admit(BriefWrites::kMaxBytes));
  EXPECT_FALSE(brief.Admit(BriefWrites::kMaxBytes + 1));  // large content: the pool
  for (int i = 0; i < 20; ++i) brief.Took(microseconds(250));
  brief.Took(milliseconds(10));  // one slow fsync among fast ones: still brief
  EXPECT_TRUE(brief.Admit(100)) << brief.average().count();
  for (int i = 0; i < 5; ++i) brief.Took(milliseconds(10));  // a slow disk
  EXPECT_FALSE(brief.Admit(100)) << brief.average().count();
  int fast = 0;
  while (!brief.Admit(100) && fast < 100) {
    brief.Took(microseconds(250));  // the pool's writes are timed too
    ++fast;
  }
  EXPECT_GT(fast, 3);  // not at the first fast write
  EXPECT_LT(fast, 20);
}

TEST(LangFromPathTest, MatchesDshsTable) {
  EXPECT_EQ(LangFromPath("/w/a.TS"), "ts");
  EXPECT_EQ(LangFromPath("x/.gitignore"), "");
  EXPECT_EQ(LangFromPath("x/Makefile"), "");
  EXPECT_EQ(LangFromPath("c:\\x\\y.hpp"), "cpp");
}

TEST_F(BuiltinToolsTest, SameResultsAndCardsAsUpstreamOnTheSameWorkspace) {
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
  ExpectParityWithUpstream(upstream, cases, [](const Value& ours) {
    if (ours.Find("name")->as_string() != "edit outside") return false;
    // retrace confines the tools to the workspace; upstream's local filesystem does not
    // (docs/COMPATIBILITY.md). Here the only expected difference is the refusal.
    EXPECT_EQ(Code(ours), "FS_OUTSIDE_WORKSPACE");
    return true;
  });
}

TEST_F(BuiltinToolsTest, SearchToolsGiveTheSameResultsAndCardsAsUpstream) {
  const std::string upstream = retrace::testing::UpstreamDir({"dsh-tool-fs-search", "dsh-subprocess-local"});
  if (upstream.empty()) GTEST_SKIP() << "Node 22 and the dsh tool packages are not installed; the live parity check did not run";
  const Value cases = json::Parse(R"([
    {"name": "glob basename", "tool": "glob", "args": {"pattern": "*.txt"}},
    {"name": "glob anchored", "tool": "glob", "args": {"pattern": "src/**"}},
    {"name": "glob deep", "tool": "glob", "args": {"pattern": "**/*.py"}},
    {"name": "glob in path", "tool": "glob", "args": {"pattern": "*", "path": "src"}},
    {"name": "glob dotted path", "tool": "glob", "args": {"pattern": "*.py", "path": "./src"}},
    {"name": "glob absolute path", "tool": "glob", "args": {"pattern": "*.py", "path": ")" + root_ + R"(/src"}},
    {"name": "glob hidden, not vcs", "tool": "glob", "args": {"pattern": "*config*"}},
    {"name": "glob dotfile", "tool": "glob", "args": {"pattern": ".gitignore"}},
    {"name": "glob nothing", "tool": "glob", "args": {"pattern": "*.zzz"}},
    {"name": "glob over the cap", "tool": "glob", "args": {"pattern": "*.log"}},
    {"name": "glob over the cap in path", "tool": "glob", "args": {"pattern": "*.log", "path": "many"}},
    {"name": "glob blank", "tool": "glob", "args": {"pattern": "  "}},
    {"name": "glob blank path", "tool": "glob", "args": {"pattern": "*", "path": ""}},
    {"name": "glob missing path", "tool": "glob", "args": {"pattern": "*", "path": "nowhere"}},
    {"name": "glob bad glob", "tool": "glob", "args": {"pattern": "a{b"}},
    {"name": "grep plain", "tool": "grep", "args": {"pattern": "line"}},
    {"name": "grep include", "tool": "grep", "args": {"pattern": "print", "include": "*.py"}},
    {"name": "grep alternation include", "tool": "grep", "args": {"pattern": "line|alpha", "include": "{a,crlf}.txt"}},
    {"name": "grep path", "tool": "grep", "args": {"pattern": "print", "path": "src"}},
    {"name": "grep one match", "tool": "grep", "args": {"pattern": "^gamma$"}},
    {"name": "grep crlf", "tool": "grep", "args": {"pattern": "beta"}},
    {"name": "grep long line", "tool": "grep", "args": {"pattern": "x{20}"}},
    {"name": "grep not utf-8", "tool": "grep", "args": {"pattern": "ok", "path": "bad.bin"}},
    {"name": "grep over the cap", "tool": "grep", "args": {"pattern": "^match"}},
    {"name": "grep nothing", "tool": "grep", "args": {"pattern": "zzzz"}},
    {"name": "grep whitespace pattern", "tool": "grep", "args": {"pattern": " ", "path": "a.txt"}},
    {"name": "grep empty", "tool": "grep", "args": {"pattern": ""}},
    {"name": "grep invalid regex", "tool": "grep", "args": {"pattern": "("}},
    {"name": "grep negated include", "tool": "grep", "args": {"pattern": "a", "include": "!*.ts"}},
    {"name": "grep include list", "tool": "grep", "args": {"pattern": "a", "include": "*.ts,*.js"}},
    {"name": "grep blank include", "tool": "grep", "args": {"pattern": "a", "include": " "}},
    {"name": "grep missing path", "tool": "grep", "args": {"pattern": "a", "path": "nowhere"}}
  ])").value();
  ExpectParityWithUpstream(upstream, cases);
}

TEST_F(BuiltinToolsTest, BashAndJobToolsGiveTheSameResultsAndCardsAsUpstream) {
  const std::string upstream = retrace::testing::UpstreamDir({"dsh-tool-bash", "dsh-bash-local", "dsh-tool-jobs"});
  if (upstream.empty()) GTEST_SKIP() << "Node 22 and the dsh tool packages are not installed; the live parity check did not run";
  const Value cases = json::Parse(R"([
    {"name": "stdout", "tool": "bash", "args": {"command": "echo hi", "description": "Say hi"}},
    {"name": "stderr only", "tool": "bash", "args": {"command": "echo oops >&2", "description": "Complain"}},
    {"name": "both and exit", "tool": "bash", "args": {"command": "printf out; echo err >&2; exit 3", "description": "Fail"}},
    {"name": "no output", "tool": "bash", "args": {"command": "true", "description": "Nothing"}},
    {"name": "no output, exit 1", "tool": "bash", "args": {"command": "false", "description": "Nothing"}},
    {"name": "killed", "tool": "bash", "args": {"command": "echo before; kill -9 $$", "description": "Die"}},
    {"name": "timeout", "tool": "bash", "args": {"command": "echo start; sleep 5", "description": "Wait", "timeoutMs": 300}},
    {"name": "big output", "tool": "bash", "args": {"command": "seq 1 20000", "description": "Count"}},
    {"name": "not utf-8", "tool": "bash", "args": {"command": "printf 'a\\377\\376b\\n'", "description": "Bytes"}},
    {"name": "workdir", "tool": "bash", "args": {"command": "pwd; ls", "description": "Where", "workdir": "src"}},
    {"name": "terminal env", "tool": "bash", "args": {"command": "echo $TERM $NO_COLOR $PAGER $GIT_PAGER $DSH_SHELL", "description": "Env"}},
    {"name": "marker-like output", "tool": "bash", "args": {"command": "echo '[exit code: 4]'", "description": "Mimic"}},
    {"name": "blank command", "tool": "bash", "args": {"command": " ", "description": "x"}},
    {"name": "blank description", "tool": "bash", "args": {"command": "ls", "description": ""}},
    {"name": "bad timeout", "tool": "bash", "args": {"command": "ls", "description": "x", "timeoutMs": -1}},
    {"name": "wrong type", "tool": "bash", "args": {"command": 5, "description": "x"}},
    {"name": "escalation", "tool": "bash", "args": {"command": "ls", "description": "x", "sandbox_permissions": "workspace-write", "justification": "why"}},
    {"name": "background", "tool": "bash", "args": {"command": "echo bg; echo bg-err >&2", "description": "Later", "run_in_background": true}},
    {"name": "wait for it", "tool": "job_output", "args": {"job_id": "bash-1", "wait": true}},
    {"name": "read again", "tool": "job_output", "args": {"job_id": "bash-1"}},
    {"name": "list", "tool": "job_list", "args": {}},
    {"name": "kill finished", "tool": "job_kill", "args": {"job_id": "bash-1"}},
    {"name": "unknown job", "tool": "job_output", "args": {"job_id": "bash-9"}},
    {"name": "blank job id", "tool": "job_kill", "args": {"job_id": " "}},
    {"name": "empty job id", "tool": "job_output", "args": {"job_id": ""}},
    {"name": "bad wait timeout", "tool": "job_output", "args": {"job_id": "bash-1", "wait": true, "timeout_ms": 0}}
  ])").value();
  ExpectParityWithUpstream(upstream, cases);
}

}  // namespace
}  // namespace retrace::tools
