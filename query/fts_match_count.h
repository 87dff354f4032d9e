// retrace_match_count(search_fts): an FTS5 auxiliary function giving the
// number of highlighted spans highlight() would mark in a matching row —
// phrase instances, overlapping ones merged as highlight() merges them — from
// the instance positions alone. Ranking every match by it costs no string
// building; highlight() then runs only for the rows of the page shown.
#ifndef RETRACE_QUERY_FTS_MATCH_COUNT_H_
#define RETRACE_QUERY_FTS_MATCH_COUNT_H_

#include "engine/base/status.h"
#include "store/sqlite.h"

namespace retrace::query {

// Registers the function on `db` (once per connection).
Status RegisterMatchCount(store::Db& db);

}  // namespace retrace::query

#endif  // RETRACE_QUERY_FTS_MATCH_COUNT_H_
