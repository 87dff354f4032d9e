// The built-in `edit` tool (dsh-reference-tools §2.4): replace literal
// text in an existing UTF-8 file in the workspace, keeping its line endings;
// meta carries the applied hunks.
#ifndef RETRACE_TOOLS_EDIT_TOOL_H_
#define RETRACE_TOOLS_EDIT_TOOL_H_

#include <retrace/engine/runtime/tool_definition.h>
#include <retrace/tools/workspace.h>

namespace retrace::tools {

Result<runtime::ToolDefinitionPtr> EditTool(const Workspace& workspace);

}  // namespace retrace::tools

#endif  // RETRACE_TOOLS_EDIT_TOOL_H_
