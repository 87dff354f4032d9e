#include "service/search.h"

namespace retrace::service {

Result<query::SearchPage> SearchStored(const Catalog& catalog, const query::SearchRequest& request,
                                       const std::function<bool()>& interrupt) {
  {  // index what was appended since the last search (a no-op when nothing was)
    ASSIGN_OR_RETURN(std::unique_ptr<store::EventStore> store, catalog.Open(Access::kExisting));
    RETURN_IF_ERROR(store->CatchUpSearchIndex());
  }
  ASSIGN_OR_RETURN(query::ReadOnlyDb db, catalog.OpenReadOnly());
  return query::Search(db, request, interrupt, query::IndexLag::kAfterCatchUp);
}

}  // namespace retrace::service
