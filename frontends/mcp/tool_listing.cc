#include "frontends/mcp/tool_listing.h"

#include "engine/json/writer.h"

namespace retrace::mcp {

using json::Value;

bool OutputIsObject(const runtime::ToolDefinition& def) {
  const Value* type = def.output.schema.Find("type");
  return type && type->is_string() && type->as_string() == "object";
}

namespace {

Value OutputSchema(const runtime::ToolDefinition& def) {
  if (OutputIsObject(def)) return def.output.schema;
  Value::Array required;
  required.push_back("result");
  return Value::MakeObject({{"type", "object"},
                            {"properties", Value::MakeObject({{"result", def.output.schema}})},
                            {"required", Value(std::move(required))},
                            {"additionalProperties", false}});
}

Value Annotations(const runtime::ToolHints& h) {
  Value a = Value::MakeObject();
  if (!h.title.empty()) a.Set("title", h.title);
  a.Set("readOnlyHint", h.read_only);
  a.Set("destructiveHint", !h.read_only && h.destructive);
  a.Set("idempotentHint", h.idempotent);
  a.Set("openWorldHint", h.open_world);
  return a;
}

Value McpBlock(const Value& block) {
  const Value* type = block.Find("type");
  const Value* text = block.Find("text");
  if (type && type->is_string() && type->as_string() == "text" && text && text->is_string()) {
    return Value::MakeObject({{"type", "text"}, {"text", text->as_string()}});
  }
  return Value::MakeObject({{"type", "text"}, {"text", json::Serialize(block)}});
}

}  // namespace

Value ToolEntry(const runtime::ToolSchema& schema, const runtime::ToolDefinition& def, bool structured) {
  Value tool = Value::MakeObject({{"name", schema.name}});
  if (structured && def.hints && !def.hints->title.empty()) tool.Set("title", def.hints->title);
  tool.Set("description", schema.description);
  tool.Set("inputSchema", schema.parameters);
  if (structured) tool.Set("outputSchema", OutputSchema(def));
  if (def.hints) tool.Set("annotations", Annotations(*def.hints));
  return tool;
}

Value CallResult(const runtime::ToolResult& result, const runtime::ToolDefinition* def, bool structured) {
  Value::Array content;
  for (const Value& block : result.content) content.push_back(McpBlock(block));
  Value out = Value::MakeObject({{"content", Value(std::move(content))}});
  if (structured && def && !result.is_error && result.value) {
    out.Set("structuredContent", OutputIsObject(*def) ? *result.value : Value::MakeObject({{"result", *result.value}}));
  }
  out.Set("isError", result.is_error);
  return out;
}

}  // namespace retrace::mcp
