// Exact reads over stored sessions, with the rules and error codes of dsh's
// query service (dsh-session-log §10.1): an event with a window
// around it, an event's trace (surface replacements, sources, derived
// events), and a session's lineage (parents and forks). Results are JSON in
// dsh's shapes; errors carry dsh's codes as a message prefix.
#ifndef RETRACE_QUERY_EXACT_READS_H_
#define RETRACE_QUERY_EXACT_READS_H_

#include <cstdint>
#include <string>

#include "engine/base/status.h"
#include "engine/json/value.h"
#include "store/event_store.h"

namespace retrace::query {

inline constexpr int64_t kReadWindowMax = 50;

// {session: header, target: event, events: [event...], startSeq, endSeq}.
// `before` and `after` are 0..50 (SESSION_QUERY_INVALID_WINDOW otherwise).
Result<json::Value> ReadEventWindow(store::EventStore& store, const std::string& session_id, int64_t seq, int64_t before,
                                    int64_t after);

// {session: header, target: record, replacedBy?, replacementChain, replacedEventSeqs, sourceEventSeqs,
// derivedEventSeqs}, a record being {sessionId, seq, type, time, surface}:
// the replace that shadowed the target and on to the final replacer; what the
// target itself shadowed; what it cites; which later events cite it. Not transitive.
Result<json::Value> TraceEvent(store::EventStore& store, const std::string& session_id, int64_t seq);

// {target, ancestors (nearest first), descendants: [{session, descendants}]
// (children by creation time, then id), complete, root | unresolvedParentId},
// each session a record {header, live: false, persisted: true}.
// A parent cycle is SESSION_QUERY_INVALID_LINEAGE.
Result<json::Value> TraceLineage(store::EventStore& store, const std::string& session_id);

}  // namespace retrace::query

#endif  // RETRACE_QUERY_EXACT_READS_H_
