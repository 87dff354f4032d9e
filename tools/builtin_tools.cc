#include "tools/builtin_tools.h"

#include "tools/bash_tool.h"
#include "tools/edit_tool.h"
#include "tools/job_tools.h"
#include "tools/read_tool.h"
#include "tools/search_tools.h"
#include "tools/web_fetch_tool.h"
#include "tools/write_tool.h"

namespace retrace::tools {

Result<std::vector<runtime::ToolDefinitionPtr>> BuiltinTools(const ToolHost& host) {
  std::vector<runtime::ToolDefinitionPtr> tools;
  for (Result<runtime::ToolDefinitionPtr> (*make)(const ToolHost&) :
       {+[](const ToolHost& h) { return ReadTool(h.workspace); }, +[](const ToolHost& h) { return WriteTool(h.workspace); },
        +[](const ToolHost& h) { return EditTool(h.workspace); }, &GlobTool, &GrepTool, &BashTool}) {
    ASSIGN_OR_RETURN(runtime::ToolDefinitionPtr tool, make(host));
    tools.push_back(std::move(tool));
  }
  ASSIGN_OR_RETURN(runtime::ToolDefinitionPtr fetch, WebFetchTool({.ca_file = host.ca_file}));
  tools.push_back(std::move(fetch));
  if (host.jobs) {
    ASSIGN_OR_RETURN(std::vector<runtime::ToolDefinitionPtr> jobs, JobTools(host.jobs));
    for (runtime::ToolDefinitionPtr& tool : jobs) tools.push_back(std::move(tool));
  }
  return tools;
}

}  // namespace retrace::tools
