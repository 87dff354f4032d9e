// The one include of Boost.Asio for retrace: Boost 1.74's awaitable.hpp uses
// std::exchange without including <utility> (fixed upstream in 1.75), so the
// include order is pinned here instead of at every use.
#ifndef RETRACE_ENGINE_RUNTIME_ASIO_H_
#define RETRACE_ENGINE_RUNTIME_ASIO_H_

#include <utility>

#include <boost/asio.hpp>

namespace retrace::runtime {
namespace asio = boost::asio;
}  // namespace retrace::runtime

#endif  // RETRACE_ENGINE_RUNTIME_ASIO_H_
