#include "engine/runtime/tool_runtime.h"

#include <pthread.h>

#include <stdexcept>

#include <spdlog/spdlog.h>

#include "engine/json/lossless.h"
#include "engine/runtime/code_mode.h"
#include "engine/schema/validator.h"

namespace retrace::runtime {
namespace {

using Stage = ToolRuntime::Stage;

// What a synchronous body gave on the blocking pool: its value or its failure.
struct BodyOutcome {
  json::Value value;
  std::optional<ErrorDetail> error;
};

ToolResult ErrorResult(const std::exception_ptr& e) { return ToolResult::Failure(DescribeException(e)); }

ToolResult ErrorResult(const std::string& message) { return ToolResult::Failure(ErrorDetail{message, std::nullopt}); }

// The cancellation outcomes keep the prior result's contexts (§5.7).
ToolResult CancellationResult(bool body_invoked, std::vector<json::Value> contexts = {}) {
  ToolResult r = ToolResult::Failure(body_invoked ? AbortedError() : AbortedBeforeDispatchError());
  r.additional_contexts = std::move(contexts);
  return r;
}

Stage Final(std::shared_ptr<Execution> exec, ToolResult r) {
  return {Stage::Kind::kFinalResult, std::move(exec), std::move(r)};
}
Stage Post(std::shared_ptr<Execution> exec, ToolResult r) {
  return {Stage::Kind::kPostResult, std::move(exec), std::move(r)};
}

bool ContentLossless(const Content& content) {
  for (const json::Value& block : content) {
    if (!json::IsLossless(block)) return false;
  }
  return true;
}

// §5.2 step 12.1: the durable projection must be lossless JSON.
ToolResult Materialize(ToolResult r) {
  bool ok = ContentLossless(r.content) && (!r.meta || json::IsLossless(*r.meta));
  for (const json::Value& c : r.additional_contexts) ok = ok && json::IsLossless(c);
  if (r.is_error) {
    r.value.reset();
    r.concludes_turn = false;
  }
  if (!ok) return ErrorResult("tool result must be losslessly JSON-serializable");
  return r;
}

// A block's failure message (dsh's failureMessageFromContent).
std::string FeedbackMessage(const Content& feedback) {
  std::string text;
  for (size_t i = 0; i < feedback.size(); ++i) {
    if (i) text += "\n";
    const json::Value* type = feedback[i].Find("type");
    const json::Value* t = feedback[i].Find("text");
    const std::string type_name = type && type->is_string() ? type->as_string() : "undefined";
    if (type_name == "text") {
      text += t && t->is_string() ? t->as_string() : "undefined";
    } else {
      text += "[" + type_name + " content]";
    }
  }
  return text.empty() ? "tool result blocked by post-execute policy" : text;
}

template <typename Fn>
PreDecision RunPre(const Execution& exec, const std::vector<std::shared_ptr<const Fn>>& chain, size_t i) {
  if (i == chain.size()) return PreDecision::Allow();
  return (*chain[i])(exec, [&] { return RunPre(exec, chain, i + 1); });
}

template <typename Fn>
PostDecision RunPost(const Execution& exec, const ToolResult& result, const std::vector<std::shared_ptr<const Fn>>& chain,
                     size_t i) {
  if (i == chain.size()) return PostDecision::Accept();
  return (*chain[i])(exec, result, [&] { return RunPost(exec, result, chain, i + 1); });
}

}  // namespace

ToolRuntime::ToolRuntime(RuntimeOptions options)
    : options_(std::move(options)), blocking_pool_(std::max(1, options_.blocking_threads)) {
  if (!options_.warn) options_.warn = [](const std::string& m) { spdlog::warn("{}", m); };
}

ToolRuntime::~ToolRuntime() { blocking_pool_.join(); }

ToolResult& ToolRuntime::MarkCanonical(const Execution& exec, ToolResult& r) const {
  r.canonical_for_ = exec.token().serial();
  return r;
}

bool ToolRuntime::IsConcurrencySafe(const ToolCallInput& input) const {
  ToolDefinitionPtr def = registry_.Get(input.name, input.agent);
  if (!def || !def->is_concurrency_safe) return false;
  try {
    return def->is_concurrency_safe(input.arguments);
  } catch (...) {
    return false;
  }
}

asio::awaitable<ToolResultPtr> ToolRuntime::Execute(ToolCallInput input) {
  Stage stage = co_await Prepare(std::move(input));
  if (stage.kind == Stage::Kind::kDispatch) {
    stage = co_await Dispatch(stage.exec);
  }
  co_return Complete(std::move(stage));
}

ToolResultPtr ToolRuntime::Complete(Stage stage) {
  return stage.kind == Stage::Kind::kPostResult ? Finalize(stage.exec, std::move(stage.result))
                                                : Finish(stage.exec, std::move(stage.result));
}

asio::awaitable<Stage> ToolRuntime::Prepare(ToolCallInput input) {
  // Step 1: the execution, with the finalizer of the definition visible now.
  auto exec = std::shared_ptr<Execution>(new Execution());
  exec->call_id_ = std::move(input.call_id);
  exec->root_call_id_ = input.root_call_id ? std::move(*input.root_call_id) : exec->call_id_;
  exec->name_ = std::move(input.name);
  exec->agent_ = std::move(input.agent);
  exec->session_id_ = std::move(input.session_id);
  exec->record_ = std::move(input.record);
  exec->parent_ = input.parent;
  exec->caller_signal_ = input.signal;
  exec->signal_ = std::move(input.signal);
  const ToolDefinitionPtr visible = registry_.Get(exec->name_, exec->agent_);
  if (visible && visible->finalize_content) exec->finalizer_def_ = visible;
  if (!json::IsLossless(input.arguments)) {
    co_return Final(exec, ErrorResult("tool execution arguments must be losslessly JSON-serializable"));
  }
  exec->arguments_ = std::make_shared<const json::Value>(std::move(input.arguments));

  // Step 2: a call cancelled before it began runs no policy at all.
  if (exec->caller_signal_.aborted()) co_return Final(exec, CancellationResult(false));
  // Code Mode's collapse (§7.1): under `code`, a model-direct call of any other
  // visible tool is refused before any policy, and its finalizer does not run.
  if (visible && registry_.Collapses(exec->name_, exec->agent_, exec->parent_.has_value())) {
    exec->finalizer_def_ = nullptr;
    co_return Final(exec, ToolResult::Failure(CodeModeCollapseError(exec->name_)));
  }

  try {
    // Steps 3–4: pre-execute, then ask servicing.
    PreDecision decision = RunPre(*exec, registry_.PreExecuteFor(exec->agent_), 0);
    bool approval_cancelled = false;
    if (decision.kind == PreDecision::Kind::kAsk) {
      // (GCC 12 mishandles temporaries inside co_await expressions: keep them named.)
      std::pair<PreDecision, bool> serviced = co_await ServiceAsk(*exec, decision);
      decision = std::move(serviced.first);
      approval_cancelled = serviced.second;
    }
    if (exec->caller_signal_.aborted() && approval_cancelled) co_return Post(exec, CancellationResult(false));
    // Steps 5–6: guards only after allow; they can deny, never allow.
    std::optional<std::string> denial =
        decision.kind == PreDecision::Kind::kAllow ? GuardReason(*exec) : decision.reason;
    if (denial) co_return Post(exec, ErrorResult(*denial));
    // Step 7.
    if (exec->caller_signal_.aborted()) co_return Post(exec, CancellationResult(false));
    co_return Stage{Stage::Kind::kDispatch, exec, {}};
  } catch (...) {
    co_return Final(exec, ErrorResult(std::current_exception()));
  }
}

asio::awaitable<std::pair<PreDecision, bool>> ToolRuntime::ServiceAsk(const Execution& exec, PreDecision ask) {
  const std::string& name = exec.name();
  if (approval_ == nullptr) {
    co_return std::pair{PreDecision::Deny(ask.reason.value_or("tool \"" + name + "\" requires approval (not yet supported)")),
                        false};
  }
  if (!exec.agent()) {
    co_return std::pair{
        PreDecision::Deny("tool \"" + name + "\" requires approval, but the call has no agent to route it through"), false};
  }
  ApprovalRequest request{exec.agent(), name, exec.call_id(), ask.reason, exec.signal()};
  ApprovalOutcome outcome = co_await approval_->Request(std::move(request));
  switch (outcome) {
    case ApprovalOutcome::kAllowedOnce:
      co_return std::pair{PreDecision::Allow(), false};
    case ApprovalOutcome::kRejected:
      co_return std::pair{PreDecision::Deny("the user rejected tool \"" + name + "\""), false};
    case ApprovalOutcome::kCancelled:
      co_return std::pair{PreDecision::Deny("approval for tool \"" + name + "\" was cancelled"), true};
    case ApprovalOutcome::kUnavailable:
      break;
  }
  co_return std::pair{
      PreDecision::Deny("tool \"" + name + "\" requires approval, but no approval channel is available"), false};
}

std::optional<std::string> ToolRuntime::GuardReason(const Execution& exec) const {
  for (const auto& guard : registry_.GuardsFor(exec.agent())) {
    if (std::optional<std::string> reason = (*guard)(exec)) return reason;
  }
  return std::nullopt;
}

asio::awaitable<Stage> ToolRuntime::Dispatch(std::shared_ptr<Execution> exec) {
  try {
    auto wrappers = std::make_shared<const std::vector<std::shared_ptr<const ExecuteWrapperFn>>>(
        registry_.WrappersFor(exec->agent_));
    ToolResultPtr returned = co_await RunWrappers(exec, std::move(wrappers), 0);
    ToolResult result = Normalize(*exec, *returned);
    std::vector<json::Value> deferred;
    {
      std::lock_guard lock(exec->mu_);
      deferred = exec->deferred_;
    }
    if (!deferred.empty()) {
      deferred.insert(deferred.end(), std::make_move_iterator(result.additional_contexts.begin()),
                      std::make_move_iterator(result.additional_contexts.end()));
      result.additional_contexts = std::move(deferred);
    }
    if (exec->caller_signal_.aborted() && !result.is_error) {
      result = CancellationResult(exec->body_invoked_, std::move(result.additional_contexts));
    }
    co_return Post(exec, std::move(result));
  } catch (...) {
    co_return Final(exec, ErrorResult(std::current_exception()));
  }
}

asio::awaitable<ToolResultPtr> ToolRuntime::RunWrappers(
    std::shared_ptr<Execution> exec, std::shared_ptr<const std::vector<std::shared_ptr<const ExecuteWrapperFn>>> wrappers,
    size_t index) {
  if (index == wrappers->size()) {
    co_return co_await DispatchBody(exec);
  }
  const ExecuteWrapperFn& wrapper = *(*wrappers)[index];
  ExecuteNext next = [this, exec, wrappers, index]() { return RunWrappers(exec, wrappers, index + 1); };
  ToolResultPtr result = co_await wrapper(*exec, std::move(next));
  if (!result) throw std::runtime_error("tools/execute wrapper returned no result");
  co_return result;
}

asio::awaitable<ToolResultPtr> ToolRuntime::DispatchBody(std::shared_ptr<Execution> exec) {
  const Signal wrapper_signal = exec->signal();
  const Signal fused =
      wrapper_signal == exec->caller_signal_ ? wrapper_signal : Fuse(exec->caller_signal_, wrapper_signal);
  ToolResult result;
  if (fused.aborted()) {
    result = CancellationResult(false);
    co_return std::make_shared<const ToolResult>(std::move(MarkCanonical(*exec, result)));
  }
  exec->set_signal(fused);
  try {
    ToolDefinitionPtr def = ResolveOrThrow(*exec);
    exec->body_invoked_ = true;
    json::Value value = co_await RunBody(*def, *exec);
    result = CreateSuccessResult(*exec, *def, std::move(value));
    if (fused.aborted()) result = CancellationResult(true);
  } catch (...) {
    result = ErrorResult(std::current_exception());  // the body's own error is more specific than an abort
  }
  exec->set_signal(wrapper_signal);
  co_return std::make_shared<const ToolResult>(std::move(MarkCanonical(*exec, result)));
}

asio::awaitable<json::Value> ToolRuntime::RunBody(const ToolDefinition& def, Execution& exec) {
  if (def.execute_async) {
    co_return co_await def.execute_async(exec);
  }
  if (def.execute_brief) {
    // Its author promises it is brief (tool_definition.h); what it throws
    // is the body's error, as from the pool.
    if (std::optional<json::Value> value = def.execute_brief(exec)) co_return std::move(*value);
  }
  // A synchronous body may block: it runs on the blocking pool while this
  // coroutine waits, so timers (deadlines) and other calls keep running.
  // What it throws is described on the pool thread and thrown again here as a
  // new exception: an exception object never crosses threads, so no thread
  // frees what another still reads (its reference count lives in the C++
  // runtime, where ThreadSanitizer cannot see it).
  BodyOutcome outcome = co_await asio::co_spawn(
      blocking_pool_,
      [&def, &exec]() -> asio::awaitable<BodyOutcome> {
        static thread_local const bool named = ::pthread_setname_np(::pthread_self(), "retrace-body") == 0;
        (void)named;  // the pool's threads, named at their first body (for top -H, perf and gdb)
        try {
          co_return BodyOutcome{def.execute(exec), std::nullopt};
        } catch (...) {
          co_return BodyOutcome{json::Value(), DescribeException(std::current_exception())};
        }
      },
      asio::use_awaitable);
  if (!outcome.error) co_return std::move(outcome.value);
  if (outcome.error->info) {
    throw ToolError(std::move(outcome.error->message), outcome.error->info->name, outcome.error->info->code);
  }
  throw std::runtime_error(outcome.error->message);
}

ToolDefinitionPtr ToolRuntime::ResolveOrThrow(const Execution& exec) const {
  ToolDefinitionPtr def = registry_.Get(exec.name(), exec.agent());
  if (!def) throw ToolNotFoundError(exec.name());
  return def;
}

ToolResult ToolRuntime::CreateSuccessResult(const Execution& exec, const ToolDefinition& def,
                                            std::optional<json::Value> candidate) const {
  if (!candidate || !json::IsLossless(*candidate)) throw ToolOutputError(def.name, "value is not lossless JSON");
  if (std::vector<std::string> v = schema::Validate(def.output.schema, *candidate, "value"); !v.empty()) {
    std::string joined;
    for (size_t i = 0; i < v.size(); ++i) joined += (i ? "; " : "") + v[i];
    throw ToolOutputError(def.name, joined);
  }
  ToolResult r;
  // Projectors: a throw is "output.<p> failed: <msg>"; a non-lossless return
  // "output.<p> returned non-lossless JSON".
  auto project = [&](const char* projector, auto&& fn) {
    try {
      return fn();
    } catch (...) {
      throw ToolOutputError(def.name,
                            std::string("output.") + projector + " failed: " +
                                DescribeException(std::current_exception()).message);
    }
  };
  r.content = project("render", [&] { return def.output.render(exec.arguments(), *candidate); });
  if (!ContentLossless(r.content)) throw ToolOutputError(def.name, "output.render returned non-lossless JSON");
  if (!exec.parent() && def.output.presentation_meta) {
    r.meta = project("presentationMeta", [&] { return def.output.presentation_meta(exec.arguments(), *candidate); });
    if (!json::IsLossless(*r.meta)) throw ToolOutputError(def.name, "output.presentationMeta returned non-lossless JSON");
  }
  r.concludes_turn = exec.concluded_;
  r.value = std::move(candidate);
  MarkCanonical(exec, r);
  return r;
}

ToolResult ToolRuntime::Normalize(const Execution& exec, const ToolResult& result) const {
  if (result.canonical_for_ == exec.token().serial()) return result;
  ToolResult r;
  if (result.is_error) {
    r.is_error = true;
    r.error = result.error;
    r.content = result.content;
    r.meta = result.meta;
    r.additional_contexts = result.additional_contexts;
  } else {
    // A wrapper-authored (or cached) success: the output contract re-derives
    // content and meta from the value; the wrapper's content is discarded.
    ToolDefinitionPtr def = ResolveOrThrow(exec);
    r = CreateSuccessResult(exec, *def, result.value);
    r.additional_contexts = result.additional_contexts;
  }
  return MarkCanonical(exec, r);
}

ToolResultPtr ToolRuntime::Finalize(const std::shared_ptr<Execution>& exec, ToolResult result) {
  try {
    std::vector<std::shared_ptr<const PostExecuteFn>> chain = registry_.PostExecuteFor(exec->agent_);
    if (!chain.empty()) {
      PostDecision decision = RunPost(*exec, result, chain, 0);
      result = ApplyPost(*exec, std::move(result), std::move(decision));
    }
    if (exec->caller_signal_.aborted() && !result.is_error) {
      result = CancellationResult(exec->body_invoked_, std::move(result.additional_contexts));
    }
  } catch (...) {
    result = ErrorResult(std::current_exception());  // a throwing listener loses every context
  }
  return Finish(exec, std::move(result));
}

ToolResult ToolRuntime::ApplyPost(const Execution& exec, ToolResult result, PostDecision decision) const {
  if (decision.kind == PostDecision::Kind::kBlock) {
    // The block replaces everything: no meta, and the tool's deferred contexts are dropped.
    ToolResult blocked;
    blocked.is_error = true;
    blocked.error = ErrorDetail{FeedbackMessage(decision.feedback), std::nullopt};
    blocked.content = std::move(decision.feedback);
    blocked.additional_contexts = std::move(decision.additional_contexts);
    return MarkCanonical(exec, blocked);
  }
  if (decision.content && decision.value) {
    throw std::invalid_argument("tools/post-execute accept decision cannot replace both value and content");
  }
  std::vector<json::Value> contexts = std::move(result.additional_contexts);
  contexts.insert(contexts.end(), std::make_move_iterator(decision.additional_contexts.begin()),
                  std::make_move_iterator(decision.additional_contexts.end()));
  if (decision.value) {
    if (result.is_error) throw std::invalid_argument("tools/post-execute cannot replace the value of a failed result");
    ToolDefinitionPtr def = ResolveOrThrow(exec);
    result = CreateSuccessResult(exec, *def, std::move(decision.value));
  } else if (decision.content) {
    result.content = std::move(*decision.content);
  }
  result.additional_contexts = std::move(contexts);
  return MarkCanonical(exec, result);
}

ToolResultPtr ToolRuntime::Finish(const std::shared_ptr<Execution>& exec, ToolResult result) {
  result = Materialize(std::move(result));
  if (exec->finalizer_def_) {
    try {
      if (std::optional<Content> content = exec->finalizer_def_->finalize_content(*exec, result)) {
        result.content = std::move(*content);
      }
      result = Materialize(std::move(result));
    } catch (...) {
      result = Materialize(ErrorResult(std::current_exception()));  // not finalized again
    }
  }
  auto published = std::make_shared<const ToolResult>(std::move(result));
  Publish(*exec, published);
  return published;
}

void ToolRuntime::Publish(Execution& exec, const ToolResultPtr& result) {
  exec.frozen_ = true;
  for (const auto& observer : registry_.ObserversFor(exec.agent_)) {
    try {
      (*observer)(exec, result);
    } catch (...) {
      options_.warn("tool \"" + exec.name() + "\" (" + exec.call_id() +
                    "): tools/result observer failed: " + DescribeException(std::current_exception()).message);
    }
  }
}

}  // namespace retrace::runtime
