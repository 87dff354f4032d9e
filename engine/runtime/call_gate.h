// CallGate: the admission rule of dsh's parallel scheduling (dsh-tool-contract
// §9.2) for calls that arrive one at a time instead of as one step's batch
// (MCP requests): concurrency-safe calls overlap, up to `max_parallel`; an
// unsafe call waits for every call in flight and runs alone. Admission is
// first come, first served: no call overtakes one that waits before it, so
// an unsafe call is not starved by a stream of safe ones.
//
// Not thread-safe: Enter and the passes it gives belong to one executor's
// thread (the front end's I/O thread).
#ifndef RETRACE_ENGINE_RUNTIME_CALL_GATE_H_
#define RETRACE_ENGINE_RUNTIME_CALL_GATE_H_

#include <cstddef>
#include <deque>
#include <exception>
#include <memory>

#include <retrace/engine/runtime/asio.h>

namespace retrace::runtime {

class CallGate {
 public:
  explicit CallGate(size_t max_parallel) : max_parallel_(max_parallel < 1 ? 1 : max_parallel) {}
  CallGate(const CallGate&) = delete;
  CallGate& operator=(const CallGate&) = delete;

  // Held while a call runs; leaving lets the next waiting calls in.
  class Pass {
   public:
    Pass(Pass&& other) noexcept : gate_(other.gate_), exclusive_(other.exclusive_) { other.gate_ = nullptr; }
    Pass& operator=(Pass&&) = delete;
    Pass(const Pass&) = delete;
    ~Pass() {
      if (!gate_) return;
      // Leaving only throws if Asio cannot cancel a timer (its reactor is
      // broken): the waiters would then never wake, so that stops the process.
      try {
        gate_->Leave(exclusive_);
      } catch (...) {
        std::terminate();
      }
    }

   private:
    friend class CallGate;
    Pass(CallGate* gate, bool exclusive) : gate_(gate), exclusive_(exclusive) {}
    CallGate* gate_;
    bool exclusive_;
  };

  // Waits until the call may run. The gate must outlive the pass.
  asio::awaitable<Pass> Enter(bool exclusive);

  size_t running() const { return running_; }
  size_t waiting() const { return waiting_.size(); }

 private:
  struct Waiter {
    bool exclusive = false;
    bool admitted = false;
    std::unique_ptr<asio::steady_timer> wake;
  };
  bool Fits(bool exclusive) const;
  void Leave(bool exclusive);

  size_t max_parallel_;
  size_t running_ = 0;
  bool exclusive_running_ = false;
  std::deque<std::shared_ptr<Waiter>> waiting_;
};

}  // namespace retrace::runtime

#endif  // RETRACE_ENGINE_RUNTIME_CALL_GATE_H_
