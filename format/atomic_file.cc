#include "format/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>

namespace retrace::format {
namespace {

Status Errno(const std::string& what) { return Status::IoError(what + ": " + std::strerror(errno)); }

std::string ParentOf(const std::string& path) {
  const auto parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

Status SyncDirectory(const std::string& dir) {
  base::UniqueFd fd(open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd) return Errno("cannot open directory " + dir);
  return fsync(fd.get()) == 0 ? Status::Ok() : Errno("cannot fsync directory " + dir);
}

std::string RandomHex(int n) {
  static thread_local std::mt19937_64 rng(std::random_device{}());
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  for (int i = 0; i < n; ++i) s += kHex[rng() % 16];
  return s;
}

}  // namespace

Result<AtomicFile> AtomicFile::Create(const std::string& path) {
  // A device, FIFO or socket (/dev/null, /dev/stdout, a named pipe) is a
  // stream, not a file to replace: renaming over it would swap the device
  // for a regular file. It is written in place.
  struct stat st {};
  if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) return Status::InvalidArgument(path + " is a directory, not a file to write");
    base::UniqueFd fd(open(path.c_str(), O_WRONLY | O_CLOEXEC));
    if (!fd) return Errno("cannot open " + path);
    return AtomicFile(path, /*tmp=*/"", std::move(fd));
  }
  const std::string tmp = path + "." + RandomHex(12) + ".tmp";
  base::UniqueFd fd(open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (!fd) return Errno("cannot create " + tmp);
  return AtomicFile(path, tmp, std::move(fd));
}

AtomicFile::AtomicFile(AtomicFile&& o) noexcept
    : path_(std::move(o.path_)), tmp_(std::move(o.tmp_)), fd_(std::move(o.fd_)), committed_(o.committed_) {
  o.committed_ = true;
}

AtomicFile::~AtomicFile() {
  fd_.reset();
  if (!committed_ && !tmp_.empty()) unlink(tmp_.c_str());
}

Status AtomicFile::Append(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = write(fd_.get(), bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return Errno("cannot write " + (tmp_.empty() ? path_ : tmp_));
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return Status::Ok();
}

Status AtomicFile::Commit(bool overwrite) {
  if (tmp_.empty()) {  // a stream: written in place, nothing to publish
    committed_ = true;
    return fd_.Close() ? Status::Ok() : Errno("cannot write " + path_);
  }
  if (fsync(fd_.get()) != 0) return Errno("cannot fsync " + tmp_);
  if (!fd_.Close()) return Errno("cannot write " + tmp_);
  if (overwrite) {
    if (rename(tmp_.c_str(), path_.c_str()) != 0) return Errno("cannot publish " + path_);
  } else {
    if (link(tmp_.c_str(), path_.c_str()) != 0) {
      if (errno == EEXIST) return Status::AlreadyExists(path_ + " already exists; refusing to overwrite it");
      return Errno("cannot publish " + path_);
    }
    unlink(tmp_.c_str());
  }
  committed_ = true;
  return SyncDirectory(ParentOf(path_));
}

Status WriteFileAtomically(const std::string& path, std::string_view bytes) {
  ASSIGN_OR_RETURN(AtomicFile file, AtomicFile::Create(path));
  RETURN_IF_ERROR(file.Append(bytes));
  return file.Commit(/*overwrite=*/true);
}

Status MakeDirectories(const std::string& dir) {
  std::filesystem::path p(dir);
  std::filesystem::path cur;
  for (const auto& part : p) {
    cur /= part;
    if (mkdir(cur.c_str(), 0700) == 0) {
      RETURN_IF_ERROR(SyncDirectory(ParentOf(cur.string())));
    } else if (errno != EEXIST) {
      return Errno("cannot create directory " + cur.string());
    }
  }
  return Status::Ok();
}

}  // namespace retrace::format
