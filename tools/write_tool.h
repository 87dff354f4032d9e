// The built-in `write` tool (dsh-reference-tools §2.3): create or fully
// replace a UTF-8 text file in the workspace; meta carries the applied hunks.
#ifndef RETRACE_TOOLS_WRITE_TOOL_H_
#define RETRACE_TOOLS_WRITE_TOOL_H_

#include <atomic>
#include <chrono>
#include <cstddef>

#include <retrace/engine/runtime/tool_definition.h>
#include <retrace/tools/workspace.h>

namespace retrace::tools {

// `write` has a brief body (ToolDefinition::execute_brief) while the disk
// keeps it brief. Its fsync is most of its time: a quarter of a millisecond
// on an idle SSD, but tens of milliseconds on a slow or busy disk, during
// which the caller's thread (an MCP server's, say) answers nothing else. So
// every write's time feeds a moving average (each write weighs 1/8), and
// writes run briefly only while it is within `kBudget`: a lone slow fsync
// leaves them brief, a slow disk sends them to the blocking pool until its
// writes are fast again. Content over `kMaxBytes` always goes to the pool.
// Thread-safe.
class BriefWrites {
 public:
  using Duration = std::chrono::nanoseconds;
  static constexpr size_t kMaxBytes = size_t{1} << 20;
  static constexpr Duration kBudget = std::chrono::milliseconds(2);

  // Whether a write of `bytes` may run briefly now.
  bool Admit(size_t bytes) const;
  // A write (brief or not) took `took`.
  void Took(Duration took);
  Duration average() const { return Duration(average_.load(std::memory_order_relaxed)); }

 private:
  std::atomic<Duration::rep> average_{0};
};

Result<runtime::ToolDefinitionPtr> WriteTool(const Workspace& workspace);

}  // namespace retrace::tools

#endif  // RETRACE_TOOLS_WRITE_TOOL_H_
