// The built-in tools a host registers (`retrace run` and `retrace demo`
// register these): dsh's reference tools implemented natively — read, write,
// edit (confined to the workspace), glob, grep, bash, and, when the host has
// a JobRegistry, job_output, job_list and job_kill.
#ifndef RETRACE_TOOLS_BUILTIN_TOOLS_H_
#define RETRACE_TOOLS_BUILTIN_TOOLS_H_

#include <vector>

#include <retrace/engine/runtime/tool_definition.h>
#include <retrace/tools/tool_host.h>

namespace retrace::tools {

Result<std::vector<runtime::ToolDefinitionPtr>> BuiltinTools(const ToolHost& host);

}  // namespace retrace::tools

#endif  // RETRACE_TOOLS_BUILTIN_TOOLS_H_
