#include "engine/runtime/cancellation.h"

#include <map>
#include <mutex>
#include <vector>

namespace retrace::runtime {
namespace internal {

struct SignalState {
  std::mutex mu;
  bool aborted = false;
  std::string reason;
  uint64_t next_id = 1;
  std::map<uint64_t, std::function<void(const std::string&)>> listeners;
  std::vector<Subscription> parents;  // a fused signal's links to its parents

  void Abort(std::string why) {
    std::map<uint64_t, std::function<void(const std::string&)>> fire;
    {
      std::lock_guard lock(mu);
      if (aborted) return;
      aborted = true;
      reason = std::move(why);
      fire.swap(listeners);
    }
    for (auto& [id, fn] : fire) fn(reason);  // reason is immutable once aborted
  }
};

}  // namespace internal

Subscription& Subscription::operator=(Subscription&& other) noexcept {
  if (this != &other) {
    Reset();
    state_ = std::move(other.state_);
    id_ = std::exchange(other.id_, 0);
  }
  return *this;
}

void Subscription::Reset() {
  if (auto s = state_.lock()) {
    std::lock_guard lock(s->mu);
    s->listeners.erase(id_);
  }
  state_.reset();
  id_ = 0;
}

Signal::Signal() : state_(std::make_shared<internal::SignalState>()) {}

bool Signal::aborted() const {
  std::lock_guard lock(state_->mu);
  return state_->aborted;
}

std::string Signal::reason() const {
  std::lock_guard lock(state_->mu);
  return state_->reason;
}

Subscription Signal::OnAbort(std::function<void(const std::string&)> fn) const {
  std::unique_lock lock(state_->mu);
  if (state_->aborted) {
    lock.unlock();
    fn(state_->reason);
    return {};
  }
  const uint64_t id = state_->next_id++;
  state_->listeners.emplace(id, std::move(fn));
  return Subscription(state_, id);
}

AbortController::AbortController() : state_(std::make_shared<internal::SignalState>()) {}

void AbortController::Abort(std::string reason) { state_->Abort(std::move(reason)); }

Signal Fuse(const Signal& a, const Signal& b) {
  auto fused = std::make_shared<internal::SignalState>();
  std::weak_ptr<internal::SignalState> weak = fused;
  auto forward = [weak](const std::string& reason) {
    if (auto s = weak.lock()) s->Abort(reason);
  };
  // Subscribing may abort `fused` at once; its parents list is only touched here.
  Subscription sa = a.OnAbort(forward);
  Subscription sb = b.OnAbort(forward);
  fused->parents.push_back(std::move(sa));
  fused->parents.push_back(std::move(sb));
  return Signal(std::move(fused));
}

asio::awaitable<bool> SleepFor(std::chrono::steady_clock::duration d, Signal signal) {
  auto executor = co_await asio::this_coro::executor;
  auto timer = std::make_shared<asio::steady_timer>(executor, d);
  Subscription sub = signal.OnAbort([timer, executor](const std::string&) {
    asio::post(executor, [timer] { timer->cancel(); });
  });
  if (signal.aborted()) co_return false;
  boost::system::error_code ec;
  co_await timer->async_wait(asio::redirect_error(asio::use_awaitable, ec));
  co_return !signal.aborted() && !ec;
}

}  // namespace retrace::runtime
