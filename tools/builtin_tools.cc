#include "tools/builtin_tools.h"

#include "tools/read_tool.h"

namespace retrace::tools {

Result<std::vector<runtime::ToolDefinitionPtr>> BuiltinTools(const Workspace& workspace) {
  std::vector<runtime::ToolDefinitionPtr> tools;
  ASSIGN_OR_RETURN(runtime::ToolDefinitionPtr read, ReadTool(workspace));
  tools.push_back(std::move(read));
  return tools;
}

}  // namespace retrace::tools
