// Tool pipeline overhead per call, side by side with the upstream dsh-tools
// execute() in Node, in one run. A trivial tool (echo, no hooks) runs:
//  - through ToolRuntime::Execute() alone (coroutine body; synchronous body,
//    which hops to the blocking pool);
//  - recorded by SessionRecorder (a durable tool/call before the body, then
//    tool/result) into the in-memory log, and into SQLite at durability
//    normal and full;
//  - through dsh-tools' ToolRuntime.execute() (bench/upstream/execute.mjs).
//
//   runtime_bench [--calls N] [--sqlite-calls N] [--full-calls N] [--dir DIR] [--node NODE --upstream DIR]
#include <cstdio>
#include <filesystem>
#include <optional>

#include "bench/bench_options.h"
#include "bench/measure.h"
#include "engine/log/in_memory_event_log.h"
#include "engine/runtime/session_recorder.h"
#include "engine/runtime/tool_runtime.h"
#include "engine/schema/schema_spec.h"
#include "store/sqlite_event_log.h"

namespace retrace::bench {
namespace {

using namespace runtime;
using json::Value;

ToolDefinitionPtr Echo(bool async_body) {
  using namespace schema;
  ToolDefinition spec{
      .name = "echo",
      .description = "Echo a string.",
      .parameters = Parameters({{"s", String().Required()}}),
      .output = {.schema = String(),
                 .render = [](const Value&, const Value& v) { return TextContent(v.as_string()); }},
  };
  if (async_body) {
    spec.execute_async = [](ToolRunContext& run) -> asio::awaitable<Value> { co_return *run.arguments().Find("s"); };
  } else {
    spec.execute = [](ToolRunContext& run) { return *run.arguments().Find("s"); };
  }
  return std::move(DefineTool(std::move(spec))).value();
}

// Runs `body` as a coroutine on a one-thread io_context; returns its seconds.
double Drive(const std::function<asio::awaitable<bool>()>& body) {
  asio::io_context io;
  double seconds = -1;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        const double start = NowSeconds();
        if (co_await body()) seconds = NowSeconds() - start;
      },
      asio::detached);
  io.run();
  return seconds;
}

double ExecuteOnly(int64_t calls, bool async_body) {
  ToolRuntime rt;
  Registration r = std::move(rt.registry().Register(Echo(async_body))).value();
  return Drive([&]() -> asio::awaitable<bool> {
    for (int64_t i = 0; i < calls; ++i) {
      ToolCallInput in;
      in.call_id = "c" + std::to_string(i);
      in.name = "echo";
      in.arguments = Value::MakeObject({{"s", "hi"}});
      ToolResultPtr res = co_await rt.Execute(std::move(in));
      if (res->is_error) co_return false;
    }
    co_return true;
  });
}

// Each call is one batch of one step: tool/call (appended before the body), then tool/result.
double Recorded(int64_t calls, log::EventLog& log) {
  ToolRuntime rt;
  Registration r = std::move(rt.registry().Register(Echo(true))).value();
  int64_t clock = 1'800'000'000'000, ids = 0;
  RecorderEnv env{[&] { return ++clock; }, [&] { return "m" + std::to_string(++ids); }};
  log::SessionHeader header;
  header.id = "bench";
  auto rec = SessionRecorder::Open(log, header, env);
  if (!rec.ok() || !(*rec)->BeginTurn().ok() || !(*rec)->BeginStep().ok()) return -1;
  return Drive([&]() -> asio::awaitable<bool> {
    std::vector<ModelToolCall> call(1);
    call[0].name = "echo";
    call[0].arguments = R"({"s":"hi"})";
    for (int64_t i = 0; i < calls; ++i) {
      call[0].id = "c" + std::to_string(i);
      Result<BatchOutcome> out = co_await (*rec)->RunToolCalls(rt, call, Signal());
      if (!out.ok() || out->errors) co_return false;
    }
    co_return true;
  });
}

double RecordedSqlite(int64_t calls, store::Durability durability, const std::string& db) {
  RemoveDatabase(db);
  store::StoreOptions options;
  options.durability = durability;
  auto s = store::EventStore::Open(db, options);
  if (!s.ok()) return -1;
  store::SqliteEventLog log(**s);
  return Recorded(calls, log);
}

void Row(const char* name, const Sample& s, int64_t calls) {
  if (!s.ok) {
    std::printf("%-52s %s\n", name, "failed/skipped");
    return;
  }
  std::printf("%-52s %8d calls %10.0f calls/s %9.2f us/call\n", name, static_cast<int>(calls),
              static_cast<double>(calls) / s.seconds, s.seconds * 1e6 / static_cast<double>(calls));
}

}  // namespace

int Main(int argc, char** argv) {
  int64_t calls = 200000, sqlite_calls = 20000, full_calls = 2000;
  BenchOptions o;
  cli::CommandLine line("retrace tool runtime benchmark");
  cli::Options app = line.options();
  app.Add("--calls", calls, "Calls for the in-memory cases and the upstream side");
  app.Add("--sqlite-calls", sqlite_calls, "Calls recorded into SQLite at durability normal");
  app.Add("--full-calls", full_calls, "Calls recorded into SQLite at durability full (one fsync each)");
  AddBenchOptions(app, o);
  if (std::optional<int> rc = line.Parse(argc, argv)) return *rc;
  std::filesystem::create_directories(o.dir);
  const std::string db = o.dir + "/runtime-bench.db";
  const int reps = o.reps;

  const Sample co = Best(reps, [&] { return RunInChild([&] { return ExecuteOnly(calls, true); }); });
  const Sample sync = Best(reps, [&] { return RunInChild([&] { return ExecuteOnly(calls, false); }); });
  const Sample mem = Best(reps, [&] {
    return RunInChild([&] {
      log::InMemoryEventLog log;
      return Recorded(calls, log);
    });
  });
  const Sample normal =
      Best(reps, [&] { return RunInChild([&] { return RecordedSqlite(sqlite_calls, store::Durability::kNormal, db); }); });
  const Sample full =
      Best(reps, [&] { return RunInChild([&] { return RecordedSqlite(full_calls, store::Durability::kFull, db); }); });
  const Sample up = o.node.empty() ? Sample{} : Best(reps, [&] {
    return RunCommand({o.node, RETRACE_SOURCE_DIR "/bench/upstream/execute.mjs", o.upstream, std::to_string(calls)});
  });
  RemoveDatabase(db);

  Row("retrace Execute(), coroutine body, no log", co, calls);
  Row("retrace Execute(), sync body (blocking pool), no log", sync, calls);
  Row("retrace recorded call, in-memory log", mem, calls);
  Row("retrace recorded call, SQLite durability normal", normal, sqlite_calls);
  Row("retrace recorded call, SQLite durability full", full, full_calls);
  Row("upstream dsh-tools execute() (Node 22)", up, calls);
  if (co.ok && up.ok) {
    std::printf("per-call speedup vs upstream execute(), in memory: %.1fx (target >= 5)\n",
                (up.seconds / static_cast<double>(calls)) / (co.seconds / static_cast<double>(calls)));
    std::printf("  with the call recorded into the in-memory log: %.1fx\n",
                (up.seconds / static_cast<double>(calls)) / (mem.seconds / static_cast<double>(calls)));
  }
  return 0;
}

}  // namespace retrace::bench

int main(int argc, char** argv) { return retrace::bench::Main(argc, argv); }
