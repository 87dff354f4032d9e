// forecast-record OUT.jsonl [CITY...]: records one session of the forecast
// tool through retrace's pipeline — the tool runtime runs each call, the
// session recorder appends call, result and card snapshot to a SQLite event
// store — then exports it as a dsh log. The clock and ids are counters, so the
// same cities give the same bytes; corpus/forecast-paris-oslo.jsonl came from
//   forecast-record corpus/forecast-paris-oslo.jsonl Paris Oslo
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <retrace/engine/log/session_header.h>
#include <retrace/engine/runtime/asio.h>
#include <retrace/engine/runtime/session_recorder.h>
#include <retrace/engine/runtime/tool_result.h>
#include <retrace/engine/runtime/tool_runtime.h>
#include <retrace/store/event_store.h>
#include <retrace/store/exporter.h>
#include <retrace/store/sqlite_event_log.h>

#include "forecast_tool.h"

namespace {

namespace asio = retrace::runtime::asio;
namespace json = retrace::json;
namespace runtime = retrace::runtime;

retrace::Status Fail(const std::string& what) { return retrace::Status::IoError(what); }

retrace::Status Record(runtime::SessionRecorder& rec, runtime::ToolRuntime& rt, const std::vector<std::string>& cities) {
  std::vector<runtime::ModelToolCall> calls;
  json::Value::Array blocks;
  for (size_t i = 0; i < cities.size(); ++i) {
    const std::string args = R"({"city":")" + cities[i] + R"(","days":)" + std::to_string(2 + i % 3) + "}";
    calls.push_back({"call-" + std::to_string(i + 1), "forecast", args});
    blocks.push_back(json::Value::MakeObject(
        {{"type", "tool-call"}, {"id", calls.back().id}, {"name", "forecast"}, {"arguments", args}}));
  }
  const json::Value prompt = runtime::MakeUserMessage(runtime::TextContent("What is the weather like?"),
                                                      json::Value::MakeObject({{"kind", "user"}}), "prompt-1");
  for (retrace::Status st : {rec.FollowUp(prompt), rec.BeginTurn(), rec.BeginStep(),
                             rec.RecordAssistant(std::move(blocks), "example", "example-model")}) {
    if (!st.ok()) return st;
  }
  // The pipeline is asynchronous (Asio coroutines); run the batch to its end.
  asio::io_context io;
  retrace::Status outcome = Fail("the batch did not finish");
  auto batch = [&]() -> asio::awaitable<void> {
    retrace::Result<runtime::BatchOutcome> r = co_await rec.RunToolCalls(rt, calls, runtime::Signal{});
    outcome = r.status();
  };
  asio::co_spawn(io, batch(), [&](const std::exception_ptr& e) {
    if (e) outcome = Fail("the batch threw");
  });
  io.run();
  if (!outcome.ok()) return outcome;
  if (retrace::Status st = rec.EndStep(); !st.ok()) return st;
  return rec.EndTurn(json::Value::MakeObject({{"kind", "completed"}}));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: forecast-record OUT.jsonl [CITY...]\n");
    return 2;
  }
  const std::string out = argv[1];
  std::vector<std::string> cities(argv + 2, argv + argc);
  if (cities.empty()) cities = {"Paris", "Oslo"};

  const std::string db = out + ".db";
  std::filesystem::remove(db);
  auto store = retrace::store::EventStore::Open(db);
  if (!store.ok()) return std::fprintf(stderr, "%s\n", store.status().message().c_str()), 1;
  runtime::ToolRuntime rt;
  // The tool stays registered while its Registration lives.
  auto registration = rt.registry().Register(forecast::ForecastTool());
  if (!registration.ok()) return std::fprintf(stderr, "%s\n", registration.status().message().c_str()), 1;

  retrace::log::SessionHeader header;
  header.id = std::filesystem::path(out).stem().string();
  header.created_at = 1'800'000'000'000;
  auto clock = std::make_shared<int64_t>(header.created_at);
  auto ids = std::make_shared<int>(0);
  runtime::RecorderEnv env{[clock] { return ++*clock; }, [ids] { return "msg-" + std::to_string(++*ids); },
                           /*card_snapshots=*/true};
  std::optional<retrace::store::SqliteEventLog> log;
  log.emplace(**store);
  auto rec = runtime::SessionRecorder::Open(*log, header, env);
  retrace::Status st = rec.ok() ? Record(**rec, rt, cities) : rec.status();
  if (st.ok()) st = retrace::store::ExportToFile(**store, header.id, /*zstd=*/false, out);
  if (!st.ok()) return std::fprintf(stderr, "forecast-record: %s\n", st.message().c_str()), 1;
  rec->reset();
  log.reset();
  store->reset();
  for (const char* suffix : {"", "-wal", "-shm", "-lock"}) std::filesystem::remove(db + suffix);  // a corpus keeps the log
  std::printf("recorded %s\n", out.c_str());
  return 0;
}
