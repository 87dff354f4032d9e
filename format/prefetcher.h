// Prefetcher<T>: runs a producer on a background thread, up to `max_ahead`
// items ahead of the consumer, handing items over in order. Used by import so
// that parsing and validation (the producer) overlap SQLite inserts (the
// consumer) on a second core. Wakeups are batched, since a context switch
// per item costs more than most items: a consumer that finds the queue empty
// sleeps until a batch of min(kWakeBatch, max_ahead) items is ready (or
// production ended), and a producer that filled the queue sleeps until it
// has drained to half. Neither waits for what the other may never make.
#ifndef RETRACE_FORMAT_PREFETCHER_H_
#define RETRACE_FORMAT_PREFETCHER_H_

#include <condition_variable>
#include <algorithm>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include <retrace/engine/base/status.h>

namespace retrace::format {

template <typename T>
class Prefetcher {
 public:
  // `produce` returns the next item, nullopt at the end, or an error (which
  // ends production). It runs on the background thread only.
  using Producer = std::function<Result<std::optional<T>>()>;

  // REQUIRES: max_ahead >= 1 (0 is taken as 1).
  explicit Prefetcher(Producer produce, size_t max_ahead = 1024)
      : produce_(std::move(produce)),
        max_ahead_(std::max<size_t>(1, max_ahead)),
        wake_batch_(std::min(kWakeBatch, max_ahead_)),
        thread_([this] { Run(); }) {}

  // Stops the producer (after its current item) and joins it.
  ~Prefetcher() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    wake_producer_.notify_all();
    thread_.join();
  }
  Prefetcher(const Prefetcher&) = delete;
  Prefetcher& operator=(const Prefetcher&) = delete;

  // The next item in production order, nullopt at the end, or the producer's error.
  Result<std::optional<T>> Next() {
    std::unique_lock<std::mutex> lock(mu_);
    // Only an empty queue waits, and then for a whole batch: the producer can
    // always make one, since a batch is never more than max_ahead.
    if (queue_.empty()) wake_consumer_.wait(lock, [&] { return queue_.size() >= wake_batch_ || end_.has_value(); });
    if (queue_.empty()) {
      if (!end_->ok()) return *end_;
      return std::optional<T>();
    }
    std::optional<T> item(std::move(queue_.front()));
    queue_.pop_front();
    if (queue_.size() == max_ahead_ / 2) wake_producer_.notify_one();
    return item;
  }

 private:
  void Run() {
    while (true) {
      {
        std::unique_lock<std::mutex> lock(mu_);
        wake_producer_.wait(lock, [&] { return stop_ || queue_.size() < max_ahead_; });
        if (stop_) return;
      }
      auto next = produce_();  // the expensive part, outside the lock
      std::lock_guard<std::mutex> lock(mu_);
      if (!next.ok()) {
        end_ = next.status();
      } else if (!next->has_value()) {
        end_ = Status::Ok();
      } else {
        queue_.push_back(std::move(**next));
      }
      if (queue_.size() >= wake_batch_ || end_) wake_consumer_.notify_one();
      if (end_) return;
    }
  }

  static constexpr size_t kWakeBatch = 64;

  Producer produce_;
  const size_t max_ahead_;
  const size_t wake_batch_;  // the consumer wakes with this many items ready
  std::mutex mu_;
  std::condition_variable wake_producer_;
  std::condition_variable wake_consumer_;
  std::deque<T> queue_;
  std::optional<Status> end_;  // set once production ended (OK) or failed
  bool stop_ = false;
  std::thread thread_;  // last: starts after every other member exists
};

}  // namespace retrace::format

#endif  // RETRACE_FORMAT_PREFETCHER_H_
