#include "service/maintain.h"

#include "store/session_writer.h"

namespace retrace::service {

Result<RepairOutcome> RepairSession(const Catalog& catalog, const std::string& session_id) {
  ASSIGN_OR_RETURN(std::unique_ptr<store::EventStore> store, catalog.Open(Access::kExisting));
  ASSIGN_OR_RETURN(auto writer, store->OpenWriter(session_id));
  RepairOutcome outcome;
  outcome.first_seq = writer->next_seq();
  ASSIGN_OR_RETURN(outcome.added, writer->RepairOpenTurn());
  return outcome;
}

Status CatchUpSearchIndex(const Catalog& catalog) {
  ASSIGN_OR_RETURN(std::unique_ptr<store::EventStore> store, catalog.Open(Access::kExisting));
  return store->CatchUpSearchIndex();
}

Status RebuildReadModel(const Catalog& catalog, const std::function<void(int64_t, int64_t)>& progress) {
  ASSIGN_OR_RETURN(std::unique_ptr<store::EventStore> store, catalog.Open(Access::kExisting));
  return store->RebuildReadModel(progress);
}

}  // namespace retrace::service
