// Cooperative cancellation (dsh-tool-contract §5.7, §9.7): an AbortSignal
// and its controller, thread-safe, with listeners that are removed when
// their Subscription dies, and Fuse() for "abort when either parent does".
//
// A Signal is a cheap handle to shared state; copies observe the same abort.
// Bodies poll aborted() or subscribe; SleepFor() is a cancellable wait for
// coroutine bodies.
#ifndef RETRACE_ENGINE_RUNTIME_CANCELLATION_H_
#define RETRACE_ENGINE_RUNTIME_CANCELLATION_H_

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include <retrace/engine/runtime/asio.h>

namespace retrace::runtime {

namespace internal {
struct SignalState;
}

// Unsubscribes on destruction (or Reset()). Move-only.
class Subscription {
 public:
  Subscription() = default;
  Subscription(std::weak_ptr<internal::SignalState> state, uint64_t id) : state_(std::move(state)), id_(id) {}
  Subscription(Subscription&& other) noexcept { *this = std::move(other); }
  Subscription& operator=(Subscription&& other) noexcept;
  Subscription(const Subscription&) = delete;
  Subscription& operator=(const Subscription&) = delete;
  ~Subscription() { Reset(); }
  void Reset();

 private:
  std::weak_ptr<internal::SignalState> state_;
  uint64_t id_ = 0;
};

class Signal {
 public:
  // A signal that is never aborted.
  Signal();

  bool aborted() const;
  // The abort reason ("" while not aborted).
  std::string reason() const;

  // Calls `fn(reason)` once when the signal aborts — at once, on this thread,
  // if it already has. Otherwise on the aborting thread; keep it short.
  [[nodiscard]] Subscription OnAbort(std::function<void(const std::string&)> fn) const;

  // Same underlying signal (identity, not state).
  friend bool operator==(const Signal& a, const Signal& b) { return a.state_ == b.state_; }

 private:
  friend class AbortController;
  friend Signal Fuse(const Signal& a, const Signal& b);
  explicit Signal(std::shared_ptr<internal::SignalState> s) : state_(std::move(s)) {}
  std::shared_ptr<internal::SignalState> state_;
};

class AbortController {
 public:
  AbortController();
  Signal signal() const { return Signal(state_); }
  // Idempotent: the first reason wins.
  void Abort(std::string reason = "aborted");

 private:
  std::shared_ptr<internal::SignalState> state_;
};

// A signal that aborts when `a` or `b` does, with that signal's reason. It
// holds its subscriptions to both parents while it lives.
Signal Fuse(const Signal& a, const Signal& b);

// Waits `d` on the current coroutine's executor; returns false early when
// `signal` aborts (true when the full time elapsed).
asio::awaitable<bool> SleepFor(std::chrono::steady_clock::duration d, Signal signal);

}  // namespace retrace::runtime

#endif  // RETRACE_ENGINE_RUNTIME_CANCELLATION_H_
