// WriterLock: at most one writer per session, across processes and within one.
//
// An open-file-description lock (Linux F_OFD_SETLK) on one byte of a sidecar
// file `<db>-lock`, at the offset of the session's local id. The kernel
// releases it when the holder exits or crashes, so a killed writer never
// leaves a stale lock behind. (A separate file, because closing any
// descriptor of the database file itself would drop SQLite's POSIX locks.)
#ifndef RETRACE_STORE_WRITER_LOCK_H_
#define RETRACE_STORE_WRITER_LOCK_H_

#include <cstdint>
#include <string>

#include <retrace/engine/base/status.h>

namespace retrace::store {

class WriterLock {
 public:
  // Takes the lock without waiting; Busy if another writer holds it.
  static Result<WriterLock> Acquire(const std::string& db_path, int64_t slot, const std::string& session_id);

  WriterLock(WriterLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  WriterLock& operator=(WriterLock&&) = delete;
  ~WriterLock();

 private:
  explicit WriterLock(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace retrace::store

#endif  // RETRACE_STORE_WRITER_LOCK_H_
