#include "engine/runtime/batch_scheduler.h"

#include <chrono>
#include <deque>
#include <exception>
#include <memory>
#include <optional>
#include <string>

namespace retrace::runtime {
namespace {

using Stage = ToolRuntime::Stage;

// One started call: its stage, and — while its dispatch runs concurrently —
// a timer that the dispatch cancels to wake the committer.
struct Slot {
  size_t index = 0;
  std::optional<Stage> stage;
  std::shared_ptr<asio::steady_timer> wake;
};

asio::awaitable<void> AwaitDispatch(Slot& slot) {
  while (!slot.stage) {
    boost::system::error_code ec;
    co_await slot.wake->async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
}

}  // namespace

asio::awaitable<Status> RunBatch(ToolRuntime& runtime, std::vector<ToolCallInput> calls, size_t max_parallel,
                                 Signal signal, BatchHooks hooks) {
  auto executor = co_await asio::this_coro::executor;
  std::deque<std::shared_ptr<Slot>> window;  // started, not yet committed, in model order
  Status failure;

  // Commits the oldest started call; after a failure, only waits for it.
  auto commit_oldest = [&]() -> asio::awaitable<void> {
    std::shared_ptr<Slot> slot = window.front();
    window.pop_front();
    co_await AwaitDispatch(*slot);
    ToolResultPtr result = runtime.Complete(std::move(*slot->stage));
    if (failure.ok()) failure = hooks.on_commit(slot->index, result);
  };

  size_t i = 0;
  for (; i < calls.size() && failure.ok(); ++i) {
    const bool parallel = max_parallel > 1 && runtime.IsConcurrencySafe(calls[i]);
    while (!window.empty() && (!parallel || window.size() >= max_parallel)) {
      co_await commit_oldest();
    }
    if (!failure.ok() || signal.aborted()) break;
    if (failure = hooks.on_start(i); !failure.ok()) break;

    auto slot = std::make_shared<Slot>();
    slot->index = i;
    Stage stage = co_await runtime.Prepare(std::move(calls[i]));
    if (stage.kind != Stage::Kind::kDispatch) {
      slot->stage = std::move(stage);
    } else if (!parallel) {
      slot->stage = co_await runtime.Dispatch(stage.exec);
    } else {
      slot->wake = std::make_shared<asio::steady_timer>(executor, std::chrono::steady_clock::time_point::max());
      asio::co_spawn(executor, runtime.Dispatch(stage.exec),
                     [slot, exec = stage.exec](const std::exception_ptr& thrown, Stage done) {
                       // Dispatch turns every failure into a result; should anything escape
                       // it all the same (bad_alloc), the call settles as a failure rather
                       // than committing an empty stage.
                       slot->stage = thrown ? Stage{Stage::Kind::kFinalResult, exec,
                                                    ToolResult::Failure(DescribeException(thrown))}
                                            : std::move(done);
                       slot->wake->cancel();
                     });
    }
    window.push_back(std::move(slot));
    if (!parallel) {  // a barrier: nothing starts before it commits
      co_await commit_oldest();
    }
  }
  while (!window.empty()) {
    co_await commit_oldest();
  }

  // Calls never started after a cancellation: the synthetic pair.
  for (; i < calls.size() && failure.ok() && signal.aborted(); ++i) {
    failure = hooks.on_start(i);
    if (failure.ok()) {
      failure = hooks.on_commit(i, std::make_shared<const ToolResult>(ToolResult::Failure(AbortedBeforeDispatchError())));
    }
  }
  co_return failure;
}

}  // namespace retrace::runtime
