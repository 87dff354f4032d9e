// The built-in `write` tool (dsh-reference-tools §2.3): create or fully
// replace a UTF-8 text file in the workspace; meta carries the applied hunks.
#ifndef RETRACE_TOOLS_WRITE_TOOL_H_
#define RETRACE_TOOLS_WRITE_TOOL_H_

#include "engine/runtime/tool_definition.h"
#include "tools/workspace.h"

namespace retrace::tools {

Result<runtime::ToolDefinitionPtr> WriteTool(const Workspace& workspace);

}  // namespace retrace::tools

#endif  // RETRACE_TOOLS_WRITE_TOOL_H_
