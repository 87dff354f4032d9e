// Record, the use case: a live session driven through the tool runtime with
// the built-in tools, every call, result, card snapshot and injected notice
// recorded into the catalog's database (`retrace run`, `retrace demo`). What only a front end may read — the clock, fresh
// ids, the process environment, paths from its flags — comes in the options.
#ifndef RETRACE_SERVICE_RECORD_H_
#define RETRACE_SERVICE_RECORD_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "engine/runtime/registration.h"
#include "engine/runtime/tool_runtime.h"
#include "service/script_host.h"
#include "service/catalog.h"
#include "service/live_session.h"

namespace retrace::service {

// A script run records into a live session (service/live_session.h).
using RecordOptions = LiveOptions;

struct RecordOutcome {
  std::string session_id;
  std::string workspace;
  ScriptReport report;
};

// Plays `ops` (service/script_host.h) into the session. Each tool/call is
// durable before its body runs.
Result<RecordOutcome> RecordScript(const Catalog& catalog, const std::vector<ScriptOp>& ops,
                                   const RecordOptions& options);

// "session <id>: 1 turn, 2 tool calls (1 failed); events 0..14 recorded"
std::string Summary(const RecordOutcome& outcome);

}  // namespace retrace::service

#endif  // RETRACE_SERVICE_RECORD_H_
