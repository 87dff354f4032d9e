#include "service/record.h"

#include <exception>
#include <optional>
#include <utility>

#include "engine/runtime/tool_error.h"

namespace retrace::service {

namespace asio = runtime::asio;

namespace {

// dsh's TurnEndReason for a turn a non-LLM error stopped: {kind:"error",
// error:{message, code:"UNKNOWN"}} (dsh-session-log §4, TurnEndReason).
json::Value ErrorTurnEnd(const Status& failure) {
  return json::Value::MakeObject(
      {{"kind", "error"},
       {"error", json::Value::MakeObject({{"message", failure.message()}, {"code", "UNKNOWN"}})}});
}

}  // namespace

Result<RecordOutcome> RecordScript(const Catalog& catalog, const std::vector<ScriptOp>& ops,
                                   const RecordOptions& how) {
  ASSIGN_OR_RETURN(std::unique_ptr<LiveSession> live, LiveSession::Open(catalog, how));
  ASSIGN_OR_RETURN(runtime::SessionRecorder * recorder, live->Recorder());
  asio::io_context io;
  std::optional<Result<ScriptReport>> report;
  std::exception_ptr thrown;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        // Named, not braced temporaries in the co_await expression: GCC 12
        // destroys those wrongly in a coroutine (the agent's scope was freed
        // early when a store fault ended the run; tests/store/fault_injection_test.cc).
        const runtime::RecorderEnv env = live->env();
        const ScriptOptions options{.max_parallel = how.max_parallel, .agent = live->agent()};
        Result<ScriptReport> ran = co_await RunScript(ops, *recorder, live->runtime(), env, options);
        report.emplace(std::move(ran));
      },
      [&](std::exception_ptr e) { thrown = std::move(e); });
  io.run();
  // RunScript reports failures as values; should one escape it as an
  // exception, the run fails with what it said instead of reading no report.
  if (!report) {
    report.emplace(Status::IoError("the script run stopped: " + (thrown ? runtime::DescribeException(thrown).message
                                                                        : std::string("it ended without a report"))));
  }
  // RunScript ends its turns itself; Close stops the jobs still running and
  // ends a turn a failure left open as dsh ends a turn a non-LLM error stopped.
  const Status closed = live->Close(report->ok() ? json::Value::MakeObject({{"kind", "completed"}})
                                                 : ErrorTurnEnd(report->status()));
  if (!report->ok()) return report->status();
  RETURN_IF_ERROR(closed);
  return RecordOutcome{live->session_id(), live->workspace(), **report};
}

std::string Summary(const RecordOutcome& o) {
  auto count = [](int64_t n, const char* noun) { return std::to_string(n) + " " + noun + (n == 1 ? "" : "s"); };
  const ScriptReport& r = o.report;
  return "session " + o.session_id + ": " + count(r.turns, "turn") + ", " + count(r.tool_calls, "tool call") + " (" +
         std::to_string(r.tool_errors) + " failed); events " + std::to_string(r.first_seq) + ".." +
         std::to_string(r.next_seq - 1) + " recorded";
}

}  // namespace retrace::service
