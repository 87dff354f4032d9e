#include "tools/builtin_tools.h"

#include "tools/bash_tool.h"
#include "tools/edit_tool.h"
#include "tools/job_tools.h"
#include "tools/read_tool.h"
#include "tools/reference_tool.h"
#include "tools/search_tools.h"
#include "tools/web_fetch_tool.h"
#include "tools/write_tool.h"

namespace retrace::tools {
namespace {

// The built-in tools, in registration order. Each is the reference tool of
// its name: DefineReferenceTool gives it that tool's parameters and
// presenters, so the registry and the presenter set replay uses agree.
struct Builtin {
  std::string_view name;
  bool needs_jobs;
  Result<runtime::ToolDefinitionPtr> (*make)(const ToolHost&);
};

constexpr Builtin kBuiltins[] = {
    {"read", false, [](const ToolHost& h) { return ReadTool(h.workspace); }},
    {"write", false, [](const ToolHost& h) { return WriteTool(h.workspace); }},
    {"edit", false, [](const ToolHost& h) { return EditTool(h.workspace); }},
    {"glob", false, &GlobTool},
    {"grep", false, &GrepTool},
    {"bash", false, &BashTool},
    {"web_fetch", false, [](const ToolHost& h) { return WebFetchTool({.ca_file = h.ca_file}); }},
    {"job_output", true, [](const ToolHost& h) { return JobOutputTool(h.jobs); }},
    {"job_list", true, [](const ToolHost& h) { return JobListTool(h.jobs); }},
    {"job_kill", true, [](const ToolHost& h) { return JobKillTool(h.jobs); }},
};

}  // namespace

Result<std::vector<runtime::ToolDefinitionPtr>> BuiltinTools(const ToolHost& host) {
  if (host.jobs) host.jobs->AttachController();
  std::vector<runtime::ToolDefinitionPtr> tools;
  for (const Builtin& b : kBuiltins) {
    if (b.needs_jobs && !host.jobs) continue;
    ASSIGN_OR_RETURN(runtime::ToolDefinitionPtr tool, b.make(host));
    if (tool->name != b.name) return Status::FailedPrecondition("the built-in tool " + std::string(b.name) + " is named " + tool->name);
    tools.push_back(std::move(tool));
  }
  return tools;
}

}  // namespace retrace::tools
