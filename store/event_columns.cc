#include "store/event_columns.h"

#include "engine/json/lenient.h"
#include "engine/log/event_types.h"
#include "engine/log/tool_events.h"

namespace retrace::store {
namespace {

using json::Value;

std::optional<int64_t> IntAt(const Value& data, std::string_view key) { return json::SafeInt(json::Get(data, key)); }

// An id or name column: NULL when the event has none.
std::optional<std::string> IdColumn(std::string_view s) {
  return s.empty() ? std::nullopt : std::optional<std::string>(std::string(s));
}

}  // namespace

EventColumns ExtractColumns(const log::Event& e) {
  EventColumns c;
  c.turn = IntAt(e.data, "turn");
  c.step = IntAt(e.data, "step");
  if (e.surface_op) c.surface = e.surface_op->kind == log::SurfaceOp::Kind::kAppend ? "append" : "replace";
  if (const std::optional<log::ToolCallView> call = log::ReadToolCall(e)) {
    c.call_id = IdColumn(call->call_id);
    c.tool_name = IdColumn(call->name);
  } else if (const std::optional<log::ToolResultView> result = log::ReadToolResult(e)) {
    c.call_id = IdColumn(result->call_id);  // the call it settles, as every reader takes it
    c.is_error = result->is_error ? 1 : 0;
  } else if (e.type == log::kToolResult) {
    c.is_error = 0;  // no tool-result block to say otherwise
  }
  return c;
}

}  // namespace retrace::store
