#include "store/sqlite.h"

#include <chrono>
#include <thread>

namespace retrace::store {

namespace {

// Waits for another connection's lock, polling every millisecond up to
// kBusyTimeoutMs. SQLite's own sqlite3_busy_timeout backs off to 100 ms
// sleeps, and under steady appends from several processes a waiter that
// sleeps that long keeps missing the moments the lock is free: appends waited
// seconds, and past the timeout failed as busy. A 1 ms poll keeps the waiters
// in turn (bench/load_bench.cc; figures in docs/PERFORMANCE.md).
int BusyWait(void*, int attempt) {
  using Clock = std::chrono::steady_clock;
  thread_local Clock::time_point since;  // a connection waits in one thread at a time
  const Clock::time_point now = Clock::now();
  if (attempt == 0) since = now;
  if (now - since >= std::chrono::milliseconds(kBusyTimeoutMs)) return 0;  // SQLITE_BUSY: the caller reports it
  std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return 1;
}

}  // namespace

Result<Db> Db::Open(const std::string& path, Mode mode) {
  int flags = SQLITE_OPEN_NOMUTEX;
  switch (mode) {
    case Mode::kReadWriteCreate: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE; break;
    case Mode::kReadWrite: flags |= SQLITE_OPEN_READWRITE; break;
    case Mode::kReadOnly: flags |= SQLITE_OPEN_READONLY; break;
  }
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  Db db(raw, path);
  if (rc != SQLITE_OK) return Status::IoError("cannot open database " + path + ": " + sqlite3_errstr(rc));
  sqlite3_extended_result_codes(raw, 1);
  sqlite3_busy_handler(raw, BusyWait, nullptr);  // wait for a concurrent writer's commit rather than fail at once
  return db;
}

namespace {

// The one mapping of SQLite's result codes to Status codes, for every failure
// a connection reports: "<what> failed on <path>: <SQLite's message>".
Status FromSqlite(int rc, const std::string& msg) {
  switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED: return Status::Busy(msg);
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB: return Status::Corruption(msg);
    case SQLITE_CONSTRAINT:
      return Status::Conflict(msg);
    case SQLITE_INTERRUPT:
      return Status::DeadlineExceeded(msg);
    default: return Status::IoError(msg);  // SQLITE_FULL, SQLITE_IOERR, SQLITE_CANTOPEN, SQLITE_READONLY, ...
  }
}

}  // namespace

Status Db::Error(std::string_view what) const {
  return FromSqlite(sqlite3_extended_errcode(db_.get()),
                    std::string(what) + " failed on " + path_ + ": " + sqlite3_errmsg(db_.get()));
}

Status Db::Exec(std::string_view sql) {
  const std::string s(sql);
  if (sqlite3_exec(db_.get(), s.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
    return Error("SQL \"" + s.substr(0, 60) + "\"");
  }
  return Status::Ok();
}

Result<int64_t> Db::QueryInt(std::string_view sql) {
  ASSIGN_OR_RETURN(Statement st, Statement::Prepare(*this, sql));
  ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return Status::NotFound("no row for " + std::string(sql));
  return st.Int(0);
}

Result<Statement> Statement::Prepare(const Db& db, std::string_view sql) {
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v3(db.get(), sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &s, nullptr) !=
      SQLITE_OK) {
    return db.Error("prepare \"" + std::string(sql.substr(0, 60)) + "\"");
  }
  return Statement(s, db.get());
}

Statement& Statement::Bind(int i, int64_t v) {
  sqlite3_bind_int64(stmt_.get(), i, v);
  return *this;
}
Statement& Statement::Bind(int i, std::string_view v, bool stable) {
  sqlite3_bind_text(stmt_.get(), i, v.data(), static_cast<int>(v.size()), stable ? SQLITE_STATIC : SQLITE_TRANSIENT);
  return *this;
}
Statement& Statement::BindNull(int i) {
  sqlite3_bind_null(stmt_.get(), i);
  return *this;
}
Statement& Statement::BindBlob(int i, const void* data, size_t size) {
  sqlite3_bind_blob64(stmt_.get(), i, data, size, SQLITE_TRANSIENT);
  return *this;
}
Statement& Statement::Bind(int i, const std::optional<std::string>& v) { return v ? Bind(i, *v) : BindNull(i); }
Statement& Statement::Bind(int i, const std::optional<int64_t>& v) { return v ? Bind(i, *v) : BindNull(i); }

Result<bool> Statement::Step() {
  const int rc = sqlite3_step(stmt_.get());
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  // Named as Db::Error names a failure: the statement, the file, SQLite's message.
  const char* sql = sqlite3_sql(stmt_.get());
  const char* file = sqlite3_db_filename(db_, "main");
  Status st = FromSqlite(rc, "statement \"" + std::string(sql ? sql : "").substr(0, 60) + "\" failed on " +
                                 (file && *file ? file : "a temporary database") + ": " + sqlite3_errmsg(db_));
  sqlite3_reset(stmt_.get());
  return st;
}

Status Statement::Run() {
  auto r = Step();
  Reset();
  return r.ok() ? Status::Ok() : r.status();
}

void Statement::Reset() {
  sqlite3_reset(stmt_.get());
  sqlite3_clear_bindings(stmt_.get());
}

std::string_view Statement::Blob(int col) const {
  const auto* p = static_cast<const char*>(sqlite3_column_blob(stmt_.get(), col));
  return p == nullptr ? std::string_view() : std::string_view(p, static_cast<size_t>(sqlite3_column_bytes(stmt_.get(), col)));
}

std::string_view Statement::Text(int col) const {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_.get(), col));
  return p == nullptr ? std::string_view() : std::string_view(p, sqlite3_column_bytes(stmt_.get(), col));
}

Result<Transaction> Transaction::Begin(Db& db, Kind kind) {
  RETURN_IF_ERROR(db.Exec(kind == Kind::kImmediate ? "BEGIN IMMEDIATE" : "BEGIN"));
  return Transaction(&db);
}

Transaction::~Transaction() {
  if (db_ != nullptr) sqlite3_exec(db_->get(), "ROLLBACK", nullptr, nullptr, nullptr);
}

Status Transaction::Commit() {
  Status st = db_->Exec("COMMIT");
  if (st.ok()) db_ = nullptr;
  return st;
}

}  // namespace retrace::store
