// The built-in `bash` tool (dsh-reference-tools §3.2, with dsh-bash-local's
// executor): `bash -c` in a fresh process group in the workspace, stdout and
// stderr kept to their last 64,000 bytes each (the rest spilled to a file),
// a 120 s default timeout (600 s cap) with SIGTERM then SIGKILL after 3 s,
// and `run_in_background` through the host's JobRegistry. Non-zero exits,
// signals and timeouts are values with markers; only a failure to start or a
// cancellation is an error.
#ifndef RETRACE_TOOLS_BASH_TOOL_H_
#define RETRACE_TOOLS_BASH_TOOL_H_

#include <retrace/engine/runtime/tool_definition.h>
#include <retrace/tools/tool_host.h>

namespace retrace::tools {

Result<runtime::ToolDefinitionPtr> BashTool(const ToolHost& host);

// The model-facing text of a foreground value (dsh's renderResult).
std::string RenderBashResult(const json::Value& value);

}  // namespace retrace::tools

#endif  // RETRACE_TOOLS_BASH_TOOL_H_
