#include "engine/log/tool_events.h"

#include "engine/json/lenient.h"
#include "engine/log/event_types.h"

namespace retrace::log {

std::optional<ToolCallView> ReadToolCall(const Event& e) {
  if (e.type != kToolCall) return std::nullopt;
  const json::Value& d = e.data;
  return ToolCallView{json::StrView(json::Get(d, "callId")), json::StrView(json::Get(d, "name")),
                      json::StrView(json::Get(d, "arguments")), json::SafeInt(json::Get(d, "turn")),
                      json::SafeInt(json::Get(d, "step"))};
}

std::optional<ToolResultView> ReadToolResult(const Event& e) {
  if (e.type != kToolResult) return std::nullopt;
  const json::Value* blocks = json::Get(json::Get(e.data, "message"), "content");
  if (blocks == nullptr || !blocks->is_array() || blocks->as_array().empty()) return std::nullopt;
  const json::Value& block = blocks->as_array()[0];
  ToolResultView r;
  r.call_id = json::StrView(json::Get(block, "toolCallId"));
  r.is_error = json::True(json::Get(block, "isError"));
  if (const json::Value* inner = json::Get(block, "content"); inner != nullptr && inner->is_array()) r.content = inner;
  r.meta = json::Get(e.data, "meta");
  r.error = json::Get(e.data, "error");
  r.turn = json::SafeInt(json::Get(e.data, "turn"));
  r.step = json::SafeInt(json::Get(e.data, "step"));
  r.append = !e.surface_op || e.surface_op->kind == SurfaceOp::Kind::kAppend;
  return r;
}

}  // namespace retrace::log
