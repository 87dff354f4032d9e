#include "mcp/stdio.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "engine/json/value.h"
#include "rpc/line_io.h"

namespace retrace::mcp {

namespace asio = runtime::asio;

namespace {

// Counts the requests awaiting an answer; the reader waits while it is full.
class InFlight {
 public:
  explicit InFlight(size_t limit) : limit_(limit < 1 ? 1 : limit) {}
  // Blocks until there is room or `stop` is set; false when stopped.
  bool Enter(const std::atomic<bool>& stop) {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return count_ < limit_ || stop.load(); });
    if (stop.load()) return false;
    ++count_;
    return true;
  }
  void Leave() {
    {
      std::lock_guard lock(mu_);
      --count_;
    }
    cv_.notify_all();
  }
  void Wake() { cv_.notify_all(); }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  size_t limit_;
  size_t count_ = 0;
};

}  // namespace

Result<StdioOutcome> ServeStdio(service::LiveSession& live, int in_fd, int out_fd, ServerOptions server_options,
                                StdioOptions options) {
  int wake[2];
  if (::pipe2(wake, O_CLOEXEC) != 0) return Status::IoError(std::string("pipe2: ") + std::strerror(errno));
  asio::io_context io;
  auto work = asio::make_work_guard(io);
  StdioOutcome outcome;
  std::atomic<bool> stop{false};
  bool client_gone = false;
  InFlight in_flight(options.max_in_flight);

  std::function<void(bool)> shut_down;
  Server server(io.get_executor(), live,
                [&](const std::string& frame) {
                  if (client_gone) return;
                  if (!rpc::WriteAll(out_fd, frame + "\n")) {
                    client_gone = true;  // nobody reads the answers: finish as at end of input
                    asio::post(io, [&] { shut_down(false); });
                  }
                },
                std::move(server_options));

  bool shutting_down = false;
  Status closed;
  asio::signal_set signals(io);
  shut_down = [&](bool signalled) {
    if (shutting_down) return;
    shutting_down = true;
    outcome.signalled = signalled;
    stop = true;
    in_flight.Wake();
    (void)!::write(wake[1], "x", 1);
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
          if (outcome.signalled && server.in_flight() > 0) {
            // Give the calls their grace period, then abort what still runs. The
            // watcher may outlive this frame (it wakes after the abort too), so what
            // it touches is shared.
            auto grace = std::make_shared<asio::steady_timer>(io, options.shutdown_grace);
            auto drained = std::make_shared<bool>(false);
            asio::co_spawn(io, [&server, grace, drained]() -> asio::awaitable<void> {
              co_await server.Drain();
              *drained = true;
              grace->cancel();
            }, asio::detached);
            boost::system::error_code ec;
            co_await grace->async_wait(asio::redirect_error(asio::use_awaitable, ec));
            if (!*drained) {
              outcome.aborted_calls = static_cast<int64_t>(server.in_flight());
              server.AbortAll("the server is shutting down");
            }
          }
          co_await server.Drain();
          json::Value reason = outcome.aborted_calls > 0
                                   ? json::Value::MakeObject({{"kind", "aborted"},
                                                              {"reason", json::Value::MakeObject({{"kind", "user"}})}})
                                   : json::Value::MakeObject({{"kind", "completed"}});
          closed = live.Close(std::move(reason));
          signals.cancel();
          work.reset();
        },
        asio::detached);
  };
  if (options.handle_signals) {
    signals.add(SIGTERM);
    signals.add(SIGINT);
    signals.async_wait([&](const boost::system::error_code& ec, int) {
      if (!ec) shut_down(true);
    });
  }

  // The reader: lines off `in_fd`, each handed to the server on its thread.
  // Hands one line to the server's thread once there is room in flight;
  // false when the server is shutting down.
  auto hand_over = [&](std::string&& text) {
    if (!in_flight.Enter(stop)) return false;
    std::shared_ptr<void> hold(nullptr, [&in_flight](void*) { in_flight.Leave(); });
    asio::post(io, [&, text = std::move(text), hold = std::move(hold)]() mutable {
      if (!stop) server.HandleLine(text, std::move(hold));  // after a shutdown began, lines are dropped
    });
    return true;
  };
  std::thread reader([&] {
    (void)::pthread_setname_np(::pthread_self(), "retrace-stdin");  // for top -H, perf and gdb
    rpc::LineSplitter lines(options.max_frame_bytes);
    auto oversized = [&] {
      asio::post(io, [&server, limit = options.max_frame_bytes] { server.RejectOversized(limit); });
      return true;
    };
    char buf[64 * 1024];
    while (!stop) {
      pollfd fds[2] = {{in_fd, POLLIN, 0}, {wake[0], POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0) {
        if (errno == EINTR) continue;
        break;
      }
      if (fds[1].revents) break;
      ssize_t n = ::read(in_fd, buf, sizeof buf);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n <= 0) break;  // end of input (or an error reading it): the client is done
      if (!lines.Feed(std::string_view(buf, static_cast<size_t>(n)), hand_over, oversized)) return;
    }
    // A last line without its newline is still a frame.
    if (std::optional<std::string> last = lines.Finish(); last && !stop) hand_over(std::move(*last));
    asio::post(io, [&] { shut_down(false); });
  });

  io.run();
  stop = true;
  in_flight.Wake();
  (void)!::write(wake[1], "x", 1);
  reader.join();
  io.restart();
  io.poll();  // lines the reader posted after the end: their holds are released
  ::close(wake[0]);
  ::close(wake[1]);
  RETURN_IF_ERROR(closed);
  return outcome;
}

}  // namespace retrace::mcp
