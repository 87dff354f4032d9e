// The built-in `read` tool (dsh-reference-tools §2.1, dsh-tool-fs
// 0.1.0-rc.8): a line-numbered window of a UTF-8 text file in the workspace,
// with upstream's parameters, canonical value, render text, presentationMeta,
// cards, caps and error texts.
#ifndef RETRACE_TOOLS_READ_TOOL_H_
#define RETRACE_TOOLS_READ_TOOL_H_

#include <retrace/engine/runtime/tool_definition.h>
#include <retrace/tools/workspace.h>

namespace retrace::tools {

// dsh-tool-fs's read caps (its plugin config), with upstream's defaults.
struct ReadCaps {
  double limit = 2000;            // default and maximum lines per call
  size_t max_line_length = 2000;  // UTF-16 units kept of one line
  size_t max_bytes = 51200;       // UTF-8 bytes of selected lines
};

Result<runtime::ToolDefinitionPtr> ReadTool(const Workspace& workspace, ReadCaps caps = {});

// The hint a read card uses for syntax highlighting, from the path's
// extension (dsh-tool-fs's langFromPath); "" for none.
std::string LangFromPath(std::string_view path);

}  // namespace retrace::tools

#endif  // RETRACE_TOOLS_READ_TOOL_H_
