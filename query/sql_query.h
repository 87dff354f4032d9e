// Read-only SQL over a retrace database: `retrace query`, the canned audits
// and search all run through here.
//
// Read-only for real, three ways over: the connection is opened read-only;
// an authorizer refuses every write, schema change, ATTACH/DETACH, a PRAGMA
// that sets a value and load_extension(), naming what was refused; and a
// statement SQLite does not certify as read-only (sqlite3_stmt_readonly) is
// refused before it runs. One statement per query. `interrupt` is polled
// while the statement runs: when it returns true the query stops with
// kDeadlineExceeded (the caller decides the time limit; store/ reads no clock).
#ifndef RETRACE_QUERY_SQL_QUERY_H_
#define RETRACE_QUERY_SQL_QUERY_H_

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "engine/base/status.h"
#include "store/read_model.h"
#include "store/sqlite.h"

namespace retrace::query {

using SqlCell = std::variant<std::monostate, int64_t, double, std::string>;

struct QueryTable {
  std::vector<std::string> columns;
  std::vector<std::vector<SqlCell>> rows;
};

// What a query may name. kAll serves retrace's own reports; kViews is what
// `retrace query` gives people: the documented views, the full-text index and
// SQLite's catalog, but not the storage tables behind them.
enum class QueryAccess { kAll, kViews };

class ReadOnlyDb {
 public:
  // Opens `path` read-only. Refuses a file that is not a retrace database, or
  // one whose schema is older or newer than this binary's.
  static Result<ReadOnlyDb> Open(const std::string& path);

  // Runs one statement with `params` bound to ?1, ?2, ...
  Result<QueryTable> Run(std::string_view sql, std::span<const store::SqlValue> params = {},
                         const std::function<bool()>& interrupt = {}, QueryAccess access = QueryAccess::kAll);

  store::Db& db() { return db_; }

 private:
  ReadOnlyDb(store::Db db, std::vector<std::string> storage_tables)
      : db_(std::move(db)), storage_tables_(std::move(storage_tables)) {}
  store::Db db_;
  // The tables a kViews query may not name (all but the FTS index), sorted.
  std::vector<std::string> storage_tables_;
};

}  // namespace retrace::query

#endif  // RETRACE_QUERY_SQL_QUERY_H_
