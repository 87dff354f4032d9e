// The dsh v0 event-type catalog (dsh-session-log §4).
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

// The types the engine reads or writes by name. Written to disk; never rename.
inline constexpr std::string_view kAgentInboxSpliced = "agent/inbox/spliced";
inline constexpr std::string_view kAssistantChunk = "assistant/chunk";
inline constexpr std::string_view kAssistantMessage = "assistant/message";
inline constexpr std::string_view kCompactionSummary = "compaction/summary";
inline constexpr std::string_view kLlmRetry = "llm/retry";
inline constexpr std::string_view kLlmRetryStarted = "llm/retry-started";
inline constexpr std::string_view kRequestContext = "request/context";
inline constexpr std::string_view kRequestHeader = "request/header";
inline constexpr std::string_view kStepEnd = "step/end";
inline constexpr std::string_view kStepStart = "step/start";
inline constexpr std::string_view kTodoWrite = "todo/write";
inline constexpr std::string_view kToolCall = "tool/call";
inline constexpr std::string_view kToolCodeDispatch = "tool/code-dispatch";
inline constexpr std::string_view kToolCodeDispatchStart = "tool/code-dispatch-start";
inline constexpr std::string_view kToolResult = "tool/result";
inline constexpr std::string_view kTurnEnd = "turn/end";
inline constexpr std::string_view kTurnStart = "turn/start";
inline constexpr std::string_view kUserMessage = "user/message";

// Types dsh retired, read only to upgrade old logs (legacy_import.h).
inline constexpr std::string_view kRequestHeaderDelta = "request/header-delta";
inline constexpr std::string_view kModeSet = "mode/set";
inline constexpr std::string_view kSteeringMessage = "steering/message";

// retrace's own types, always written with `ignorable: true` so that dsh
// readers skip them. Written to disk; never rename.
inline constexpr std::string_view kCardSnapshot = "retrace/cards";  // card views at record time
// {tool, revision, schema}: the revision of a tool's arguments, and its schema's
// fingerprint, for that tool's calls in the rest of the turn (presenters/revisions.h).
inline constexpr std::string_view kToolRevision = "retrace/tool-revision";
// The MCP front door (docs/MCP.md): the client of a connection, and how each
// of its requests ended.
inline constexpr std::string_view kMcpClient = "retrace/mcp-client";
inline constexpr std::string_view kMcpRequest = "retrace/mcp-request";

bool IsKnownEventType(std::string_view type);

// The three types that can produce model messages; they must carry a surfaceOp
// and are the only ones that may carry surfaceOp or sourceEventSeqs.
bool IsSurfaceEligible(std::string_view type);

}  // namespace retrace::log

#endif  // RETRACE_ENGINE_LOG_EVENT_TYPES_H_
