// RAII over the SQLite C API: Db owns a connection, Statement a prepared
// statement, Transaction rolls back in its destructor unless committed.
// Errors are Status values naming the statement and SQLite's message.
// Copying is disabled on every resource owner. Not thread-safe per object.
#ifndef RETRACE_STORE_SQLITE_H_
#define RETRACE_STORE_SQLITE_H_

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <retrace/engine/base/status.h>

namespace retrace::store {

// How long a connection waits for another's lock (a writer's commit, a
// migration) before the operation fails as Busy (exit code 4).
inline constexpr int kBusyTimeoutMs = 5000;

class Db {
 public:
  enum class Mode { kReadWriteCreate, kReadWrite, kReadOnly };
  static Result<Db> Open(const std::string& path, Mode mode);

  Db(Db&&) noexcept = default;
  Db& operator=(Db&&) noexcept = default;

  // Runs one or more statements without results.
  Status Exec(std::string_view sql);
  // A single integer from a one-row query (e.g. a PRAGMA).
  Result<int64_t> QueryInt(std::string_view sql);

  sqlite3* get() const { return db_.get(); }
  const std::string& path() const { return path_; }
  Status Error(std::string_view what) const;

 private:
  struct Closer {
    void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
  };
  Db(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  std::unique_ptr<sqlite3, Closer> db_;
  std::string path_;
};

// Holds its connection's handle: the Db must outlive the statement.
class Statement {
 public:
  static Result<Statement> Prepare(const Db& db, std::string_view sql);

  Statement(Statement&&) noexcept = default;
  Statement& operator=(Statement&&) noexcept = default;

  // Binding (1-based). Text is bound SQLITE_TRANSIENT unless `stable` says the
  // caller keeps it alive until the next Reset.
  Statement& Bind(int i, int64_t v);
  Statement& Bind(int i, std::string_view v, bool stable = false);
  Statement& Bind(int i, const std::string& v, bool stable = false) { return Bind(i, std::string_view(v), stable); }
  Statement& Bind(int i, const char* v) { return Bind(i, std::string_view(v)); }
  Statement& BindNull(int i);
  Statement& BindBlob(int i, const void* data, size_t size);  // copied (SQLITE_TRANSIENT)
  Statement& Bind(int i, const std::optional<std::string>& v);
  Statement& Bind(int i, const std::optional<int64_t>& v);

  // Steps once: true for a row, false when done.
  Result<bool> Step();
  // Steps a statement that returns no rows; resets it for reuse.
  Status Run();
  void Reset();

  int64_t Int(int col) const { return sqlite3_column_int64(stmt_.get(), col); }
  bool IsNull(int col) const { return sqlite3_column_type(stmt_.get(), col) == SQLITE_NULL; }
  std::string_view Text(int col) const;
  std::string_view Blob(int col) const;  // empty for NULL

 private:
  struct Finalizer {
    void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
  };
  Statement(sqlite3_stmt* s, sqlite3* db) : stmt_(s), db_(db) {}
  std::unique_ptr<sqlite3_stmt, Finalizer> stmt_;
  sqlite3* db_;
};

// Holds its Db by pointer: the Db must outlive the transaction (which rolls back
// when destroyed uncommitted).
class Transaction {
 public:
  enum class Kind { kDeferred, kImmediate };
  static Result<Transaction> Begin(Db& db, Kind kind = Kind::kImmediate);
  Transaction(Transaction&& other) noexcept : db_(other.db_) { other.db_ = nullptr; }
  Transaction& operator=(Transaction&&) = delete;
  ~Transaction();  // rolls back unless committed; never throws
  Status Commit();

 private:
  explicit Transaction(Db* db) : db_(db) {}
  Db* db_;
};

}  // namespace retrace::store

#endif  // RETRACE_STORE_SQLITE_H_
