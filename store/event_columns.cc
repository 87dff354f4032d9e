#include "store/event_columns.h"

#include "engine/log/event_types.h"

namespace retrace::store {
namespace {

using json::Value;

std::optional<int64_t> IntAt(const Value& data, std::string_view key) {
  const Value* v = data.Find(key);
  if (v == nullptr || !v->is_safe_integer()) return std::nullopt;
  return static_cast<int64_t>(v->as_number());
}

std::optional<std::string> StringAt(const Value* v) {
  if (v == nullptr || !v->is_string()) return std::nullopt;
  return v->as_string();
}

}  // namespace

EventColumns ExtractColumns(const log::Event& e) {
  EventColumns c;
  c.turn = IntAt(e.data, "turn");
  c.step = IntAt(e.data, "step");
  if (e.surface_op) c.surface = e.surface_op->kind == log::SurfaceOp::Kind::kAppend ? "append" : "replace";
  if (e.type == log::kToolCall) {
    c.call_id = StringAt(e.data.Find("callId"));
    c.tool_name = StringAt(e.data.Find("name"));
  } else if (e.type == log::kToolResult) {
    const Value* m = e.data.Find("message");
    const Value* source = m != nullptr ? m->Find("source") : nullptr;
    c.call_id = StringAt(source != nullptr ? source->Find("callId") : nullptr);
    const Value* content = m != nullptr ? m->Find("content") : nullptr;
    const Value* block = content != nullptr && content->is_array() && !content->as_array().empty()
                             ? &content->as_array()[0] : nullptr;
    const Value* is_error = block != nullptr ? block->Find("isError") : nullptr;
    c.is_error = is_error != nullptr && is_error->is_bool() && is_error->as_bool() ? 1 : 0;
  }
  return c;
}

}  // namespace retrace::store
