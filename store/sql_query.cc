#include "store/sql_query.h"

#include <sqlite3.h>

#include <filesystem>

#include "store/fts_match_count.h"
#include "store/migrations.h"
#include "store/schema_lock.h"

namespace retrace::store {
namespace {

const char* Arg(const char* s) { return s ? s : ""; }

// PRAGMAs that only report. The first group takes a table or index name; the
// second reports a setting, and given a value would change it (refused).
bool ReportingPragma(std::string_view name, const char* arg) {
  for (std::string_view ok : {"table_info", "table_xinfo", "index_list", "index_info", "index_xinfo", "foreign_key_list"})
    if (name == ok) return true;
  for (std::string_view ok : {"table_list", "function_list", "pragma_list", "collation_list", "database_list",
                              "user_version", "application_id", "page_size", "page_count", "freelist_count",
                              "compile_options", "data_version", "schema_version", "encoding"}) {
    if (name == ok) return arg == nullptr;
  }
  return false;
}

// Writes to SQLite's own catalog are what CREATE, DROP and ALTER do.
std::string Target(const char* table) {
  return std::string_view(Arg(table)).rfind("sqlite_", 0) == 0 ? std::string() : std::string(table);
}

struct Refusal {
  std::string what;  // set when the authorizer refused something
};


int Authorize(void* data, int action, const char* a, const char* b, const char*, const char*) {
  auto* refusal = static_cast<Refusal*>(data);
  auto refuse = [&](std::string what) {
    if (refusal->what.empty()) refusal->what = std::move(what);
    return SQLITE_DENY;
  };
  switch (action) {
    case SQLITE_SELECT:
    case SQLITE_READ:
    case SQLITE_RECURSIVE:
      return SQLITE_OK;
    case SQLITE_FUNCTION:
      if (std::string_view(Arg(b)) == "load_extension") return refuse("load_extension()");
      return SQLITE_OK;
    case SQLITE_PRAGMA:
      if (a && ReportingPragma(a, b)) return SQLITE_OK;
      return refuse(std::string("PRAGMA ") + Arg(a) + (b ? " = " + std::string(b) : ""));
    case SQLITE_INSERT: return refuse(Target(a).empty() ? "a schema change" : "INSERT into " + Target(a));
    case SQLITE_UPDATE: return refuse(Target(a).empty() ? "a schema change" : "UPDATE of " + Target(a));
    case SQLITE_DELETE: return refuse(Target(a).empty() ? "a schema change" : "DELETE from " + Target(a));
    case SQLITE_ATTACH: return refuse(std::string("ATTACH ") + Arg(a));
    case SQLITE_DETACH: return refuse(std::string("DETACH ") + Arg(a));
    case SQLITE_TRANSACTION: return refuse("a transaction statement");
    case SQLITE_SAVEPOINT: return refuse("SAVEPOINT");
    case SQLITE_ANALYZE: return refuse("ANALYZE");
    case SQLITE_REINDEX: return refuse("REINDEX");
    default: return refuse("a schema change");  // CREATE / DROP / ALTER of anything
  }
}

int Interrupt(void* data) {
  const auto* interrupt = static_cast<const std::function<bool()>*>(data);
  return (*interrupt)() ? 1 : 0;
}

SqlCell Cell(sqlite3_stmt* st, int col) {
  switch (sqlite3_column_type(st, col)) {
    case SQLITE_INTEGER: return sqlite3_column_int64(st, col);
    case SQLITE_FLOAT: return sqlite3_column_double(st, col);
    case SQLITE_NULL: return std::monostate();
    default: {
      const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(st, col));
      return std::string(p ? p : "", static_cast<size_t>(sqlite3_column_bytes(st, col)));
    }
  }
}

void BindParam(sqlite3_stmt* st, int i, const SqlValue& v) {
  if (const auto* n = std::get_if<int64_t>(&v)) {
    sqlite3_bind_int64(st, i, *n);
  } else if (const auto* s = std::get_if<std::string>(&v)) {
    sqlite3_bind_text(st, i, s->data(), static_cast<int>(s->size()), SQLITE_TRANSIENT);
  } else {
    sqlite3_bind_null(st, i);
  }
}

}  // namespace

Result<ReadOnlyDb> ReadOnlyDb::Open(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return Status::NotFound("no database at " + path);
  // Shared: waits while another process is creating or migrating the file.
  ASSIGN_OR_RETURN(SchemaLock schema_lock, SchemaLock::Acquire(path, SchemaLock::Mode::kShared, kDefaultOpenTimeout,
                                                               /*optional=*/true));
  ASSIGN_OR_RETURN(Db db, Db::Open(path, Db::Mode::kReadOnly));
  ASSIGN_OR_RETURN(MigrationState state, InspectSchema(db, EmbeddedMigrations()));
  if (state.fresh) return Status::Corruption(path + " is not a retrace database");
  if (!state.pending.empty()) return NeedsMigration(path, state);
  // Connect the FTS5 table now: its module's own setup statements would
  // otherwise pass through the authorizer of the first query that uses it.
  RETURN_IF_ERROR(db.Exec("SELECT 1 FROM search_fts LIMIT 0"));
  RETURN_IF_ERROR(RegisterMatchCount(db));
  return ReadOnlyDb(std::move(db));
}

Result<QueryTable> ReadOnlyDb::Run(std::string_view sql, std::span<const SqlValue> params,
                                   const std::function<bool()>& interrupt) {
  sqlite3* raw = db_.get();
  Refusal refusal;
  sqlite3_set_authorizer(raw, Authorize, &refusal);
  sqlite3_stmt* st = nullptr;
  const char* tail = nullptr;
  const int rc = sqlite3_prepare_v2(raw, sql.data(), static_cast<int>(sql.size()), &st, &tail);
  sqlite3_set_authorizer(raw, nullptr, nullptr);
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> owned(st, sqlite3_finalize);
  if (!refusal.what.empty()) return Status::InvalidArgument("refused: queries are read-only, and this one asks for " + refusal.what);
  if (rc != SQLITE_OK) return Status::InvalidArgument(std::string("invalid SQL: ") + sqlite3_errmsg(raw));
  if (!st) return Status::InvalidArgument("empty query: give one SELECT statement");
  for (const char* p = tail; p && *p; ++p) {
    if (*p != ' ' && *p != '\n' && *p != '\t' && *p != '\r' && *p != ';')
      return Status::InvalidArgument("one statement per query: remove what follows the first ';'");
  }
  if (!sqlite3_stmt_readonly(st)) return Status::InvalidArgument("refused: queries are read-only");
  for (size_t i = 0; i < params.size(); ++i) BindParam(st, static_cast<int>(i + 1), params[i]);

  QueryTable table;
  const int columns = sqlite3_column_count(st);
  for (int c = 0; c < columns; ++c) table.columns.emplace_back(sqlite3_column_name(st, c));
  if (interrupt) sqlite3_progress_handler(raw, 1000, Interrupt, const_cast<std::function<bool()>*>(&interrupt));
  int step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    std::vector<SqlCell> row;
    row.reserve(static_cast<size_t>(columns));
    for (int c = 0; c < columns; ++c) row.push_back(Cell(st, c));
    table.rows.push_back(std::move(row));
  }
  sqlite3_progress_handler(raw, 0, nullptr, nullptr);
  if (step == SQLITE_INTERRUPT) return Status::DeadlineExceeded("the query ran past its time limit and was interrupted");
  if (step != SQLITE_DONE) return db_.Error("query");
  return table;
}

}  // namespace retrace::store
