// Interrupted-turn closers (dsh-session-log §8.2): the deterministic
// events that close a turn a crash left open, byte-identical to dsh's
// `interruptedTurnClosers`.
#ifndef RETRACE_ENGINE_LOG_TURN_CLOSERS_H_
#define RETRACE_ENGINE_LOG_TURN_CLOSERS_H_

#include <span>
#include <vector>

#include <retrace/engine/log/event.h>

namespace retrace::log {

// Closer texts; written to disk, never change.
inline constexpr std::string_view kToolOutcomeUnknownText =
    "The tool call was interrupted after it was recorded, but no result was durably recorded. Its "
    "outcome is unknown. Decide whether to retry from the tool semantics: retry only if the operation "
    "is read-only or idempotent; if it may have side effects, first verify external state or ask the "
    "user. Do not retry blindly.";
inline constexpr std::string_view kToolNotStartedText =
    "The tool call was interrupted before the Harness recorded it as started. Retry it if it is still needed.";

// For a log whose last turn is open: one tool/result per pending call (in the
// order the assistant requested them), then step/end if a step is open, then
// turn/end {kind:'interrupted'}. Seqs continue the log; time = last event's
// time. Serialize them with EnvelopeOrder::kRepairCloser. A balanced or empty log gets none. REQUIRES: `events` contiguous.
std::vector<Event> InterruptedTurnClosers(std::span<const Event> events);

}  // namespace retrace::log

#endif  // RETRACE_ENGINE_LOG_TURN_CLOSERS_H_
