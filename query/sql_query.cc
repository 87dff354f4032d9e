#include "query/sql_query.h"

#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <vector>

#include "query/fts_match_count.h"
#include "store/migrations.h"
#include "store/schema_lock.h"

namespace retrace::query {
namespace {

const char* Arg(const char* s) { return s ? s : ""; }

// PRAGMAs that only report. The first group takes a table or index name; the
// second reports a setting, and given a value would change it (refused).
bool ReportingPragma(std::string_view name, const char* arg) {
  for (std::string_view ok :
       {"table_info", "table_xinfo", "index_list", "index_info", "index_xinfo", "foreign_key_list"}) {
    if (name == ok) return true;
  }
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
  QueryAccess access = QueryAccess::kAll;
  const std::vector<std::string>* storage_tables = nullptr;  // kViews: sorted
  std::string what;  // set when the authorizer refused something
  // kViews: storage tables read outside any view. SQLite also reports some
  // reads that a view makes as top-level ones (a view's join under GROUP BY),
  // so these are refused only when the query names them itself.
  std::vector<std::string> read_directly;
};

// The words of a statement, lowercased, with its quoted names, commas and
// parentheses, outside string literals and comments.
std::vector<std::string> NamedIdentifiers(std::string_view sql) {
  std::vector<std::string> out;
  auto lower = [](std::string_view w) {
    std::string l(w);
    for (char& c : l) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return l;
  };
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; };
  for (size_t i = 0; i < sql.size();) {
    const char c = sql[i];
    if (c == '\'') {  // a string literal, '' inside it
      for (++i; i < sql.size(); ++i) {
        if (sql[i] == '\'' && (i + 1 == sql.size() || sql[++i] != '\'')) break;
      }
    } else if (c == '-' && i + 1 < sql.size() && sql[i + 1] == '-') {
      while (i < sql.size() && sql[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < sql.size() && sql[i + 1] == '*') {
      const size_t end = sql.find("*/", i + 2);
      i = end == std::string_view::npos ? sql.size() : end + 2;
    } else if (c == '"' || c == '`' || c == '[') {
      const char close = c == '[' ? ']' : c;
      const size_t end = sql.find(close, i + 1);
      out.push_back(lower(sql.substr(i + 1, (end == std::string_view::npos ? sql.size() : end) - i - 1)));
      i = end == std::string_view::npos ? sql.size() : end + 1;
    } else if (word(c)) {
      const size_t start = i;
      while (i < sql.size() && word(sql[i])) ++i;
      out.push_back(lower(sql.substr(start, i - start)));
    } else {
      if (c == ',' || c == '(' || c == ')') out.emplace_back(1, c);
      ++i;
    }
  }
  return out;
}

// kViews: a storage table may be read through a view, not named in the query
// itself. Its rows hold internal keys (a session's local id where the view has
// its session id), and its columns may change between versions. The message
// names the table's view v_<table> when the schema has one.
std::string StorageTableRefusal(store::Db& db, const std::string& table) {
  auto has_view = store::Statement::Prepare(db, "SELECT 1 FROM sqlite_schema WHERE type = 'view' AND name = ?");
  if (has_view.ok()) {
    has_view->Bind(1, "v_" + table);
    if (Result<bool> row = has_view->Step(); row.ok() && *row) {
      return "the storage table " + table + " (its keys are internal); query the view v_" + table + " instead";
    }
  }
  return "the internal table " + table + "; query the views of docs/AUDIT.md instead";
}

// The tables of the schema a user query may not name: every table but the
// full-text index (for MATCH). Views, SQLite's catalog and a query's own CTEs
// are not among them.
Result<std::vector<std::string>> StorageTables(store::Db& db) {
  ASSIGN_OR_RETURN(store::Statement st, store::Statement::Prepare(db,
      "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'search_fts'"
      " ORDER BY name"));
  std::vector<std::string> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) return out;
    out.emplace_back(st.Text(0));
  }
}


int Authorize(void* data, int action, const char* a, const char* b, const char*, const char* view) {
  auto* refusal = static_cast<Refusal*>(data);
  auto refuse = [&](std::string what) {
    if (refusal->what.empty()) refusal->what = std::move(what);
    return SQLITE_DENY;
  };
  switch (action) {
    case SQLITE_READ:
      if (refusal->access == QueryAccess::kViews && view == nullptr &&
          std::binary_search(refusal->storage_tables->begin(), refusal->storage_tables->end(), std::string(Arg(a)))) {
        refusal->read_directly.emplace_back(Arg(a));
      }
      return SQLITE_OK;
    case SQLITE_SELECT:
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

void BindParam(sqlite3_stmt* st, int i, const store::SqlValue& v) {
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
  ASSIGN_OR_RETURN(store::SchemaLock schema_lock, store::SchemaLock::Acquire(path, store::SchemaLock::Mode::kShared, store::kDefaultOpenTimeout,
                                                               /*optional=*/true));
  ASSIGN_OR_RETURN(store::Db db, store::Db::Open(path, store::Db::Mode::kReadOnly));
  ASSIGN_OR_RETURN(store::MigrationState state, store::InspectSchema(db, store::EmbeddedMigrations()));
  if (state.fresh) return Status::Corruption(path + " is not a retrace database");
  if (!state.pending.empty()) return store::NeedsMigration(path, state);
  // Connect the FTS5 table now: its module's own setup statements would
  // otherwise pass through the authorizer of the first query that uses it.
  RETURN_IF_ERROR(db.Exec("SELECT 1 FROM search_fts LIMIT 0"));
  RETURN_IF_ERROR(RegisterMatchCount(db));
  ASSIGN_OR_RETURN(std::vector<std::string> storage, StorageTables(db));
  return ReadOnlyDb(std::move(db), std::move(storage));
}

Result<QueryTable> ReadOnlyDb::Run(std::string_view sql, std::span<const store::SqlValue> params,
                                   const std::function<bool()>& interrupt, QueryAccess access) {
  sqlite3* raw = db_.get();
  Refusal refusal;
  refusal.access = access;
  refusal.storage_tables = &storage_tables_;
  sqlite3_set_authorizer(raw, Authorize, &refusal);
  sqlite3_stmt* st = nullptr;
  const char* tail = nullptr;
  const int rc = sqlite3_prepare_v2(raw, sql.data(), static_cast<int>(sql.size()), &st, &tail);
  sqlite3_set_authorizer(raw, nullptr, nullptr);
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> owned(st, sqlite3_finalize);
  if (refusal.what.empty() && !refusal.read_directly.empty()) {
    const std::vector<std::string> named = NamedIdentifiers(sql);
    for (size_t i = 1; i < named.size(); ++i) {
      // A table the query names where tables go: after FROM, JOIN or a comma.
      const bool table_position = named[i - 1] == "from" || named[i - 1] == "join" || named[i - 1] == ",";
      if (table_position && std::find(refusal.read_directly.begin(), refusal.read_directly.end(), named[i]) !=
                                refusal.read_directly.end()) {
        return Status::InvalidArgument("refused: this query reads " + StorageTableRefusal(db_, named[i]));
      }
    }
  }
  if (!refusal.what.empty()) return Status::InvalidArgument("refused: queries are read-only, and this one asks for " + refusal.what);
  if (rc != SQLITE_OK) return Status::InvalidArgument(std::string("invalid SQL: ") + sqlite3_errmsg(raw));
  if (!st) return Status::InvalidArgument("empty query: give one SELECT statement");
  for (const char* p = tail; p && *p; ++p) {
    if (*p != ' ' && *p != '\n' && *p != '\t' && *p != '\r' && *p != ';') {
      return Status::InvalidArgument("one statement per query: remove what follows the first ';'");
    }
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

}  // namespace retrace::query
