#include "format/prefetcher.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <future>
#include <thread>
#include <vector>

namespace retrace::format {
namespace {

// Drains a prefetcher of `n` numbered items on another thread; a hang (the
// consumer and producer each waiting for the other) fails instead of blocking
// the suite.
std::vector<int> DrainWithin(size_t max_ahead, int n, std::chrono::seconds limit = std::chrono::seconds(20)) {
  auto done = std::async(std::launch::async, [=] {
    int next = 0;
    Prefetcher<int> p([&]() -> Result<std::optional<int>> {
      if (next == n) return std::optional<int>();
      return std::optional<int>(next++);
    }, max_ahead);
    std::vector<int> got;
    while (true) {
      Result<std::optional<int>> item = p.Next();
      if (!item.ok() || !item->has_value()) return got;
      got.push_back(**item);
    }
  });
  if (done.wait_for(limit) != std::future_status::ready) {
    ADD_FAILURE() << "Prefetcher with max_ahead " << max_ahead << " hung";
    std::quick_exit(1);  // the hung threads cannot be joined
  }
  return done.get();
}

TEST(PrefetcherTest, DeliversEveryItemInOrderForAnyLookahead) {
  for (size_t max_ahead : {size_t{0}, size_t{1}, size_t{2}, size_t{3}, size_t{31}, size_t{63}, size_t{64},
                           size_t{65}, size_t{100}, size_t{127}, size_t{128}, size_t{1024}}) {
    for (int n : {0, 1, 5, 64, 65, 1000}) {
      std::vector<int> got = DrainWithin(max_ahead, n);
      ASSERT_EQ(got.size(), static_cast<size_t>(n)) << "max_ahead " << max_ahead;
      for (int i = 0; i < n; ++i) ASSERT_EQ(got[static_cast<size_t>(i)], i) << "max_ahead " << max_ahead;
    }
  }
}

TEST(PrefetcherTest, ProducerErrorArrivesAfterTheItemsBeforeIt) {
  int next = 0;
  Prefetcher<int> p([&]() -> Result<std::optional<int>> {
    if (next == 3) return Status::Corruption("line 4: bad");
    return std::optional<int>(next++);
  }, 2);
  for (int i = 0; i < 3; ++i) {
    Result<std::optional<int>> item = p.Next();
    ASSERT_TRUE(item.ok());
    ASSERT_TRUE(item->has_value());
    EXPECT_EQ(**item, i);
  }
  Result<std::optional<int>> end = p.Next();
  ASSERT_FALSE(end.ok());
  EXPECT_EQ(end.status().code(), Status::Code::kCorruption);
  EXPECT_EQ(end.status().message(), "line 4: bad");
}

TEST(PrefetcherTest, DestroyedBeforeTheEndStopsTheProducer) {
  std::atomic<int> made{0};
  {
    Prefetcher<int> p([&]() -> Result<std::optional<int>> { return std::optional<int>(made++); }, 8);
    Result<std::optional<int>> first = p.Next();
    ASSERT_TRUE(first.ok());
  }  // joins: an endless producer must stop at the look-ahead bound
  EXPECT_LE(made.load(), 9 + 1);
}

}  // namespace
}  // namespace retrace::format
