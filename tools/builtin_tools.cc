#include "tools/builtin_tools.h"

#include "tools/edit_tool.h"
#include "tools/read_tool.h"
#include "tools/write_tool.h"

namespace retrace::tools {

Result<std::vector<runtime::ToolDefinitionPtr>> BuiltinTools(const Workspace& workspace) {
  std::vector<runtime::ToolDefinitionPtr> tools;
  ASSIGN_OR_RETURN(runtime::ToolDefinitionPtr read, ReadTool(workspace));
  tools.push_back(std::move(read));
  ASSIGN_OR_RETURN(runtime::ToolDefinitionPtr write, WriteTool(workspace));
  tools.push_back(std::move(write));
  ASSIGN_OR_RETURN(runtime::ToolDefinitionPtr edit, EditTool(workspace));
  tools.push_back(std::move(edit));
  return tools;
}

}  // namespace retrace::tools
