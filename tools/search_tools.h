// The built-in search tools `glob` and `grep` (dsh-reference-tools §3.1):
// ripgrep run with an argv vector (no shell) in the workspace, paths shown
// relative to it, the model-facing list capped (glob: 100 paths, sampled
// across top-level entries past the cap; grep: 250 matches, lines previewed
// to 2,000 bytes), the complete result saved through the spill store when
// capped, and the search card's meta kept under 64 KiB.
#ifndef RETRACE_TOOLS_SEARCH_TOOLS_H_
#define RETRACE_TOOLS_SEARCH_TOOLS_H_

#include <retrace/engine/runtime/tool_definition.h>
#include <retrace/tools/tool_host.h>

namespace retrace::tools {

Result<runtime::ToolDefinitionPtr> GlobTool(const ToolHost& host);
Result<runtime::ToolDefinitionPtr> GrepTool(const ToolHost& host);

}  // namespace retrace::tools

#endif  // RETRACE_TOOLS_SEARCH_TOOLS_H_
