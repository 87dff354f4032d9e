// How retrace's tools look to an MCP client (MCP 2025-11-25 server/tools):
// a registry entry as a tools/list Tool, and a tool result as a
// CallToolResult. Pure functions of the definition and the result.
#ifndef RETRACE_MCP_TOOL_LISTING_H_
#define RETRACE_MCP_TOOL_LISTING_H_

#include "engine/json/value.h"
#include "engine/runtime/tool_definition.h"
#include "engine/runtime/tool_registry.h"
#include "engine/runtime/tool_result.h"

namespace retrace::mcp {

// Whether the tool's value schema has an object root. MCP clients (the TS
// SDK 1.x among them) reject a whole tools/list whose outputSchema is not
// an object, so any other root is wrapped: {result: <value>}.
bool OutputIsObject(const runtime::ToolDefinition& def);

// {name, title?, description, inputSchema, outputSchema?, annotations}.
// `structured`: the revision has outputSchema and title (2025-06-18 on).
json::Value ToolEntry(const runtime::ToolSchema& schema, const runtime::ToolDefinition& def, bool structured);

// {content, structuredContent?, isError}: content = the tool's blocks (text
// blocks as they are; any other block as a text block holding its JSON),
// structuredContent = the canonical value of a success (wrapped when the
// schema root is not an object), when `structured` and the tool is known.
json::Value CallResult(const runtime::ToolResult& result, const runtime::ToolDefinition* def, bool structured);

}  // namespace retrace::mcp

#endif  // RETRACE_MCP_TOOL_LISTING_H_
