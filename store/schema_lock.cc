#include "store/schema_lock.h"

#include <fcntl.h>

#include <cerrno>
#include <cstring>
#include <thread>

namespace retrace::store {

Result<SchemaLock> SchemaLock::Acquire(const std::string& db_path, Mode mode, std::chrono::milliseconds timeout,
                                       bool optional) {
  const std::string path = db_path + "-lock";
  const int flags = mode == Mode::kExclusive || !optional ? O_RDWR | O_CREAT | O_CLOEXEC : O_RDONLY | O_CLOEXEC;
  base::UniqueFd fd(open(path.c_str(), flags, 0600));
  if (!fd) {
    if (optional) return SchemaLock(base::UniqueFd());
    return Status::IoError("cannot open the lock file " + path + ": " + std::strerror(errno));
  }
  struct flock fl {};
  fl.l_type = mode == Mode::kExclusive ? F_WRLCK : F_RDLCK;
  fl.l_whence = SEEK_SET;
  fl.l_start = 0;
  fl.l_len = 1;
  // Polled rather than F_OFD_SETLKW, so that the wait is bounded. Creation
  // and an up-to-date check take milliseconds; a migration may take longer.
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto pause = std::chrono::milliseconds(1);
  while (fcntl(fd.get(), F_OFD_SETLK, &fl) != 0) {
    if (errno != EAGAIN && errno != EACCES && errno != EINTR) {
      return Status::IoError("cannot lock " + path + ": " + std::strerror(errno));
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      return Status::Busy(db_path + " is being created or migrated by another process; gave up after " +
                          std::to_string(timeout.count()) + " ms (lock held in " + path + ")");
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
  return SchemaLock(std::move(fd));
}

}  // namespace retrace::store
