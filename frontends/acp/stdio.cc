#include "frontends/acp/stdio.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "frontends/rpc/line_io.h"

namespace retrace::acp {

Status ServeStdio(const service::Catalog& catalog, int in_fd, int out_fd, ServerOptions server_options,
                  StdioOptions options) {
  bool client_gone = false;
  // Frames go out in blocks: a session/load writes thousands of small lines.
  std::string pending;
  auto flush = [&] {
    if (!client_gone && !pending.empty() && !rpc::WriteAll(out_fd, pending)) client_gone = true;
    pending.clear();
    return !client_gone;
  };
  Server server(
      catalog,
      [&](const std::string& frame) {
        if (client_gone) return false;
        pending += frame;
        pending += '\n';
        return pending.size() < (size_t{64} << 10) || flush();
      },
      std::move(server_options));
  rpc::LineSplitter lines(options.max_frame_bytes);
  auto on_line = [&](std::string&& line) {
    server.HandleLine(line);
    return flush();  // each answer whole before the next request is read
  };
  auto on_oversized = [&] {
    server.RejectOversized(options.max_frame_bytes);
    return flush();
  };
  char buf[64 * 1024];
  while (!client_gone) {
    const ssize_t n = ::read(in_fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::IoError(std::string("reading the client: ") + std::strerror(errno));
    if (n == 0) break;
    if (!lines.Feed(std::string_view(buf, static_cast<size_t>(n)), on_line, on_oversized)) return Status::Ok();
  }
  if (std::optional<std::string> last = lines.Finish(); last && !client_gone) on_line(std::move(*last));
  return Status::Ok();
}

}  // namespace retrace::acp
