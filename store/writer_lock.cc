#include "store/writer_lock.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace retrace::store {

Result<WriterLock> WriterLock::Acquire(const std::string& db_path, int64_t slot, const std::string& session_id) {
  const std::string path = db_path + "-lock";
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return Status::IoError("cannot open writer lock file " + path + ": " + std::strerror(errno));
  struct flock fl {};
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  fl.l_start = slot;
  fl.l_len = 1;
  if (fcntl(fd, F_OFD_SETLK, &fl) != 0) {
    const int err = errno;
    close(fd);
    if (err == EAGAIN || err == EACCES) {
      return Status::Busy("session \"" + session_id + "\" is being written by another writer (lock held in " + path +
                          "); only one writer per session is allowed");
    }
    return Status::IoError("cannot lock " + path + ": " + std::strerror(err));
  }
  return WriterLock(fd);
}

WriterLock::~WriterLock() {
  if (fd_ >= 0) close(fd_);  // closing the description releases the OFD lock
}

}  // namespace retrace::store
