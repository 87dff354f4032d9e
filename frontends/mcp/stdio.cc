#include "frontends/mcp/stdio.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/buffer.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/signal_set.hpp>

#include "engine/base/unique_fd.h"
#include "engine/json/value.h"
#include "frontends/rpc/line_io.h"

namespace retrace::mcp {

namespace asio = runtime::asio;

namespace {

// The requests awaiting an answer; the reader waits while there are `limit`.
// Everything here runs on the server's one thread.
class InFlight {
 public:
  InFlight(asio::io_context& io, size_t limit)
      : room_(io, std::chrono::steady_clock::time_point::max()), limit_(limit < 1 ? 1 : limit) {}
  // A request's hold: released when it is answered (or will never be).
  std::shared_ptr<void> Enter() {
    ++count_;
    return {nullptr, [this](void*) { Leave(); }};
  }
  bool HasRoom() const { return count_ < limit_ || woken_; }
  // Returns once there is room, or when Wake() was called.
  asio::awaitable<void> Room() {
    while (!HasRoom()) {
      boost::system::error_code ec;
      co_await room_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
  }
  void Wake() {
    woken_ = true;
    room_.cancel();
  }

 private:
  void Leave() {
    if (count_-- == limit_) room_.cancel();
  }
  asio::steady_timer room_;
  size_t limit_;
  size_t count_ = 0;
  bool woken_ = false;
};

// The frames for the client, written so that it wakes as few times as it can.
// Those made while a read's requests are handed over (a pipelining client's
// answers, when its calls are brief) leave together once the last is handed
// over. Otherwise a frame made while at most one call is in flight (most often
// that call's answer) has nothing to wait for and leaves at once; and those
// made while more are (the answers a group commit releases) leave together on
// the next turn of the loop. Everything here runs on the server's one thread.
class Outbox {
 public:
  Outbox(asio::io_context& io, int fd, std::function<void()> on_gone) : io_(io), fd_(fd), on_gone_(std::move(on_gone)) {}
  void Attach(const Server& server) { server_ = &server; }

  void Send(const std::string& frame) {
    if (gone_) return;
    const bool first = unsent_.empty();
    unsent_.append(frame).push_back('\n');
    if (!first || held_) return;  // a flush is on its way
    if (server_ && server_->in_flight() <= 1) {
      Flush();
    } else {
      asio::post(io_, [this] { Flush(); });
    }
  }
  // Between the two, frames wait; Release writes them.
  void Hold() { held_ = true; }
  void Release() {
    held_ = false;
    Flush();
  }

 private:
  void Flush() {
    if (unsent_.empty() || held_) return;
    if (!gone_ && !rpc::WriteAll(fd_, unsent_)) {
      gone_ = true;  // nobody reads the answers: finish as at end of input
      asio::post(io_, on_gone_);
    }
    unsent_.clear();
  }

  asio::io_context& io_;
  int fd_;
  std::function<void()> on_gone_;
  const Server* server_ = nullptr;
  std::string unsent_;
  bool held_ = false;
  bool gone_ = false;
};

// Reads `in` into lines and hands each to `on_line`, after waiting for room in
// flight; `on_oversized` for a line over the limit. Returns at end of input,
// on a read error, or once `stop` is set (which cancels the read).
asio::awaitable<void> ReadFrames(asio::posix::stream_descriptor& in, size_t max_frame_bytes, InFlight& in_flight,
                                 Outbox& outbox, const bool& stop, const std::function<void(std::string&&)>& on_line,
                                 const std::function<void()>& on_oversized) {
  rpc::LineSplitter lines(max_frame_bytes);
  // The lines of one read, in order; nullopt stands for a line over the limit.
  std::vector<std::optional<std::string>> ready;
  auto add = [&](std::string&& line) {
    ready.emplace_back(std::move(line));
    return true;
  };
  auto add_oversized = [&] {
    ready.emplace_back(std::nullopt);
    return true;
  };
  auto hand_over = [&]() -> asio::awaitable<void> {
    outbox.Hold();
    for (std::optional<std::string>& line : ready) {
      if (!line) {
        on_oversized();
        continue;
      }
      if (!in_flight.HasRoom()) {
        outbox.Release();  // what is answered goes out while the reader waits
        co_await in_flight.Room();
        outbox.Hold();
      }
      if (stop) break;  // after a shutdown began, lines are dropped
      on_line(std::move(*line));
    }
    ready.clear();
    outbox.Release();
  };
  std::vector<char> buf(size_t{64} << 10);
  while (!stop) {
    boost::system::error_code ec;
    const size_t n = co_await in.async_read_some(asio::buffer(buf), asio::redirect_error(asio::use_awaitable, ec));
    if (n > 0 && !stop) {
      (void)lines.Feed(std::string_view(buf.data(), n), add, add_oversized);
      co_await hand_over();
    }
    if (ec) break;  // end of input (or an error reading it): the client is done
  }
  // A last line without its newline is still a frame.
  if (std::optional<std::string> last = lines.Finish(); last && !stop) {
    ready.emplace_back(std::move(*last));
    co_await hand_over();
  }
}

// Reads the client through a copy of `in_fd`: closing ours leaves the caller's
// open. (A regular file works too: Asio reads it directly, as epoll cannot
// watch it.)
Status AssignInput(asio::posix::stream_descriptor& input, int in_fd) {
  base::UniqueFd copy(::fcntl(in_fd, F_DUPFD_CLOEXEC, 0));
  if (!copy) return Status::IoError(std::string("reading the client: ") + std::strerror(errno));
  boost::system::error_code ec;
  input.assign(copy.get(), ec);
  if (ec) return Status::IoError("reading the client: " + ec.message());
  (void)copy.release();  // the descriptor object owns it now
  return Status::Ok();
}

// After a signal: gives the calls still running their grace period, then
// aborts what still runs (counted in `outcome`). The watcher may outlive this
// frame (it wakes after the abort too), so what it touches is shared.
asio::awaitable<void> AbortAfterGrace(asio::io_context& io, Server& server, std::chrono::milliseconds grace_period,
                                      StdioOutcome& outcome) {
  if (server.in_flight() == 0) co_return;
  auto grace = std::make_shared<asio::steady_timer>(io, grace_period);
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

// The turn's end: aborted by the user when calls had to be cut off.
json::Value TurnEndReason(const StdioOutcome& outcome) {
  if (outcome.aborted_calls == 0) return json::Value::MakeObject({{"kind", "completed"}});
  return json::Value::MakeObject({{"kind", "aborted"}, {"reason", json::Value::MakeObject({{"kind", "user"}})}});
}

}  // namespace

Result<StdioOutcome> ServeStdio(Result<service::LiveSession*> live, int in_fd, int out_fd, ServerOptions server_options,
                                StdioOptions options) {
  asio::io_context io;
  // Input is read on the server's own thread, so a request reaches the
  // server without a hop between threads.
  asio::posix::stream_descriptor input(io);
  RETURN_IF_ERROR(AssignInput(input, in_fd));
  auto work = asio::make_work_guard(io);
  StdioOutcome outcome;
  bool stop = false;
  InFlight in_flight(io, options.max_in_flight);

  std::function<void(bool)> shut_down;
  Outbox outbox(io, out_fd, [&] { shut_down(false); });
  Server server(io.get_executor(), live, [&](const std::string& frame) { outbox.Send(frame); },
                std::move(server_options));
  outbox.Attach(server);

  bool shutting_down = false;
  Status closed;
  asio::signal_set signals(io);
  shut_down = [&](bool signalled) {
    if (shutting_down) return;
    shutting_down = true;
    outcome.signalled = signalled;
    stop = true;
    boost::system::error_code ignored;
    input.cancel(ignored);
    in_flight.Wake();
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
          if (outcome.signalled) {
            co_await AbortAfterGrace(io, server, options.shutdown_grace, outcome);
          }
          co_await server.Drain();
          if (live.ok()) closed = (*live)->Close(TurnEndReason(outcome));
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

  const std::function<void(std::string&&)> on_line = [&](std::string&& text) {
    server.HandleLine(text, in_flight.Enter());
  };
  const std::function<void()> on_oversized = [&] { server.RejectOversized(options.max_frame_bytes); };
  asio::co_spawn(io, ReadFrames(input, options.max_frame_bytes, in_flight, outbox, stop, on_line, on_oversized),
                 [&](const std::exception_ptr&) { shut_down(false); });

  io.run();
  io.restart();
  io.poll();  // what is left after the end: the last holds are released
  RETURN_IF_ERROR(closed);
  return outcome;
}

}  // namespace retrace::mcp
