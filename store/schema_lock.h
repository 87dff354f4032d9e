// SchemaLock: creation and migration of a database happen in one process at
// a time, across processes.
//
// An open-file-description lock (F_OFD_SETLK) on byte 0 of the sidecar file
// `<db>-lock` (WriterLock's file; session slots start at 1). Whoever opens a
// database for writing holds it exclusively while it creates the file, picks
// the page size, switches to WAL and applies migrations; read-only openers
// hold it shared while they inspect the schema, so they never judge a
// database halfway through its first creation. Everyone else waits, polling,
// up to a bound, then gets Busy naming the database. The kernel releases the
// lock when its holder exits or crashes.
#ifndef RETRACE_STORE_SCHEMA_LOCK_H_
#define RETRACE_STORE_SCHEMA_LOCK_H_

#include <chrono>
#include <string>

#include <retrace/engine/base/status.h>
#include <retrace/engine/base/unique_fd.h>

namespace retrace::store {

// How long an opener waits for another process's creation or migration
// before giving up (StoreOptions::open_timeout's default).
inline constexpr std::chrono::milliseconds kDefaultOpenTimeout{30000};

class SchemaLock {
 public:
  enum class Mode { kShared, kExclusive };
  // Waits up to `timeout` for the lock. With `optional`, a lock file that
  // cannot be opened (a read-only directory) gives a lock that holds nothing,
  // rather than an error: a reader of someone else's database needs no lock.
  static Result<SchemaLock> Acquire(const std::string& db_path, Mode mode, std::chrono::milliseconds timeout,
                                    bool optional = false);

  SchemaLock(SchemaLock&&) noexcept = default;
  SchemaLock& operator=(SchemaLock&&) noexcept = default;

 private:
  explicit SchemaLock(base::UniqueFd fd) : fd_(std::move(fd)) {}
  base::UniqueFd fd_;  // closing the description releases the lock
};

}  // namespace retrace::store

#endif  // RETRACE_STORE_SCHEMA_LOCK_H_
