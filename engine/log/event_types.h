// The dsh v0 event-type catalog (spec/dsh-session-log.md §4).
//
// Written to disk; never rename. Adding a type here is the only way the engine
// learns one: events of other types must be marked `ignorable: true`.
#ifndef RETRACE_ENGINE_LOG_EVENT_TYPES_H_
#define RETRACE_ENGINE_LOG_EVENT_TYPES_H_

#include <array>
#include <string_view>

namespace retrace::log {

inline constexpr std::array<std::string_view, 48> kKnownEventTypes = {
    "agent-preset/selected", "agent/inbox/spliced", "approval/asked", "approval/decided",
    "approval/policy", "assistant/chunk", "assistant/message", "command/done", "command/run",
    "compaction/end", "compaction/prune", "compaction/start", "compaction/summary",
    "feedback/record", "goal/change", "hook/invoked", "hook/result", "llm/retry",
    "llm/retry-started", "permission/preset", "plan/mode", "request/context", "request/header",
    "sandbox/mode", "schedule/change", "session/end-seed", "session/title",
    "session/title-llm-request", "step/end", "step/start", "subagent/descriptor", "team/member",
    "team/message/delivered", "team/message/queued", "team/task", "todo/write",
    "tool-workflow/agent-end", "tool-workflow/agent-start", "tool-workflow/run-end",
    "tool-workflow/run-start", "tool/call", "tool/code-dispatch", "tool/code-dispatch-start",
    "tool/result", "turn/end", "turn/start", "user/message", "web/deepseek-search-llm-request",
};

bool IsKnownEventType(std::string_view type);

// The three types that can produce model messages; they must carry a surfaceOp
// and are the only ones that may carry surfaceOp or sourceEventSeqs.
bool IsSurfaceEligible(std::string_view type);

}  // namespace retrace::log

#endif  // RETRACE_ENGINE_LOG_EVENT_TYPES_H_
