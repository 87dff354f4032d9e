// A built-in tool is one of dsh's reference tools: its parameter schema and
// its presenters are the reference tool's (presenters/reference_tools.h), so
// that its calls replay to the cards dsh shows. DefineReferenceTool fills in
// both from the tool's name, once for every built-in tool.
#ifndef RETRACE_TOOLS_REFERENCE_TOOL_H_
#define RETRACE_TOOLS_REFERENCE_TOOL_H_

#include <retrace/engine/runtime/tool_definition.h>

namespace retrace::tools {

// DefineTool(spec) with spec.parameters and spec.presenter those of the
// reference tool spec.name (which must give neither).
Result<runtime::ToolDefinitionPtr> DefineReferenceTool(runtime::ToolDefinition spec);

}  // namespace retrace::tools

#endif  // RETRACE_TOOLS_REFERENCE_TOOL_H_
