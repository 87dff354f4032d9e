// The Code Mode runtimes as a program meets them: real Node and python3
// children, real bubblewrap, real budgets. Each hostile program must end with
// the right failure kind, promptly, and leave no process behind.
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "engine/json/parser.h"
#include "engine/json/writer.h"
#include "tests/test_util.h"
#include "tools/code_runtime.h"

namespace retrace::tools {
namespace {

using ::testing::HasSubstr;
using json::Value;
using schema::SdkLanguage;

std::string NodeBinary() {
  const std::string dir = retrace::testing::UpstreamDir({});
  return dir.empty() ? "" : dir + "/node22/package/bin/node";
}

bool HaveBwrap() { return retrace::testing::Shell("bwrap --ro-bind / / true 2>/dev/null").code == 0; }

// Processes whose command line holds `marker` (a unique sleep length).
int ProcessesWith(const std::string& marker) {
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    // Read with POSIX calls: a process may vanish while it is read.
    const int fd = open((entry.path() / "cmdline").c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    char buf[4096];
    const ssize_t len = read(fd, buf, sizeof buf);
    close(fd);
    if (len > 0 && std::string(buf, static_cast<size_t>(len)).find(marker) != std::string::npos) ++n;
  }
  return n;
}

// A binding namespace `tools` with echo (resolves to its arguments), fail
// (rejects) and later (answers from another thread after 50 ms).
std::vector<CodeBindingNamespace> Tools(std::vector<std::string>* seen = nullptr) {
  CodeBindingNamespace ns{.global = "tools", .functions = {}, .error_class = {{"ToolCallError", "toolName"}}};
  ns.functions.emplace_back("echo", [seen](std::optional<Value> args, BindingReply reply) {
    if (seen != nullptr) seen->push_back(args ? json::Serialize(*args) : "<not lossless>");
    reply(args ? *args : Value("not lossless"));
  });
  ns.functions.emplace_back("fail", [](std::optional<Value>, BindingReply reply) {
    reply(Status::InvalidArgument("invalid arguments: \"s\" must be a string"));
  });
  ns.functions.emplace_back("later", [](std::optional<Value> args, BindingReply reply) {
    std::thread([args, reply] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      reply(args.value_or(Value()));
    }).detach();
  });
  return {ns};
}

class CodeRuntimeTest : public ::testing::TestWithParam<SdkLanguage> {
 protected:
  void SetUp() override {
    if (!python() && NodeBinary().empty()) {
      GTEST_SKIP() << "Node 22 is not installed (run bench/setup_upstream.sh); the TypeScript runtime did not run";
    }
  }
  bool python() const { return GetParam() == SdkLanguage::kPython; }

  // A runtime for this test's language; skips when its interpreter is missing.
  std::unique_ptr<CodeRuntime> Runtime(CodeSandbox sandbox = CodeSandbox::kNone,
                                       const std::function<void(CodeRuntimeOptions&)>& tweak = nullptr) {
    CodeRuntimeOptions o;
    o.language = GetParam();
    o.interpreter = python() ? "python3" : NodeBinary();
    o.sandbox = sandbox;
    o.workspace = dir_.path();
    if (tweak) tweak(o);
    auto rt = CodeRuntime::Create(o);
    EXPECT_TRUE(rt.ok()) << rt.status().message();
    return rt.ok() ? std::move(*rt) : nullptr;
  }

  // The program in this test's language.
  const std::string& Pick(const std::string& ts, const std::string& py) const { return python() ? py : ts; }

  retrace::testing::TempDir dir_;
};

std::string Kind(const CodeRunResult& r) { return r.error ? r.error->kind : "ok"; }

TEST_P(CodeRuntimeTest, AProgramReturnsItsValueAndItsLogsInOrder) {
  auto rt = Runtime();
  ASSERT_NE(rt, nullptr);
  const CodeRunResult r = rt->Run(Pick("console.log('hi', {a: 1}); process.stdout.write('raw'); const n: number = 2;\n"
                                       "return {x: [1, n], s: 'ü'};",
                                       "print('hi', 1)\nimport sys\nsys.stdout.write('raw')\nn: int = 2\n"
                                       "return {'x': [1, n], 's': 'ü'}"),
                                  {});
  ASSERT_FALSE(r.error) << r.error->kind << ": " << r.error->message;
  EXPECT_EQ(json::Serialize(*r.value), R"({"x":[1,2],"s":"ü"})");
  EXPECT_THAT(r.logs, ::testing::ElementsAre(python() ? "hi 1" : "hi { a: 1 }", "raw"));
}

TEST_P(CodeRuntimeTest, BindingsResolveRejectWithTheErrorClassAndAnswerFromAnyThread) {
  auto rt = Runtime();
  ASSERT_NE(rt, nullptr);
  std::vector<std::string> seen;
  const CodeRunResult r = rt->Run(
      Pick("const a = await tools.echo({q: 1});\n"
           "const [b, c] = await Promise.all([tools.later({n: 2}), tools['later']({n: 3})]);\n"
           "let e;\ntry { await tools.fail({}); } catch (x) { e = [x.name, x.toolName, x.message, x instanceof ToolCallError]; }\n"
           "let lossy; try { await tools.echo(undefined); } catch (x) { lossy = `${x.toolName}: ${x.message}`; }\n"
           "return {a, b, c, e, lossy};",
           "import asyncio\na = await tools.echo({'q': 1})\n"
           "b, c = await asyncio.gather(tools.later({'n': 2}), tools['later']({'n': 3}))\n"
           "try:\n    await tools.fail({})\nexcept ToolCallError as x:\n"
           "    e = [type(x).__name__, x.toolName, str(x), isinstance(x, ToolCallError)]\n"
           "try:\n    await tools.echo(float('nan'))\nexcept ToolCallError as x:\n    lossy = f'{x.toolName}: {x}'\n"
           "return {'a': a, 'b': b, 'c': c, 'e': e, 'lossy': lossy}"),
      Tools(&seen));
  ASSERT_FALSE(r.error) << r.error->kind << ": " << r.error->message;
  EXPECT_EQ(json::Serialize(*r.value),
            R"({"a":{"q":1},"b":{"n":2},"c":{"n":3},"e":["ToolCallError","fail","invalid arguments: \"s\" must be a string",true],"lossy":"echo: binding arguments must be lossless JSON"})");
  EXPECT_THAT(seen, ::testing::ElementsAre(R"({"q":1})"));  // the lossy call never reached the host
}

TEST_P(CodeRuntimeTest, ALargeBindingValueCrossesWholeBothWays) {
  // Binding values have no byte cap: 40 MB each way, arriving over many reads.
  auto rt = Runtime();
  ASSERT_NE(rt, nullptr);
  const CodeRunResult r = rt->Run(Pick("const v = await tools.echo({s: 'x'.repeat(40e6)});\nreturn v.s.length;",
                                       "v = await tools.echo({'s': 'x' * 40_000_000})\nreturn len(v['s'])"),
                                  Tools());
  ASSERT_FALSE(r.error) << r.error->kind << ": " << r.error->message.substr(0, 500);
  EXPECT_EQ(json::Serialize(*r.value), "40000000");
}

TEST_P(CodeRuntimeTest, AThrowIsAnExceptionAndAnUnknownBindingRejects) {
  auto rt = Runtime();
  ASSERT_NE(rt, nullptr);
  CodeRunResult r = rt->Run(Pick("console.log('before'); throw new Error('boom');", "print('before')\nraise ValueError('boom')"), {});
  EXPECT_EQ(Kind(r), "exception");
  EXPECT_THAT(r.error->message, HasSubstr(python() ? "ValueError: boom" : "Error: boom"));
  EXPECT_THAT(r.logs, ::testing::ElementsAre("before"));
  r = rt->Run(Pick("return 1 +;", "return 1 +"), {});
  EXPECT_EQ(Kind(r), "exception");
  r = rt->Run(Pick("return {f: () => 1};", "return {'f': print}"), {});
  EXPECT_EQ(Kind(r), "invalid-output");
  EXPECT_EQ(r.error->message, "program completion must be lossless JSON");
}

TEST_P(CodeRuntimeTest, TheEnvironmentIsEmptyAndNoDescriptorOfTheHostIsInherited) {
  // A descriptor the host holds open without close-on-exec (a database, a socket).
  const int opened = open("/dev/null", O_RDONLY);
  const int leaked = fcntl(opened, F_DUPFD, 50);  // above the child's own 0..4
  close(opened);
  ASSERT_GE(leaked, 50);
  auto rt = Runtime();
  ASSERT_NE(rt, nullptr);
  CodeRunResult r = rt->Run(Pick("return Object.keys(process.env);", "import os\nreturn sorted(k for k in os.environ if k != 'LC_CTYPE')"), {});
  ASSERT_FALSE(r.error) << r.error->message;
  EXPECT_EQ(json::Serialize(*r.value), "[]");
  const std::string fd = std::to_string(leaked);
  r = rt->Run(Pick("try { (await import('node:fs')).fstatSync(" + fd + "); return 'open'; } catch (e) { return e.code; }",
                   "import os\ntry:\n    os.fstat(" + fd + ")\n    return 'open'\nexcept OSError:\n    return 'closed'"),
              {});
  close(leaked);
  ASSERT_FALSE(r.error) << r.error->message;
  EXPECT_EQ(json::Serialize(*r.value), python() ? R"("closed")" : R"("EBADF")");
}

TEST_P(CodeRuntimeTest, ABusyLoopExhaustsTheComputeBudget) {
  auto rt = Runtime(CodeSandbox::kNone, [](CodeRuntimeOptions& o) { o.compute_ms = 400; });
  ASSERT_NE(rt, nullptr);
  const auto start = std::chrono::steady_clock::now();
  const CodeRunResult r = rt->Run(Pick("for (;;) {}", "while True:\n    pass"), {});
  EXPECT_EQ(Kind(r), "timeout");
  EXPECT_EQ(r.error->message, "compute budget exhausted (400ms busy)");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST_P(CodeRuntimeTest, AnAwaitThatNeverResolvesHitsTheWallCeilingNotTheComputeBudget) {
  // The budget is well above what a child still starting up spends (Node's
  // start and its type stripper's compile, about 200 ms of CPU on a slow
  // machine), which a first run's child may be doing meanwhile.
  auto rt = Runtime(CodeSandbox::kNone, [](CodeRuntimeOptions& o) {
    o.compute_ms = 1000;
    o.max_wall_ms = 2500;
  });
  ASSERT_NE(rt, nullptr);
  const CodeRunResult r = rt->Run(Pick("await new Promise(() => {});", "import asyncio\nawait asyncio.Event().wait()"), {});
  EXPECT_EQ(Kind(r), "timeout");
  EXPECT_EQ(r.error->message, "wall-clock ceiling reached (2500ms)");
}

TEST_P(CodeRuntimeTest, AMemoryBombEndsTheProcess) {
  auto rt = Runtime(CodeSandbox::kNone, [](CodeRuntimeOptions& o) { o.memory_mb = 200; });
  ASSERT_NE(rt, nullptr);
  const CodeRunResult r = rt->Run(
      Pick("const a = []; for (;;) a.push(new Array(1e6).fill(Math.random()));",
           "a = []\nwhile True:\n    a.append(bytearray(10**7))"),
      {});
  EXPECT_EQ(Kind(r), "worker-exit") << (r.error ? r.error->message : "");
}

TEST_P(CodeRuntimeTest, FloodingTheLogsOrTheStreamsPastTheCapIsAnOutputLimitWithAFittingPrefix) {
  auto rt = Runtime(CodeSandbox::kNone, [](CodeRuntimeOptions& o) { o.max_output_bytes = 10000; });
  ASSERT_NE(rt, nullptr);
  for (const std::string& program :
       {Pick("for (;;) console.log('x'.repeat(1000));", "while True:\n    print('x' * 1000)"),
        // (Node makes its stdio pipes non-blocking: a write into a full pipe throws EAGAIN, and a flood retries.)
        Pick("const fs = await import('node:fs');\n"
             "for (;;) { try { fs.writeSync(2, 'y'.repeat(1000)); } catch (e) { if (e.code !== 'EAGAIN') throw e; } }",
             "import os\nwhile True:\n    os.write(2, b'y' * 1000)")}) {
    const CodeRunResult r = rt->Run(program, {});
    ASSERT_EQ(Kind(r), "output-limit") << program;
    EXPECT_EQ(r.error->message, "outer output exceeded 10000 bytes");
    Value::Array logs;
    for (const std::string& l : r.logs) logs.emplace_back(l);
    // Everything that fits is kept (a pipe's reads may come as one large log, cut to fit).
    const size_t used = json::Serialize(Value(logs)).size() + json::Serialize(Value(r.error->message)).size();
    EXPECT_LE(used, 10000u);
    EXPECT_GE(used, 9000u) << program;
  }
}

TEST_P(CodeRuntimeTest, ForgedAndMalformedMessagesAreDroppedAndEachCallIsAnsweredOnce) {
  auto rt = Runtime();
  ASSERT_NE(rt, nullptr);
  std::vector<std::string> seen;
  const std::string forged =
      R"(garbage\n{\"type\":\"call\",\"id\":\"x\"}\n{\"type\":\"log\"}\n[1]\n{\"type\":\"done\",\"error\":{\"kind\":\"timeout\",\"message\":1}}\n)"
      R"({\"type\":\"call\",\"id\":999,\"global\":\"tools\",\"name\":\"echo\",\"args\":1}\n)"
      R"({\"type\":\"call\",\"id\":999,\"global\":\"tools\",\"name\":\"echo\",\"args\":2}\n)"
      R"({\"type\":\"call\",\"id\":998,\"global\":\"tools\",\"name\":\"constructor\"}\n)";
  const CodeRunResult r = rt->Run(Pick("const fs = await import('node:fs'); fs.writeSync(3, \"" + forged + "\");\n"
                                       "return await tools.echo('real');",
                                       "import os\nos.write(3, \"" + forged + "\".encode())\nreturn await tools.echo('real')"),
                                  Tools(&seen));
  ASSERT_FALSE(r.error) << r.error->kind << ": " << r.error->message;
  EXPECT_EQ(json::Serialize(*r.value), R"("real")");
  EXPECT_THAT(seen, ::testing::ElementsAre("1", R"("real")"));  // id 999 once; the forged junk never
}

TEST_P(CodeRuntimeTest, ExitingOrClosingThePipeWithoutAResultIsAWorkerExit) {
  auto rt = Runtime(CodeSandbox::kNone, [](CodeRuntimeOptions& o) { o.max_wall_ms = 5000; });
  ASSERT_NE(rt, nullptr);
  CodeRunResult r = rt->Run(Pick("process.exit(3);", "import os\nos._exit(3)"), {});
  EXPECT_EQ(Kind(r), "worker-exit");
  EXPECT_EQ(r.error->message, "the program's process exited with code 3 before completing");
  r = rt->Run(Pick("const fs = await import('node:fs'); fs.closeSync(3); return 1;", "import os\nos.close(3)\nreturn 1"), {});
  EXPECT_EQ(Kind(r), "worker-exit") << (r.error ? r.error->message : "");
}

TEST_P(CodeRuntimeTest, AnAbortStopsTheRunAndNothingItStartedSurvives) {
  auto rt = Runtime();
  ASSERT_NE(rt, nullptr);
  runtime::AbortController abort;
  const runtime::Signal signal = abort.signal();
  std::thread later([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(800));
    abort.Abort("run_code settled");
  });
  // A sleep length no other process uses (test binaries may run side by side).
  const std::string marker = "1007." + std::to_string(getpid()) + (python() ? "1" : "2");
  const CodeRunResult r = rt->Run(
      Pick("const cp = await import('node:child_process');\ncp.spawn('/bin/sleep', ['" + marker +
               "'], {stdio: 'ignore'});\nawait new Promise(() => {});",
           "import subprocess, asyncio\nsubprocess.Popen(['/bin/sleep', '" + marker + "'])\nawait asyncio.Event().wait()"),
      {}, &signal);
  later.join();
  EXPECT_EQ(Kind(r), "abort");
  EXPECT_EQ(r.error->message, "run_code settled");
  EXPECT_EQ(ProcessesWith(marker), 0);
}

TEST_P(CodeRuntimeTest, UnderBubblewrapTheWorkspaceIsReadOnlyAndThereIsNoNetwork) {
  if (!HaveBwrap()) GTEST_SKIP() << "bubblewrap is not installed (apt-get install bubblewrap)";
  auto rt = Runtime(CodeSandbox::kBwrap);
  ASSERT_NE(rt, nullptr);
  CodeRunResult r = rt->Run(Pick("return 'read ' + (await import('node:fs')).readdirSync('.').length;",
                                 "import os\nreturn 'read ' + str(len(os.listdir('.')))"),
                            {});
  ASSERT_FALSE(r.error) << r.error->message;
  EXPECT_EQ(json::Serialize(*r.value), R"("read 0")");
  r = rt->Run(Pick("(await import('node:fs')).writeFileSync('pwned.txt', 'x');", "open('pwned.txt', 'w').write('x')"), {});
  EXPECT_EQ(Kind(r), "exception");
  EXPECT_THAT(r.error->message, HasSubstr(python() ? "Read-only file system" : "EROFS"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "pwned.txt"));
  r = rt->Run(Pick("const net = await import('node:net');\n"
                   "await new Promise((ok, fail) => net.connect(80, '1.1.1.1', ok).on('error', fail));",
                   "import socket\nsocket.create_connection(('1.1.1.1', 80), timeout=2)"),
              {});
  EXPECT_EQ(Kind(r), "exception");
  EXPECT_THAT(r.error->message, HasSubstr(python() ? "Network is unreachable" : "ENETUNREACH"));
  r = rt->Run(Pick("(await import('node:fs')).writeFileSync('/tmp/scratch', 'x'); return 'tmp ok';",
                   "open('/tmp/scratch', 'w').write('x')\nreturn 'tmp ok'"),
              {});
  EXPECT_EQ(Kind(r), "ok") << (r.error ? r.error->message : "");
}

TEST_P(CodeRuntimeTest, UnderBubblewrapAForkBombEndsAtTheWallCeilingAndLeavesNothing) {
  if (!HaveBwrap()) GTEST_SKIP() << "bubblewrap is not installed (apt-get install bubblewrap)";
  auto rt = Runtime(CodeSandbox::kBwrap, [](CodeRuntimeOptions& o) { o.max_wall_ms = 2000; });
  ASSERT_NE(rt, nullptr);
  const std::string marker = "1009." + std::to_string(getpid()) + (python() ? "1" : "2");
  const CodeRunResult r = rt->Run(
      Pick("const cp = await import('node:child_process');\n"
           "for (let i = 0; i < 200; i++) cp.spawn('/bin/sh', ['-c', 'sleep " + marker + " & sleep " + marker + "'], {detached: true, stdio: 'ignore'});\n"
           "await new Promise(() => {});",
           "import os, time\nfor i in range(200):\n    if os.fork() == 0:\n        os.setsid()\n"
           "        os.execv('/bin/sh', ['sh', '-c', 'sleep " + marker + " & sleep " + marker + "'])\n"
           "time.sleep(1000)"),
      {});
  EXPECT_EQ(Kind(r), "timeout");
  for (int i = 0; i < 50 && ProcessesWith(marker) > 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(ProcessesWith(marker), 0);
}

INSTANTIATE_TEST_SUITE_P(Languages, CodeRuntimeTest, ::testing::Values(SdkLanguage::kTypeScript, SdkLanguage::kPython),
                         [](const auto& p) { return p.param == SdkLanguage::kPython ? "Python" : "TypeScript"; });

TEST(CodeRuntimeCreateTest, AnOldNodeOrAMissingSandboxIsRefusedWithTheWayOut) {
  CodeRuntimeOptions o;
  o.interpreter = "/nonexistent/node";
  EXPECT_THAT(CodeRuntime::Create(o).status().message(), HasSubstr("cannot run /nonexistent/node"));
  o.interpreter = "python3";
  o.language = SdkLanguage::kPython;
  o.bwrap = "/nonexistent/bwrap";
  EXPECT_THAT(CodeRuntime::Create(o).status().message(), HasSubstr("or choose --code-sandbox none"));
  // A Node too old for type stripping: the message says how to go on.
  retrace::testing::TempDir dir;
  const std::string old_node = dir.path() + "/node";
  retrace::testing::WriteFile(old_node, "#!/bin/sh\necho v20.11.0\n");
  std::filesystem::permissions(old_node, std::filesystem::perms::owner_all);
  o.language = SdkLanguage::kTypeScript;
  o.interpreter = old_node;
  o.sandbox = CodeSandbox::kNone;
  const std::string message = CodeRuntime::Create(o).status().message();
  EXPECT_THAT(message, HasSubstr("Code Mode needs Node 22.13 or later"));
  EXPECT_THAT(message, HasSubstr("--code-runtime-bin"));
  EXPECT_THAT(message, HasSubstr("--code-runtime python"));
}

int OpenDescriptors() {
  int n = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) ++n;
  return n - 1;  // the iterator's own
}

// Each child's pipes are made one by one: when descriptors run out between
// two of them, those already made are closed, and no child keeps the host's
// stdin (the client's protocol stream under `retrace mcp`).
// GCC names its sanitizers with macros; clang answers __has_feature.
#if defined(__has_feature)
#define RETRACE_CLANG_SANITIZER (__has_feature(address_sanitizer) || __has_feature(thread_sanitizer))
#else
#define RETRACE_CLANG_SANITIZER 0
#endif

TEST(CodeRuntimeCreateTest, RunningOutOfDescriptorsWhileStartingAChildLeavesNoneOpen) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || RETRACE_CLANG_SANITIZER
  // UBSan's vptr check opens a pipe to probe memory: with the table full it
  // reports objects it cannot read as invalid (scripts/sanitize).
  GTEST_SKIP() << "the sanitizer runtime needs descriptors of its own; an exhausted table gives false reports";
#endif
  retrace::testing::TempDir dir;
  CodeRuntimeOptions o;
  o.language = SdkLanguage::kPython;
  o.interpreter = "python3";
  o.sandbox = CodeSandbox::kNone;
  o.workspace = dir.path();
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &saved), 0);
  const int before = OpenDescriptors();
  for (int room = 0; room <= 14; ++room) {
    SCOPED_TRACE("room for " + std::to_string(room) + " descriptors");
    {
      rlimit tight = saved;
      tight.rlim_cur = static_cast<rlim_t>(before + room);
      ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &tight), 0);
      auto rt = CodeRuntime::Create(o);  // starts the first child ahead of time
      if (rt.ok()) (void)(*rt)->Run("print(1)", {}, nullptr);
      ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &saved), 0);
    }
    EXPECT_EQ(OpenDescriptors(), before);
  }
}

}  // namespace
}  // namespace retrace::tools
