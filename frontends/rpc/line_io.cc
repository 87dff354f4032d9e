#include "frontends/rpc/line_io.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace retrace::rpc {

bool LineSplitter::Feed(std::string_view bytes, const OnLine& on_line, const OnOversized& on_oversized) {
  while (!bytes.empty()) {
    const size_t nl = bytes.find('\n');
    const std::string_view part = bytes.substr(0, nl);
    if (!dropping_) line_.append(part);
    if (line_.size() > max_bytes_) {
      dropping_ = true;
      line_.clear();
      line_.shrink_to_fit();
    }
    if (nl == std::string_view::npos) return true;
    bytes.remove_prefix(nl + 1);
    if (dropping_) {
      dropping_ = false;
      if (!on_oversized()) return false;
      continue;
    }
    std::string line = std::move(line_);
    line_.clear();
    if (!on_line(std::move(line))) return false;
  }
  return true;
}

std::optional<std::string> LineSplitter::Finish() {
  const bool had = !dropping_ && !line_.empty();
  dropping_ = false;
  std::string line = std::move(line_);
  line_.clear();
  if (!had) return std::nullopt;
  return line;
}

bool WriteAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      // A non-blocking descriptor (one socket for the input and the output:
      // reading it without blocking made it so) whose reader is behind: the
      // frame waits for room rather than being cut.
      pollfd p{.fd = fd, .events = POLLOUT, .revents = 0};
      if (::poll(&p, 1, -1) < 0 && errno != EINTR) return false;
      continue;
    }
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace retrace::rpc
