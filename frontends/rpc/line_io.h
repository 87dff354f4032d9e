// The byte side of a line transport (MCP and ACP stdio): a stream cut into
// lines with a bound on each, and whole lines written to a descriptor.
#ifndef RETRACE_RPC_LINE_IO_H_
#define RETRACE_RPC_LINE_IO_H_

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace retrace::rpc {

// Cuts bytes, as they arrive, into lines (without their newline). A line
// longer than `max_bytes` is dropped as it streams in — never buffered
// whole — and reported once its newline arrives, so that a hostile peer
// cannot make the server hold more than `max_bytes` of one message.
class LineSplitter {
 public:
  explicit LineSplitter(size_t max_bytes) : max_bytes_(max_bytes) {}

  // A handler returns false to stop; Feed then returns false at once.
  using OnLine = std::function<bool(std::string&& line)>;
  using OnOversized = std::function<bool()>;
  bool Feed(std::string_view bytes, const OnLine& on_line, const OnOversized& on_oversized);
  // At end of input: the last line, when it had no newline (still a message),
  // unless it was over the limit.
  std::optional<std::string> Finish();

  size_t max_bytes() const { return max_bytes_; }

 private:
  size_t max_bytes_;
  std::string line_;
  bool dropping_ = false;  // inside a line over the limit
};

// Writes all of `bytes` to `fd` (retrying short writes and EINTR, and
// waiting for room when a non-blocking `fd` is full); false when the peer is
// gone (EPIPE: the caller ignores SIGPIPE) or writing failed.
bool WriteAll(int fd, std::string_view bytes);

}  // namespace retrace::rpc

#endif  // RETRACE_RPC_LINE_IO_H_
