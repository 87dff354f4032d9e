// The policy vocabulary of the pipeline (dsh-tool-contract §5.2): decisions
// of the tools/pre-execute and tools/post-execute waterfalls, guards, the
// around-dispatch wrapper shape, result observers, and the approval seam.
//
// Waterfalls: listeners run outermost-first in registration order (prepend
// puts one first); each receives `next`, which runs the rest of the chain
// and returns its decision. A listener may override what next() returned or
// not call it at all (a veto).
//
// Pre- and post-execute listeners and guards are synchronous (they decide;
// they do not wait). Wrappers and the approval service are coroutines,
// because they wrap or wait on work.
#ifndef RETRACE_ENGINE_RUNTIME_POLICY_H_
#define RETRACE_ENGINE_RUNTIME_POLICY_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <retrace/engine/json/value.h>
#include <retrace/engine/runtime/asio.h>
#include <retrace/engine/runtime/execution.h>
#include <retrace/engine/runtime/tool_result.h>

namespace retrace::runtime {

// allow | deny{reason} | ask{reason?}. There is no argument rewrite. A deny
// always has a reason: dsh dispatches a reasonless deny (a JS quirk); here
// the type cannot express one, so the port fails closed by construction.
struct PreDecision {
  enum class Kind { kAllow, kDeny, kAsk };
  Kind kind = Kind::kAllow;
  std::optional<std::string> reason;

  static PreDecision Allow() { return {}; }
  static PreDecision Deny(std::string reason) { return {Kind::kDeny, std::move(reason)}; }
  static PreDecision Ask(std::optional<std::string> reason = std::nullopt) { return {Kind::kAsk, std::move(reason)}; }
};

// accept{content? | value?, contexts} | block{feedback, contexts}. dsh
// treats any other kind as accept (a JS quirk); here there is no other kind.
struct PostDecision {
  enum class Kind { kAccept, kBlock };
  Kind kind = Kind::kAccept;
  std::optional<Content> content;      // accept: replace the content only
  std::optional<json::Value> value;    // accept: replace the value (revalidated, rerendered)
  Content feedback;                    // block: the failure's content, verbatim
  std::vector<json::Value> additional_contexts;

  static PostDecision Accept() { return {}; }
  static PostDecision AcceptContent(Content c) {
    PostDecision d;
    d.content = std::move(c);
    return d;
  }
  static PostDecision AcceptValue(json::Value v) {
    PostDecision d;
    d.value = std::move(v);
    return d;
  }
  static PostDecision Block(Content feedback) {
    PostDecision d;
    d.kind = Kind::kBlock;
    d.feedback = std::move(feedback);
    return d;
  }
};

using PreExecuteNext = std::function<PreDecision()>;
using PreExecuteFn = std::function<PreDecision(const Execution&, const PreExecuteNext& next)>;

using PostExecuteNext = std::function<PostDecision()>;
using PostExecuteFn = std::function<PostDecision(const Execution&, const ToolResult&, const PostExecuteNext& next)>;

// Returns a denial reason (an empty string still denies), or nullopt to pass.
using GuardFn = std::function<std::optional<std::string>(const Execution&)>;

// Around-dispatch: call next() zero or more times (each call re-enters the
// chain at the next wrapper: retries re-run inner wrappers, unlike dsh's
// consumed cordis queue), transform or replace its result, or author one.
using ExecuteNext = std::function<asio::awaitable<ToolResultPtr>()>;
using ExecuteWrapperFn = std::function<asio::awaitable<ToolResultPtr>(Execution&, ExecuteNext next)>;

// Observe-only; exceptions are logged and never change the outcome.
using ResultObserverFn = std::function<void(const Execution&, const ToolResultPtr&)>;

// A Code Mode sub-call as it is about to be logged (tool/code-dispatch).
struct CodeDispatch {
  const Execution& outer;  // the run_code call
  std::string sub_call_id;
  std::string name;
  bool is_error = false;
  json::Value::Array content;  // the sub-call's final model-facing content
};
// tools/code-dispatch-log: a waterfall over the content to log. A listener
// returns the content to log — its own (a spill preview, say) or next()'s.
// Only the logged copy changes; the program saw the value already. A throw
// logs the original content, with a warning.
using CodeDispatchLogFn =
    std::function<json::Value::Array(const CodeDispatch&, const std::function<json::Value::Array()>& next)>;

enum class ApprovalOutcome { kAllowedOnce, kRejected, kCancelled, kUnavailable };

struct ApprovalRequest {
  ScopePtr agent;
  std::string tool_name;
  std::string call_id;
  std::optional<std::string> reason;
  Signal signal;
};

// The optional approval seam that services `ask`.
class ApprovalService {
 public:
  virtual ~ApprovalService() = default;
  virtual asio::awaitable<ApprovalOutcome> Request(ApprovalRequest request) = 0;
};

}  // namespace retrace::runtime

#endif  // RETRACE_ENGINE_RUNTIME_POLICY_H_
