#include "mcp/stdio.h"

#include <fcntl.h>
#include <poll.h>
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

bool WriteAll(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

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
                  if (!WriteAll(out_fd, frame + "\n")) {
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
  auto hand_over = [&](std::string text) {
    if (!in_flight.Enter(stop)) return false;
    std::shared_ptr<void> hold(nullptr, [&in_flight](void*) { in_flight.Leave(); });
    asio::post(io, [&, text = std::move(text), hold = std::move(hold)]() mutable {
      if (!stop) server.HandleLine(text, std::move(hold));  // after a shutdown began, lines are dropped
    });
    return true;
  };
  std::thread reader([&] {
    std::string line;
    bool dropping = false;  // inside a line over the limit
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
      size_t pos = 0;
      while (pos < static_cast<size_t>(n)) {
        const char* nl = static_cast<const char*>(std::memchr(buf + pos, '\n', static_cast<size_t>(n) - pos));
        const size_t end = nl ? static_cast<size_t>(nl - buf) : static_cast<size_t>(n);
        if (!dropping) line.append(buf + pos, end - pos);
        if (line.size() > options.max_frame_bytes) {
          dropping = true;
          line.clear();
          line.shrink_to_fit();
        }
        pos = end + (nl ? 1 : 0);
        if (!nl) break;
        if (dropping) {
          dropping = false;
          asio::post(io, [&server, limit = options.max_frame_bytes] { server.RejectOversized(limit); });
          continue;
        }
        if (!hand_over(std::move(line))) return;
        line.clear();
      }
    }
    // A last line without its newline is still a frame.
    if (!stop && !dropping && !line.empty()) hand_over(std::move(line));
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
