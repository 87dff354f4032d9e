// The job control tools (dsh-reference-tools §3.4): job_output, job_list
// and job_kill over the host's JobRegistry, and the completion notice a
// finished, unreported owned job delivers to its session.
#ifndef RETRACE_TOOLS_JOB_TOOLS_H_
#define RETRACE_TOOLS_JOB_TOOLS_H_

#include <vector>

#include <retrace/engine/runtime/tool_definition.h>
#include <retrace/tools/jobs.h>

namespace retrace::tools {

// Each over `jobs` (REQUIRES: not null, its controller attached, so that
// producers may start jobs: BuiltinTools attaches it).
Result<runtime::ToolDefinitionPtr> JobOutputTool(const std::shared_ptr<JobRegistry>& jobs);
Result<runtime::ToolDefinitionPtr> JobListTool(const std::shared_ptr<JobRegistry>& jobs);
Result<runtime::ToolDefinitionPtr> JobKillTool(const std::shared_ptr<JobRegistry>& jobs);

// The notice dsh-tool-jobs injects when an owned job finishes unreported:
// `background job <id> (<kind>: <label>) finished <statusLine>. Read its output with job_output.`
std::string CompletionNotice(const JobSnapshot& job);
// Its context source: {kind:'plugin', plugin:'tool-jobs', form:'notice', summary}.
json::Value CompletionNoticeSource(const JobSnapshot& job);

}  // namespace retrace::tools

#endif  // RETRACE_TOOLS_JOB_TOOLS_H_
