#include "tools/file_ops.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "engine/base/unique_fd.h"
#include "engine/json/js_text.h"
#include "tools/workspace.h"

namespace retrace::tools {

std::optional<FileInfo> Probe(const std::string& real_path) {
  struct stat st;
  if (::stat(real_path.c_str(), &st) != 0) return std::nullopt;
  return FileInfo{S_ISREG(st.st_mode), static_cast<unsigned>(st.st_mode & 07777), static_cast<uint64_t>(st.st_size)};
}

std::optional<std::string> ReadBytes(const std::string& real_path) {
  // read(2) into a string sized by fstat: a stream costs more than the read
  // of a small file (every read, write and edit call reads one).
  const base::UniqueFd fd(::open(real_path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return std::nullopt;
  struct stat st;
  return ReadAll(fd.get(), ::fstat(fd.get(), &st) == 0 && st.st_size > 0 ? static_cast<uint64_t>(st.st_size) : 0);
}

std::optional<std::string> ReadAll(int fd, uint64_t size) {
  // One byte more than expected: a read that comes back short is at the end
  // of a regular file, so the common case takes one read(2), not two.
  std::string bytes;
  bytes.resize(size > 0 ? static_cast<size_t>(size) + 1 : 4096);
  size_t have = 0;
  while (true) {
    if (have == bytes.size()) bytes.resize(bytes.size() * 2);  // it grew since fstat
    const size_t want = bytes.size() - have;
    const ssize_t n = ::read(fd, bytes.data() + have, want);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    have += static_cast<size_t>(n);
    if (static_cast<size_t>(n) < want) break;
  }
  bytes.resize(have);
  return bytes;
}

namespace {

// The process's umask, read once from /proc (umask(2) reads it only by
// setting it, which would race the other threads' creates); all bits when
// it cannot be read, so that the caller always sets the mode.
unsigned ProcessUmask() {
  static const unsigned mask = [] {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
      if (line.rfind("Umask:", 0) == 0) return static_cast<unsigned>(std::strtoul(line.c_str() + 6, nullptr, 8));
    }
    return 07777U;
  }();
  return mask;
}

}  // namespace

void WriteFileAtomic(const std::string& real_path, std::string_view content, std::optional<unsigned> mode,
                     const std::string& display_path, std::string_view verb) {
  auto fail = [&](const std::string& why) {
    throw FsError("cannot " + std::string(verb) + " \"" + display_path + "\": " + why, "FS_IO");
  };
  const std::filesystem::path target(real_path);
  // O_EXCL below makes the name safe; the random part only keeps concurrent
  // writers apart (a seeded generator: a random_device per write costs a
  // syscall, as would the pid read each time).
  static const std::string pid = std::to_string(::getpid());
  const std::string temp =
      (target.parent_path() / ("." + target.filename().string() + "." + pid + "." + RandomHex(8) + ".tmp")).string();
  auto create = [&] { return ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode.value_or(0666)); };
  int fd = create();
  if (fd < 0 && errno == ENOENT) {  // the parents are made when missing, not checked on every write
    std::error_code ec;
    std::filesystem::create_directories(target.parent_path(), ec);
    if (ec) fail(ec.message());
    fd = create();
  }
  if (fd < 0) fail(std::strerror(errno));
  // The umask must not narrow a replaced file's mode.
  if (mode && (*mode & ProcessUmask()) != 0) ::fchmod(fd, *mode);
  if (!WriteAll(fd, content)) {
    const std::string why = std::strerror(errno);
    ::close(fd);
    ::unlink(temp.c_str());
    fail(why);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0 || ::rename(temp.c_str(), real_path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(temp.c_str());
    fail(why);
  }
}

std::string NormalizeLineEndings(std::string_view content) {
  std::string out;
  out.reserve(content.size());
  for (size_t i = 0; i < content.size(); ++i) {
    if (content[i] == '\r' && i + 1 < content.size() && content[i + 1] == '\n') continue;
    out += content[i];
  }
  return out;
}

void CheckEscalationArgs(const json::Value& args, std::string_view confiner) {
  const json::Value* permissions = args.Find("sandbox_permissions");
  const json::Value* justification = args.Find("justification");
  if (permissions && !justification) throw std::runtime_error("invalid escalation: sandbox_permissions requires a justification");
  if (justification && !permissions) {
    throw std::runtime_error("invalid escalation: justification is only valid together with sandbox_permissions");
  }
  if (justification && justification->is_string() && json::IsJsBlank(justification->as_string())) {
    throw std::runtime_error("invalid justification: expected a non-empty sentence");
  }
  if (permissions && justification) {
    throw std::runtime_error("sandbox_permissions is not available in this composition (no sandboxing " +
                             std::string(confiner) + " to escalate)");
  }
}

bool WriteAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

std::string RandomHex(int bytes) {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < bytes; ++i) {
    const unsigned b = rng() & 0xff;
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
  return out;
}

}  // namespace retrace::tools
