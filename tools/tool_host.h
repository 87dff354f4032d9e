// ToolHost: what the built-in tools need from the program that hosts them.
// The host (frontends/cli/) reads the environment and the clock; the tools only use
// what it hands over here, so tests can run them hermetically.
#ifndef RETRACE_TOOLS_TOOL_HOST_H_
#define RETRACE_TOOLS_TOOL_HOST_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <retrace/engine/runtime/execution.h>
#include <retrace/tools/jobs.h>
#include <retrace/tools/workspace.h>

namespace retrace::tools {

struct ToolHost {
  Workspace workspace;  // fs confinement, and the cwd of bash, glob and grep
  // What child processes inherit ("NAME=value"), before dsh's credential scrub.
  std::vector<std::string> environment{};
  // Where over-cap output is saved (bash streams, glob/grep full results).
  // Empty: nothing is saved, and the notes say the result is unavailable.
  std::string spill_dir{};
  // Background jobs (bash run_in_background, job_*). Null: refused.
  std::shared_ptr<JobRegistry> jobs{};
  std::string ripgrep = "rg";  // the ripgrep binary glob and grep run
  // Extra CA certificates web_fetch trusts for https (WebFetchOptions::ca_file).
  std::string ca_file{};
};

// The session a call belongs to (ToolCallInput::session_id; nullopt for a
// call outside any session). It owns jobs and spill files.
inline std::optional<std::string> SessionId(const runtime::ToolRunContext& run) { return run.session_id(); }

}  // namespace retrace::tools

#endif  // RETRACE_TOOLS_TOOL_HOST_H_
