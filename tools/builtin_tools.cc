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
// Its hints say what it does to the world (runtime::ToolHints), as the MCP
// front door tells clients: {read-only, destructive, idempotent, open world}.
struct Builtin {
  std::string_view name;
  bool needs_jobs;
  Result<runtime::ToolDefinitionPtr> (*make)(const ToolHost&);
  std::string_view title;
  bool read_only, destructive, idempotent, open_world;
};

constexpr Builtin kBuiltins[] = {
    // Reads a workspace file; changes nothing.
    {"read", false, [](const ToolHost& h) { return ReadTool(h.workspace); }, "Read file", true, false, true, false},
    // Overwrites a file whole: the same call again leaves the same file.
    {"write", false, [](const ToolHost& h) { return WriteTool(h.workspace); }, "Write file", false, true, true, false},
    // Replaces text: a repeat finds the old text gone (or replaces again).
    {"edit", false, [](const ToolHost& h) { return EditTool(h.workspace); }, "Edit file", false, true, false, false},
    {"glob", false, &GlobTool, "Find files", true, false, true, false},
    {"grep", false, &GrepTool, "Search file contents", true, false, true, false},
    // Runs any command: it may change anything and reach the network.
    {"bash", false, &BashTool, "Run shell command", false, true, false, true},
    // Fetches a URL: reads the open world, changes nothing here.
    {"web_fetch", false, [](const ToolHost& h) { return WebFetchTool({.ca_file = h.ca_file}); }, "Fetch web page", true,
     false, true, true},
    // Reading a job's output advances what it reports as new.
    {"job_output", true, [](const ToolHost& h) { return JobOutputTool(h.jobs); }, "Background job output", true, false,
     false, false},
    {"job_list", true, [](const ToolHost& h) { return JobListTool(h.jobs); }, "List background jobs", true, false, true,
     false},
    // Stops a job's processes; a job already stopped stays stopped.
    {"job_kill", true, [](const ToolHost& h) { return JobKillTool(h.jobs); }, "Stop background job", false, true, true,
     false},
};

}  // namespace

Result<std::vector<runtime::ToolDefinitionPtr>> BuiltinTools(const ToolHost& host) {
  if (host.jobs) host.jobs->AttachController();
  std::vector<runtime::ToolDefinitionPtr> tools;
  for (const Builtin& b : kBuiltins) {
    if (b.needs_jobs && !host.jobs) continue;
    ASSIGN_OR_RETURN(runtime::ToolDefinitionPtr tool, b.make(host));
    if (tool->name != b.name) return Status::FailedPrecondition("the built-in tool " + std::string(b.name) + " is named " + tool->name);
    auto hinted = std::make_shared<runtime::ToolDefinition>(*tool);
    hinted->hints = runtime::ToolHints{.title = std::string(b.title),
                                       .read_only = b.read_only,
                                       .destructive = b.destructive,
                                       .idempotent = b.idempotent,
                                       .open_world = b.open_world};
    tools.push_back(std::move(hinted));
  }
  return tools;
}

}  // namespace retrace::tools
