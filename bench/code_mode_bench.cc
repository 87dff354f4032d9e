// Code Mode's costs, side by side with upstream in one run (issue figures):
//  - start-up: one `run_code` whose program is `return 1`, end to end
//    (retrace: a fresh Node or python3 child, with and without bubblewrap —
//    the next run of a session, whose child was started ahead, and the first
//    run of a session; upstream: a fresh worker thread of
//    dsh-code-runtime-worker-thread, every run, and its process's first run,
//    which loads the type stripper host-side);
//  - nested calls: a program calling a trivial tool `calls` times in a row;
//    the per-call overhead is (that run − a start-up) / calls.
// Each retrace case runs in a child process (bench/measure.h), best of --reps
// rounds; upstream is bench/upstream/code_mode.mjs (median start of 20 runs).
//
//   code_mode_bench [--calls N] [--reps R] --node NODE --upstream DIR
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <thread>

#include "bench/bench_options.h"
#include "bench/measure.h"
#include "engine/json/writer.h"
#include "engine/runtime/run_code.h"
#include "engine/runtime/tool_runtime.h"
#include "engine/schema/schema_spec.h"
#include "tools/code_runtime.h"

namespace retrace::bench {
namespace {

using namespace runtime;  // NOLINT(google-build-using-namespace)
using json::Value;

ToolDefinitionPtr Noop() {
  using namespace schema;  // NOLINT(google-build-using-namespace)
  ToolDefinition spec{.name = "noop",
                      .description = "Returns its argument.",
                      .parameters = Parameters({{"i", Number().Required()}}),
                      .output = {.schema = Number(),
                                 .render = [](const Value&, const Value& v) { return TextContent(json::Serialize(v)); }}};
  spec.execute_async = [](ToolRunContext& run) -> asio::awaitable<Value> { co_return *run.arguments().Find("i"); };
  spec.is_concurrency_safe = [](const Value&) { return true; };
  return std::move(DefineTool(std::move(spec))).value();
}

struct Case {
  std::string name;
  tools::CodeRuntimeOptions runtime;
  std::string program;
};

// A ToolRuntime with the noop tool and run_code on the case's code runtime,
// as a `retrace run` or `retrace mcp` session has them: one for the session.
struct Session {
  explicit Session(const Case& c) {
    noop = std::move(rt.registry().Register(Noop())).value();
    auto runner = tools::CodeRuntime::Create(c.runtime);
    if (!runner.ok()) {
      std::fprintf(stderr, "%s: %s\n", c.name.c_str(), runner.status().message().c_str());
      return;
    }
    rt.registry().SetCodeMode(ToolsMode::kCode,
                              *MakeRunCodeTool(rt, std::shared_ptr<const CodeRunner>(std::move(*runner))));
    ok = true;
  }
  // One run_code call: its seconds, or -1 if it failed.
  double Run(const Case& c) {
    asio::io_context io;
    double seconds = -1;
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
          ToolCallInput in;
          in.call_id = "b1";
          in.name = "run_code";
          in.arguments = Value::MakeObject({{"code", c.program}, {"description", "bench"}});
          const double start = NowSeconds();
          ToolResultPtr r = co_await rt.Execute(std::move(in));
          if (!r->is_error) {
            seconds = NowSeconds() - start;
          } else {
            std::fprintf(stderr, "%s: %s\n", c.name.c_str(), r->content[0].Find("text")->as_string().c_str());
          }
        },
        asio::detached);
    io.run();
    return seconds;
  }
  ToolRuntime rt;
  Registration noop;
  bool ok = false;
};

// The median of `n` start-ups: `cold`, each the first run of a new session
// (its child starts then); else successive runs of one session, 300 ms apart
// (the time a model takes between calls, in which the next child gets ready).
double MedianStart(const Case& c, int n, bool cold) {
  std::vector<double> s;
  std::unique_ptr<Session> session;
  for (int i = 0; i <= n; ++i) {
    if (cold || !session) session = std::make_unique<Session>(c);
    if (!session->ok) return -1;
    if (!cold) std::this_thread::sleep_for(std::chrono::milliseconds(300));
    const double t = session->Run(c);
    if (t < 0) return -1;
    if (i > 0) s.push_back(t);  // the first warms the page cache
  }
  std::sort(s.begin(), s.end());
  return s[s.size() / 2];
}

}  // namespace
}  // namespace retrace::bench

int main(int argc, char** argv) {
  using namespace retrace::bench;  // NOLINT(google-build-using-namespace)
  retrace::cli::CommandLine line("Code Mode start-up and nested-call overhead, retrace vs upstream's worker-thread runtime");
  retrace::cli::Options app = line.options();
  BenchOptions opt;
  AddBenchOptions(app, opt);
  int calls = 10000, starts = 20;
  app.Add("--calls", calls, "Tool calls in the nested-call program");
  app.Add("--starts", starts, "Start-ups measured (the median is reported)");
  if (std::optional<int> rc = line.Parse(argc, argv)) return *rc;
  if (opt.node.empty() || opt.upstream.empty()) {
    std::fprintf(stderr, "code_mode_bench needs --node and --upstream (bench/setup_upstream.sh)\n");
    return 2;
  }
  const std::string loop = "let s = 0; for (let i = 0; i < " + std::to_string(calls) +
                           "; i++) s += await tools.noop({i}); return s;";
  const std::string py_loop = "s = 0\nfor i in range(" + std::to_string(calls) + "):\n    s += await tools.noop({'i': i})\nreturn s";
  auto ts = [&](retrace::tools::CodeSandbox sb) {
    retrace::tools::CodeRuntimeOptions o;
    o.interpreter = opt.node;
    o.sandbox = sb;
    return o;
  };
  auto py = [&](retrace::tools::CodeSandbox sb) {
    retrace::tools::CodeRuntimeOptions o = ts(sb);
    o.language = retrace::schema::SdkLanguage::kPython;
    o.interpreter = "python3";
    return o;
  };
  using retrace::tools::CodeSandbox;
  const std::vector<Case> start_cases = {
      {"retrace, TypeScript (Node child)", ts(CodeSandbox::kNone), "return 1"},
      {"retrace, TypeScript under bubblewrap", ts(CodeSandbox::kBwrap), "return 1"},
      {"retrace, Python (python3 child)", py(CodeSandbox::kNone), "return 1"},
      {"retrace, Python under bubblewrap", py(CodeSandbox::kBwrap), "return 1"},
  };
  const size_t kinds = start_cases.size();
  const std::vector<Case> call_cases = {
      {"retrace, TypeScript", ts(CodeSandbox::kNone), loop},
      {"retrace, Python", py(CodeSandbox::kNone), py_loop},
  };
  std::vector<std::function<Sample()>> runs;
  for (const bool cold : {false, true}) {
    for (const Case& c : start_cases) {
      runs.push_back([&c, starts, cold] { return RunInChild([&] { return MedianStart(c, starts, cold); }); });
    }
  }
  for (const Case& c : call_cases) {
    runs.push_back([&c] {
      return RunInChild([&] {
        Session session(c);
        if (!session.ok) return -1.0;
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        return session.Run(c);
      });
    });
  }
  runs.push_back([&] {
    return RunCommand({"/bin/sh", "-c",
                       "\"$0\" " + std::string(RETRACE_SOURCE_DIR) + "/bench/upstream/code_mode.mjs " + opt.upstream + " " +
                           std::to_string(calls) + " " + std::to_string(starts) +
                           " 2>/dev/null | sed 's/.*\"startMs\":\\([0-9.]*\\).*\"callsMs\":\\([0-9.]*\\).*\"firstMs\":\\([0-9.]*\\).*/\\1 \\2 \\3/' | "
                           "awk '{print $1/1000, $2/1000, $3/1000}'",
                       opt.node});
  });
  const std::vector<Sample> s = BestInRounds(opt.reps, runs);
  std::printf("| | time | ratio to upstream |\n|---|---:|---:|\n");
  const Sample& up = s.back();
  double up_start = -1, up_calls = -1, up_first = -1;
  if (up.ok) std::sscanf(up.output.c_str(), "%lf %lf %lf", &up_start, &up_calls, &up_first);
  // A session's next run against upstream's every run; a first run against
  // upstream's first, which loads its type stripper (host-side) then.
  for (size_t i = 0; i < 2 * kinds; ++i) {
    const double base = i < kinds ? up_start : up_first;
    std::printf("| start-up, %s: %s | %.1f ms | %.2f× |\n", i < kinds ? "next run of a session" : "first run",
                start_cases[i % kinds].name.c_str(), s[i].seconds * 1e3, base > 0 ? s[i].seconds / base : 0.0);
  }
  std::printf("| start-up: upstream worker thread, every run but the first | %.1f ms | 1 |\n", up_start * 1e3);
  std::printf("| start-up: upstream worker thread, the process's first run | %.1f ms | 1 |\n", up_first * 1e3);
  const double ts_start = s[0].seconds, py_start = s[2].seconds;
  for (size_t i = 0; i < call_cases.size(); ++i) {
    const double start = i == 0 ? ts_start : py_start;
    const double per_call = (s[2 * kinds + i].seconds - start) / calls;
    const double up_per_call = (up_calls - up_start) / calls;
    std::printf("| per nested call: %s | %.1f µs | %.2f× |\n", call_cases[i].name.c_str(), per_call * 1e6,
                up_per_call > 0 ? per_call / up_per_call : 0.0);
  }
  std::printf("| per nested call: upstream worker thread | %.1f µs | 1 |\n", (up_calls - up_start) / calls * 1e6);
  return 0;
}
