// The built-in tools a host registers (`retrace run` registers these): the
// reference tools of dsh implemented natively, confined to a workspace.
// So far: read, write and edit. (glob, grep, bash, jobs and web_fetch follow.)
#ifndef RETRACE_TOOLS_BUILTIN_TOOLS_H_
#define RETRACE_TOOLS_BUILTIN_TOOLS_H_

#include <vector>

#include "engine/runtime/tool_definition.h"
#include "tools/workspace.h"

namespace retrace::tools {

Result<std::vector<runtime::ToolDefinitionPtr>> BuiltinTools(const Workspace& workspace);

}  // namespace retrace::tools

#endif  // RETRACE_TOOLS_BUILTIN_TOOLS_H_
