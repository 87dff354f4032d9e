#include "engine/runtime/call_gate.h"

#include <chrono>

namespace retrace::runtime {

bool CallGate::Fits(bool exclusive) const {
  if (exclusive_running_) return false;
  return exclusive ? running_ == 0 : running_ < max_parallel_;
}

asio::awaitable<CallGate::Pass> CallGate::Enter(bool exclusive) {
  if (waiting_.empty() && Fits(exclusive)) {
    ++running_;
    exclusive_running_ = exclusive;
    co_return Pass(this, exclusive);
  }
  auto waiter = std::make_shared<Waiter>();
  waiter->exclusive = exclusive;
  waiter->wake = std::make_unique<asio::steady_timer>(co_await asio::this_coro::executor,
                                                      std::chrono::steady_clock::time_point::max());
  waiting_.push_back(waiter);
  while (!waiter->admitted) {
    boost::system::error_code ec;
    co_await waiter->wake->async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
  co_return Pass(this, exclusive);
}

void CallGate::Leave(bool exclusive) {
  --running_;
  if (exclusive) exclusive_running_ = false;
  // Admit from the front, in order, as many as now fit.
  while (!waiting_.empty() && Fits(waiting_.front()->exclusive)) {
    std::shared_ptr<Waiter> next = waiting_.front();
    waiting_.pop_front();
    ++running_;
    exclusive_running_ = next->exclusive;
    next->admitted = true;
    next->wake->cancel();
  }
}

}  // namespace retrace::runtime
