// ToolRuntime: the execution pipeline of dsh-tool-contract §5.2 over a
// ToolRegistry. Execute() never throws: every failure becomes an isError
// result with dsh's exact content text and {name, code} identity.
//
// Order for one call: create the execution (lossless, frozen arguments;
// opaque token) → pre-aborted check → tools/pre-execute waterfall → ask
// servicing → guards → denial → cancellation re-check → tools/execute
// wrappers → argument validation and body → output validation, render,
// presentationMeta (top-level calls only) → normalization of wrapper results
// → tools/post-execute → finalizeContent (exactly once) → tools/result
// observers. Cancellation replaces only successes (ABORTED after the body
// started, ABORTED_BEFORE_DISPATCH before).
//
// The staged API (Prepare → Dispatch → Finalize / Finish) is what a
// scheduler uses to overlap only dispatch and bodies (§9.2); Execute() is the
// stages in sequence.
//
// Coroutines of one runtime run on one executor at a time (an io_context run
// by one thread, or a strand). Synchronous bodies run on the runtime's own
// blocking pool, so a blocked body never stalls timers or other calls.
//
// Decisions on dsh's JS quirks (docs/TOOL_RUNTIME.md lists them all):
// a reasonless deny cannot be expressed (fail closed); unknown post-execute
// kinds cannot be expressed; each wrapper's next() is re-entrant at its own
// position. Under Code Mode's `code`, a model-direct call of any other tool
// than run_code is refused before any policy (the collapse, §7.1).
#ifndef RETRACE_ENGINE_RUNTIME_TOOL_RUNTIME_H_
#define RETRACE_ENGINE_RUNTIME_TOOL_RUNTIME_H_

#include <functional>
#include <memory>
#include <string>

#include <retrace/engine/runtime/asio.h>
#include <retrace/engine/runtime/execution.h>
#include <retrace/engine/runtime/policy.h>
#include <retrace/engine/runtime/tool_registry.h>
#include <retrace/engine/runtime/tool_result.h>

namespace retrace::runtime {

struct RuntimeOptions {
  // Threads of the blocking pool that runs synchronous bodies.
  int blocking_threads = 4;
  // Receives warnings (observer failures); default: spdlog::warn.
  std::function<void(const std::string&)> warn{};
};

class ToolRuntime {
 public:
  explicit ToolRuntime(RuntimeOptions options = {});
  ~ToolRuntime();
  ToolRuntime(const ToolRuntime&) = delete;
  ToolRuntime& operator=(const ToolRuntime&) = delete;

  ToolRegistry& registry() { return registry_; }
  const ToolRegistry& registry() const { return registry_; }

  // The approval seam for `ask` decisions; looked up per ask (may be null:
  // then ask degrades to deny). Not owned.
  void set_approval(ApprovalService* approval) { approval_ = approval; }

  // Runs one call through the whole pipeline.
  asio::awaitable<ToolResultPtr> Execute(ToolCallInput input);

  // Reports a warning through RuntimeOptions::warn.
  void Warn(const std::string& message) const { options_.warn(message); }

  // dsh's executionMode: true ("parallel") only when the visible definition
  // declares isConcurrencySafe and it returns true for these arguments.
  bool IsConcurrencySafe(const ToolCallInput& input) const;

  // The staged pipeline (§9.2).
  struct Stage {
    enum class Kind { kDispatch, kPostResult, kFinalResult };
    Kind kind = Kind::kDispatch;
    std::shared_ptr<Execution> exec;
    ToolResult result;  // kPostResult / kFinalResult
  };
  // Creation, pre-execute, ask, guards: yields kDispatch, kPostResult or kFinalResult.
  asio::awaitable<Stage> Prepare(ToolCallInput input);
  // Wrappers and body, for a kDispatch stage: yields kPostResult or kFinalResult.
  asio::awaitable<Stage> Dispatch(std::shared_ptr<Execution> exec);
  // Post-execute, then Finish.
  ToolResultPtr Finalize(const std::shared_ptr<Execution>& exec, ToolResult result);
  // finalizeContent, materialization, tools/result; no post-execute.
  ToolResultPtr Finish(const std::shared_ptr<Execution>& exec, ToolResult result);
  // Finalize or Finish, as the stage requires. REQUIRES: not kDispatch.
  ToolResultPtr Complete(Stage stage);

 private:
  asio::awaitable<ToolResultPtr> RunWrappers(std::shared_ptr<Execution> exec,
                                              std::shared_ptr<const std::vector<std::shared_ptr<const ExecuteWrapperFn>>> wrappers,
                                              size_t index);
  asio::awaitable<ToolResultPtr> DispatchBody(std::shared_ptr<Execution> exec);
  asio::awaitable<json::Value> RunBody(const ToolDefinition& def, Execution& exec);
  asio::awaitable<std::pair<PreDecision, bool>> ServiceAsk(const Execution& exec, PreDecision ask);
  std::optional<std::string> GuardReason(const Execution& exec) const;
  // §5.4. Throws ToolError (INVALID_TOOL_OUTPUT).
  ToolResult CreateSuccessResult(const Execution& exec, const ToolDefinition& def, std::optional<json::Value> candidate) const;
  // §5.2 step 10. Throws for an invalid wrapper-authored value.
  ToolResult Normalize(const Execution& exec, const ToolResult& result) const;
  // §5.2 step 11: applies a post-execute decision. Throws on a malformed one.
  ToolResult ApplyPost(const Execution& exec, ToolResult result, PostDecision decision) const;
  ToolDefinitionPtr ResolveOrThrow(const Execution& exec) const;
  void Publish(Execution& exec, const ToolResultPtr& result);
  ToolResult& MarkCanonical(const Execution& exec, ToolResult& r) const;

  RuntimeOptions options_;
  ToolRegistry registry_;
  ApprovalService* approval_ = nullptr;
  asio::thread_pool blocking_pool_;
};

}  // namespace retrace::runtime

#endif  // RETRACE_ENGINE_RUNTIME_TOOL_RUNTIME_H_
