// Full-text search of a database other processes may be appending to, as
// `retrace search` runs it: bring the index up to date, then search
// (query/search.h). The hits are complete up to the catch-up; what other
// processes append after it is newer than the search (IndexLag::kAfterCatchUp),
// so a database under steady appends is searched, never refused as behind.
#ifndef RETRACE_SERVICE_SEARCH_H_
#define RETRACE_SERVICE_SEARCH_H_

#include <functional>

#include "engine/base/status.h"
#include "query/search.h"
#include "service/catalog.h"

namespace retrace::service {

Result<query::SearchPage> SearchStored(const Catalog& catalog, const query::SearchRequest& request,
                                       const std::function<bool()>& interrupt = {});

}  // namespace retrace::service

#endif  // RETRACE_SERVICE_SEARCH_H_
