// RunBatch: one step's tool calls under dsh's parallel scheduling contract
// (dsh-tool-contract §9.2). Calls start (prepare: pre-execute, ask, guards)
// strictly in model order; consecutive concurrency-safe calls overlap their
// dispatch and bodies in a rolling pool of `max_parallel`; an unsafe call is
// a barrier (the pool drains, it runs alone); results commit (post-execute,
// finalizeContent, tools/result, the durable tool/result) strictly in model
// order.
//
// Once `signal` aborts, calls already started drain and commit; calls not
// yet started get the synthetic ABORTED_BEFORE_DISPATCH result without
// entering the pipeline (what dsh's loop records for skipped calls).
#ifndef RETRACE_ENGINE_RUNTIME_BATCH_SCHEDULER_H_
#define RETRACE_ENGINE_RUNTIME_BATCH_SCHEDULER_H_

#include <cstddef>
#include <functional>
#include <vector>

#include <retrace/engine/base/status.h>
#include <retrace/engine/runtime/asio.h>
#include <retrace/engine/runtime/tool_runtime.h>

namespace retrace::runtime {

struct BatchHooks {
  // Before call `i` starts (record its tool/call durably). An error stops
  // the batch: call `i` and later calls do not run.
  std::function<Status(size_t i)> on_start;
  // With call `i`'s final result, in model order (record its tool/result).
  std::function<Status(size_t i, const ToolResultPtr&)> on_commit;
};

// Runs every call (each input carries `signal` as its caller signal).
// Returns the first hook error, after every started body has settled.
asio::awaitable<Status> RunBatch(ToolRuntime& runtime, std::vector<ToolCallInput> calls, size_t max_parallel,
                                 Signal signal, BatchHooks hooks);

}  // namespace retrace::runtime

#endif  // RETRACE_ENGINE_RUNTIME_BATCH_SCHEDULER_H_
