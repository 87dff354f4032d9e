// The Boost.Asio that retrace's coroutines use, included first everywhere:
// Boost 1.74's awaitable.hpp uses std::exchange without including <utility>
// (fixed upstream in 1.75), so the include order is pinned here instead of at
// every use. Only these parts, not <boost/asio.hpp>: the whole of Asio costs
// each of the ~50 files that include this about 0.9 s more to compile and 1 s
// more to lint. A file that needs more (a stream descriptor, a signal set)
// includes that part after this header.
#ifndef RETRACE_ENGINE_RUNTIME_ASIO_H_
#define RETRACE_ENGINE_RUNTIME_ASIO_H_

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

namespace retrace::runtime {
namespace asio = boost::asio;
}  // namespace retrace::runtime

#endif  // RETRACE_ENGINE_RUNTIME_ASIO_H_
