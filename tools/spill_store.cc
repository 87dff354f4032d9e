#include "tools/spill_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

#include "tools/file_ops.h"

namespace retrace::tools {
namespace {

// A stable, short directory name per session (FNV-1a; dsh uses a SHA-256
// prefix, the name is opaque either way).
std::string SessionDirName(const std::string& session_id) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : session_id) h = (h ^ c) * 1099511628211ULL;
  char buf[32];
  std::snprintf(buf, sizeof buf, "session-%012llx", static_cast<unsigned long long>(h & 0xffffffffffffULL));
  return buf;
}

}  // namespace

std::optional<SpillRef> SaveSpill(const std::string& dir, const std::string& session_id, const std::string& name,
                                  const std::string& content) {
  if (dir.empty()) return std::nullopt;
  const std::string session_dir = dir + "/" + SessionDirName(session_id);
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return std::nullopt;
  if (mkdir(session_dir.c_str(), 0700) != 0 && errno != EEXIST) return std::nullopt;
  const std::string path = session_dir + "/" + RandomHex(6) + "-" + name;
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return std::nullopt;
  const bool written = WriteAll(fd, content);
  if (close(fd) != 0 || !written) {
    unlink(path.c_str());
    return std::nullopt;
  }
  return SpillRef{path, "Use read with offset/limit, or grep this path to search within it."};
}

}  // namespace retrace::tools
