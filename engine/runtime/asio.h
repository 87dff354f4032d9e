// The Boost.Asio that retrace's coroutines use, included first everywhere:
// Boost 1.74's awaitable.hpp uses std::exchange without including <utility>
// (fixed upstream in 1.75), so the include order is pinned here instead of at
// every use. Only these parts, not <boost/asio.hpp>: the whole of Asio costs
// each of the ~50 files that include this about 0.9 s more to compile and 1 s
// more to lint. A file that needs more (a stream descriptor, a signal set)
// includes that part after this header.
#ifndef RETRACE_ENGINE_RUNTIME_ASIO_H_
#define RETRACE_ENGINE_RUNTIME_ASIO_H_

#include <exception>
#include <utility>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/version.hpp>

namespace retrace::runtime {
namespace asio = boost::asio;

// Runs `task` on the calling thread, which runs `executor`'s context, until
// it first waits; then calls `done` with what it threw (or null) when it ends.
// That is co_spawn from Boost 1.80 on (its first step is dispatched). 1.74's
// co_spawn posts the first step: a trip through the queue, and with it a
// poll of the reactor (an epoll_wait), before the task even begins.
template <typename Done>
void SpawnNow(const asio::any_io_executor& executor, asio::awaitable<void> task, Done done) {
#if BOOST_VERSION >= 108000
  asio::co_spawn(executor, std::move(task), std::move(done));
#else
  auto entry = [](asio::awaitable<void> body, Done finished) -> asio::awaitable<void> {
    std::exception_ptr thrown;
    try {
      // One move: clang-tidy sees the co_await's expansion use it twice.
      co_await std::move(body);  // NOLINT(bugprone-use-after-move)
    } catch (...) {
      thrown = std::current_exception();
    }
    finished(thrown);
  };
  // What co_spawn does after its post (boost/asio/impl/co_spawn.hpp).
  asio::detail::awaitable_handler<asio::any_io_executor, void>(entry(std::move(task), std::move(done)), executor)
      .launch();
#endif
}

}  // namespace retrace::runtime

#endif  // RETRACE_ENGINE_RUNTIME_ASIO_H_
