// Inspect: exact reads of one stored session, as `retrace events`, `show`,
// `trace` and `lineage` print them (dsh's query service: query/exact_reads.h).
// Each opens the catalog's database as it stands (never creating it).
#ifndef RETRACE_SERVICE_INSPECT_H_
#define RETRACE_SERVICE_INSPECT_H_

#include <cstdint>
#include <functional>
#include <string>

#include "engine/base/status.h"
#include "engine/json/value.h"
#include "service/catalog.h"
#include "store/event_store.h"

namespace retrace::service {

// Calls `fn` with each stored event of `session_id` that `filter` admits, in
// seq order (packed chunk rows expanded). InvalidArgument for a negative seq.
Status ForEachStoredEvent(const Catalog& catalog, const std::string& session_id, const store::EventFilter& filter,
                          const std::function<Status(const store::StoredEvent&)>& fn);

// dsh's readEvent: {session, target, events, startSeq, endSeq}.
Result<json::Value> ShowEvent(const Catalog& catalog, const std::string& session_id, int64_t seq, int64_t before,
                              int64_t after);

// dsh's traceEvent: replacements, sources and the events derived from it.
Result<json::Value> TraceEvent(const Catalog& catalog, const std::string& session_id, int64_t seq);

// dsh's traceSession: the session's ancestors and the sessions forked from it.
Result<json::Value> TraceLineage(const Catalog& catalog, const std::string& session_id);

}  // namespace retrace::service

#endif  // RETRACE_SERVICE_INSPECT_H_
