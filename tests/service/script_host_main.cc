// retrace_test_script_host: the `retrace run` host with test tools, for the tests
// that need a real process (interop with dsh, SIGKILL mid-tool). Until the
// tools layer lands, these are the tools a recorded session can exercise:
//   echo {s}        → s, with presentationMeta {len}; concurrency-safe
//   sleep {ms}      → {slept}, a cancellable async wait; concurrency-safe
//   fail {message}  → throws (a failure without identity)
//   note {text}     → "noted", deferring a context message for the next step
//   finish {}       → "done", concluding the turn
//   slow {}         → waits 10 s under timeoutMs 50 (TOOL_TIMEOUT)
// usage: retrace_test_script_host <db> <script.jsonl> <session id>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "service/script_host.h"
#include "engine/runtime/timeout_policy.h"
#include "engine/schema/schema_spec.h"
#include "store/sqlite_event_log.h"
#include "tests/runtime/runtime_test_util.h"

namespace retrace::service {
namespace {

using json::Value;
using namespace schema;
using namespace runtime;  // a host program: it speaks the runtime's vocabulary throughout

std::vector<ToolDefinitionPtr> TestTools() {
  auto text_render = [](const Value&, const Value& v) { return TextContent(v.is_string() ? v.as_string() : json::Serialize(v)); };
  std::vector<ToolDefinitionPtr> tools;
  ToolDefinition echo = testing::EchoSpec();
  echo.is_concurrency_safe = [](const Value&) { return true; };
  tools.push_back(testing::Define(echo));
  tools.push_back(testing::Define({
      .name = "sleep",
      .description = "Wait.",
      .parameters = Parameters({{"ms", Integer().Required()}}),
      .output = {.schema = Object(false, {{"slept", Boolean().Required()}}), .render = text_render},
      .execute_async = [](ToolRunContext& run) -> asio::awaitable<Value> {
        bool full = co_await SleepFor(std::chrono::milliseconds(static_cast<int64_t>(run.arguments().Find("ms")->as_number())),
                                      run.signal());
        co_return Value::MakeObject({{"slept", full}});
      },
      .is_concurrency_safe = [](const Value&) { return true; },
  }));
  tools.push_back(testing::Define({
      .name = "fail",
      .description = "Fail.",
      .parameters = Parameters({{"message", String().Required()}}),
      .output = {.schema = String(), .render = text_render},
      .execute = [](ToolRunContext& run) -> Value { throw std::runtime_error(run.arguments().Find("message")->as_string()); },
  }));
  tools.push_back(testing::Define({
      .name = "note",
      .description = "Leave a note for the next step.",
      .parameters = Parameters({{"text", String().Required()}}),
      .output = {.schema = String(), .render = text_render},
      .execute =
          [](ToolRunContext& run) {
            run.DeferContext(MakeUserMessage(TextContent(run.arguments().Find("text")->as_string()),
                                             Value::MakeObject({{"kind", "plugin"}, {"plugin", "note"}}),
                                             "note-" + run.call_id()));
            return Value("noted");
          },
  }));
  tools.push_back(testing::Define({
      .name = "finish",
      .description = "Conclude the turn.",
      .parameters = Parameters({}),
      .output = {.schema = String(), .render = text_render},
      .execute =
          [](ToolRunContext& run) {
            run.ConcludeTurn();
            return Value("done");
          },
  }));
  tools.push_back(testing::Define({
      .name = "slow",
      .description = "Too slow.",
      .parameters = Parameters({}),
      .output = {.schema = String(), .render = text_render},
      .execute_async = [](ToolRunContext& run) -> asio::awaitable<Value> {
        co_await SleepFor(std::chrono::seconds(10), run.signal());
        co_return Value("finished");
      },
      .timeout_ms = 50,
  }));
  return tools;
}

int Main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: retrace_test_script_host <db> <script.jsonl> <session id>\n");
    return 2;
  }
  std::ifstream in(argv[2], std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  auto ops = service::ParseScript(text.str(), argv[2]);
  if (!ops.ok()) return std::fprintf(stderr, "%s\n", ops.status().message().c_str()), 3;
  auto store = store::EventStore::Open(argv[1]);
  if (!store.ok()) return std::fprintf(stderr, "%s\n", store.status().message().c_str()), 1;
  store::SqliteEventLog log(**store);
  int64_t clock = 1'800'000'000'000;
  int ids = 0;
  RecorderEnv env{[&] { return clock++; }, [&] { return "m-" + std::to_string(++ids); }};
  log::SessionHeader header;
  header.id = argv[3];
  header.created_at = clock;
  header.cwd = "/work/project";
  auto rec = SessionRecorder::Open(log, header, env);
  if (!rec.ok()) return std::fprintf(stderr, "%s\n", rec.status().message().c_str()), 1;
  ToolRuntime runtime;
  std::vector<Registration> regs;
  for (ToolDefinitionPtr& def : TestTools()) regs.push_back(testing::MustRegister(runtime, def));
  regs.push_back(InstallTimeoutPolicy(runtime));
  asio::io_context io;
  std::optional<Result<service::ScriptReport>> report;
  asio::co_spawn(io, [&]() -> asio::awaitable<void> { report.emplace(co_await service::RunScript(*ops, **rec, runtime, env)); },
                 asio::detached);
  io.run();
  if (!report->ok()) return std::fprintf(stderr, "%s\n", report->status().message().c_str()), 1;
  std::printf("recorded %lld..%lld\n", static_cast<long long>((*report)->first_seq),
              static_cast<long long>((*report)->next_seq - 1));
  return 0;
}

}  // namespace
}  // namespace retrace::service

int main(int argc, char** argv) { return retrace::service::Main(argc, argv); }
