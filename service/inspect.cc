#include "service/inspect.h"

#include "query/exact_reads.h"

namespace retrace::service {

Status ForEachStoredEvent(const Catalog& catalog, const std::string& session_id, const store::EventFilter& filter,
                          const std::function<Status(const store::StoredEvent&)>& fn) {
  if (filter.from_seq < 0) return Status::InvalidArgument("--from must be a non-negative seq");
  ASSIGN_OR_RETURN(std::unique_ptr<store::EventStore> store, catalog.Open(Access::kExisting));
  return store->ForEachEvent(session_id, filter, fn);
}

Result<json::Value> ShowEvent(const Catalog& catalog, const std::string& session_id, int64_t seq, int64_t before,
                              int64_t after) {
  ASSIGN_OR_RETURN(std::unique_ptr<store::EventStore> store, catalog.Open(Access::kExisting));
  return query::ReadEventWindow(*store, session_id, seq, before, after);
}

Result<json::Value> TraceEvent(const Catalog& catalog, const std::string& session_id, int64_t seq) {
  ASSIGN_OR_RETURN(std::unique_ptr<store::EventStore> store, catalog.Open(Access::kExisting));
  return query::TraceEvent(*store, session_id, seq);
}

Result<json::Value> TraceLineage(const Catalog& catalog, const std::string& session_id) {
  ASSIGN_OR_RETURN(std::unique_ptr<store::EventStore> store, catalog.Open(Access::kExisting));
  return query::TraceLineage(*store, session_id);
}

}  // namespace retrace::service
