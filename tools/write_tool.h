// The built-in `write` tool (dsh-reference-tools §2.3): create or fully
// replace a UTF-8 text file in the workspace; meta carries the applied hunks.
#ifndef RETRACE_TOOLS_WRITE_TOOL_H_
#define RETRACE_TOOLS_WRITE_TOOL_H_

#include <atomic>
#include <chrono>
#include <cstddef>

#include "engine/runtime/tool_definition.h"
#include "tools/workspace.h"

namespace retrace::tools {

// `write` has a brief body (ToolDefinition::execute_brief) while the disk
// keeps it brief. Its fsync is most of its time: a quarter of a millisecond
// on an idle SSD, but tens of milliseconds on a slow or busy disk, during
// which the caller's thread (an MCP server's, say) answers nothing else. So
// once a brief write takes over `kBudget`, the writes of the next `kPause` go
// to the blocking pool, as does content over `kMaxBytes`. Thread-safe.
class BriefWrites {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr size_t kMaxBytes = size_t{1} << 20;
  static constexpr Clock::duration kBudget = std::chrono::milliseconds(2);
  static constexpr Clock::duration kPause = std::chrono::seconds(10);

  // Whether a write of `bytes` may run briefly at `now`.
  bool Admit(size_t bytes, Clock::time_point now) const;
  // A brief write ran from `start` to `end`.
  void Took(Clock::time_point start, Clock::time_point end);

 private:
  std::atomic<Clock::rep> pool_until_{0};  // since the clock's epoch
};

Result<runtime::ToolDefinitionPtr> WriteTool(const Workspace& workspace);

}  // namespace retrace::tools

#endif  // RETRACE_TOOLS_WRITE_TOOL_H_
