// forecast-record [--revision N] OUT.jsonl [CITY...]: records one session of
// the forecast tool through retrace's pipeline — the tool runtime runs each
// call, the session recorder appends call, result and card snapshot to a
// SQLite event store — then exports it as a dsh log. The clock and ids are
// counters, so the same cities give the same bytes. --revision runs the tool
// as the release of that revision defined it (1 to 3, default 3), calling it
// with that revision's arguments: the corpus keeps a session of each
//   forecast-record --revision 1 corpus/forecast-rev1-lima-cairo.jsonl Lima Cairo
//   forecast-record --revision 2 corpus/forecast-rev2-quito-nairobi.jsonl Quito Nairobi
// (corpus/forecast-paris-oslo.jsonl is older still: revision 2's arguments,
// recorded before sessions recorded revisions.)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <memory>
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

// A call's arguments as the model wrote them for the tool at `revision`.
std::string ArgumentsAt(int revision, const std::string& city, size_t i) {
  const std::string days = R"(,"days":)" + std::to_string(2 + i % 3) + "}";
  if (revision == 1) return R"({"town":")" + city + "\"" + days;
  if (revision == 2) return R"({"city":")" + city + "\"" + days;
  return R"({"city":{"name":")" + city + "\"}" + days;
}

retrace::Status Record(runtime::SessionRecorder& rec, runtime::ToolRuntime& rt, int revision,
                       const std::vector<std::string>& cities) {
  std::vector<runtime::ModelToolCall> calls;
  json::Value::Array blocks;
  for (size_t i = 0; i < cities.size(); ++i) {
    const std::string args = ArgumentsAt(revision, cities[i], i);
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

// Records the session into a SQLite store at `db` and exports it to `out`.
retrace::Status RecordAndExport(const std::string& db, const std::string& out, int revision,
                                const std::vector<std::string>& cities) {
  auto store = retrace::store::EventStore::Open(db);
  if (!store.ok()) return store.status();
  runtime::ToolRuntime rt;
  // The tool stays registered while its Registration lives.
  auto registration = rt.registry().Register(forecast::ForecastToolAt(revision));
  if (!registration.ok()) return registration.status();

  retrace::log::SessionHeader header;
  header.id = std::filesystem::path(out).stem().string();
  header.created_at = 1'800'000'000'000;
  auto clock = std::make_shared<int64_t>(header.created_at);
  auto ids = std::make_shared<int>(0);
  runtime::RecorderEnv env{[clock] { return ++*clock; }, [ids] { return "msg-" + std::to_string(++*ids); },
                           /*card_snapshots=*/true};
  retrace::store::SqliteEventLog log(**store);
  {
    auto rec = runtime::SessionRecorder::Open(log, header, env);
    if (!rec.ok()) return rec.status();
    if (retrace::Status st = Record(**rec, rt, revision, cities); !st.ok()) return st;
  }
  return retrace::store::ExportToFile(**store, header.id, /*zstd=*/false, out);
}

// The store's files: a corpus keeps the exported log, not the database.
void RemoveStore(const std::string& db) {
  for (const char* suffix : {"", "-wal", "-shm", "-lock"}) std::filesystem::remove(db + suffix);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> words(argv + 1, argv + argc);
  int revision = 3;
  if (words.size() >= 2 && words[0] == "--revision") {
    revision = std::atoi(words[1].c_str());
    words.erase(words.begin(), words.begin() + 2);
  }
  if (words.empty() || revision < 1 || revision > 3) {
    std::fprintf(stderr, "usage: forecast-record [--revision 1|2|3] OUT.jsonl [CITY...]\n");
    return 2;
  }
  const std::string out = words[0];
  std::vector<std::string> cities(words.begin() + 1, words.end());
  if (cities.empty()) cities = {"Paris", "Oslo"};

  const std::string db = out + ".db";
  RemoveStore(db);
  const retrace::Status st = RecordAndExport(db, out, revision, cities);
  RemoveStore(db);
  if (!st.ok()) {
    std::fprintf(stderr, "forecast-record: %s\n", st.message().c_str());
    return 1;
  }
  std::printf("recorded %s\n", out.c_str());
  return 0;
}
