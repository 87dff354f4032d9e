#include "engine/runtime/tool_result.h"

namespace retrace::runtime {

Content TextContent(std::string text) {
  Content c;
  c.push_back(json::Value::MakeObject({{"type", "text"}, {"text", std::move(text)}}));
  return c;
}

ToolResult ToolResult::Failure(ErrorDetail detail) {
  ToolResult r;
  r.is_error = true;
  r.content = TextContent("Error: " + detail.message);
  r.error = std::move(detail);
  return r;
}

json::Value ToolResult::ToJson() const {
  json::Value out = json::Value::MakeObject({{"isError", is_error}});
  if (error) {
    json::Value e = json::Value::MakeObject({{"message", error->message}});
    if (error->info) {
      e.Set("info", json::Value::MakeObject({{"name", error->info->name}, {"code", error->info->code}}));
    }
    out.Set("error", std::move(e));
  }
  out.Set("content", json::Value(content));
  if (meta) out.Set("meta", *meta);
  if (!additional_contexts.empty()) out.Set("additionalContexts", json::Value(additional_contexts));
  if (concludes_turn) out.Set("concludesTurn", true);
  if (value) out.Set("value", *value);
  return out;
}

}  // namespace retrace::runtime
