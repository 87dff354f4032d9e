#include "engine/runtime/timeout_policy.h"

#include <chrono>

namespace retrace::runtime {

Registration InstallTimeoutPolicy(ToolRuntime& runtime, const ScopePtr& scope) {
  ToolRegistry* registry = &runtime.registry();
  return registry->OnExecute(
      [registry](Execution& exec, ExecuteNext next) -> asio::awaitable<ToolResultPtr> {
        ToolDefinitionPtr def = registry->Get(exec.name(), exec.agent());
        if (!def || !def->timeout_ms) {
          co_return co_await next();
        }
        const double ms = *def->timeout_ms;

        AbortController deadline;
        auto fired = std::make_shared<bool>(false);
        auto timer = std::make_shared<asio::steady_timer>(
            co_await asio::this_coro::executor,
            std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double, std::milli>(ms)));
        timer->async_wait([deadline, fired, ms](const boost::system::error_code& ec) mutable {
          if (ec) return;
          *fired = true;
          deadline.Abort(ToolTimeoutError(ms).message());
        });

        const Signal upstream = exec.signal();
        exec.set_signal(Fuse(upstream, deadline.signal()));
        ToolResultPtr result;
        std::exception_ptr failure;
        try {
          result = co_await next();
        } catch (...) {
          failure = std::current_exception();
        }
        exec.set_signal(upstream);
        timer->cancel();
        if (failure) std::rethrow_exception(failure);
        if (*fired) co_return std::make_shared<const ToolResult>(ToolResult::Failure(ToolTimeoutError(ms)));
        co_return result;
      },
      scope);
}

}  // namespace retrace::runtime
