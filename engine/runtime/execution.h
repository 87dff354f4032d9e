// Execution: one tool call inside the pipeline (dsh-tool-contract §5.1) —
// the immutable identity (callId, rootCallId, name, arguments, agent, token,
// parent), the current cancellation signal, and what the body may add
// (deferred contexts, concludeTurn). The body receives it as its
// ToolRunContext; around-dispatch wrappers may swap its signal.
#ifndef RETRACE_ENGINE_RUNTIME_EXECUTION_H_
#define RETRACE_ENGINE_RUNTIME_EXECUTION_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <retrace/engine/base/status.h>
#include <retrace/engine/json/value.h>
#include <retrace/engine/runtime/cancellation.h>
#include <retrace/engine/runtime/scope.h>

namespace retrace::runtime {

struct ToolDefinition;

// An opaque execution identity: equality only, never serialized (it has no
// text form by design). Each minted token has a serial of its own for the
// life of the process, so an identity compared after its execution is gone
// can never match a later execution's (an address could be reused).
class ExecutionToken {
 public:
  static ExecutionToken Mint();
  friend bool operator==(const ExecutionToken& a, const ExecutionToken& b) { return a.serial_ == b.serial_; }
  // Never 0, never repeated within the process.
  uint64_t serial() const { return serial_; }

 private:
  explicit ExecutionToken(uint64_t serial) : serial_(serial) {}
  uint64_t serial_;
};

// What the caller supplies for one call.
struct ToolCallInput {
  std::string call_id;
  std::optional<std::string> root_call_id;  // defaults to call_id
  std::string name;
  json::Value arguments;  // as parsed from the model text (see ParseModelArguments)
  ScopePtr agent;         // null: an agent-less call
  std::optional<ExecutionToken> parent;  // set for nested dispatches
  Signal signal;          // the caller's cancellation
  // The session the call belongs to (the recorder's), if any: what tools key
  // per-session state by (background jobs, DSH_SESSION_ID). A value of its
  // own, not the agent scope's name: scopes are for visibility.
  std::optional<std::string> session_id{};
  // Appends a log-only event (Code Mode's tool/code-dispatch*) to the call's
  // session, durably; unset outside a recorded session.
  std::function<Status(std::string_view type, json::Value data)> record{};
};

// The model's argument text as the pipeline takes it: log::ParseToolArguments
// with JSON.parse's overflow to Infinity.
json::Value ParseModelArguments(std::string_view text);

class Execution {
 public:
  const std::string& call_id() const { return call_id_; }
  const std::string& root_call_id() const { return root_call_id_; }
  const std::string& name() const { return name_; }
  // The detached, immutable argument snapshot. REQUIRES: has_arguments()
  // (false only for a call refused because its arguments were not lossless).
  const json::Value& arguments() const { return *arguments_; }
  bool has_arguments() const { return arguments_ != nullptr; }
  const ScopePtr& agent() const { return agent_; }
  const std::optional<std::string>& session_id() const { return session_id_; }
  const ExecutionToken& token() const { return token_; }
  const std::optional<ExecutionToken>& parent() const { return parent_; }
  // The session's log-only appender (ToolCallInput::record), or null.
  const std::function<Status(std::string_view, json::Value)>& record() const { return record_; }

  // The cancellation the body must observe: inside the body, the caller's
  // signal fused with any wrapper's replacement.
  Signal signal() const {
    std::lock_guard lock(mu_);
    return signal_;
  }
  // For tools/execute wrappers: replace the signal (e.g. with a deadline),
  // and restore it after next() returns. A signal can be replaced, never removed.
  void set_signal(Signal s) {
    std::lock_guard lock(mu_);
    signal_ = std::move(s);
  }

  // Queues a UserMessage to follow this call's result (ToolRunContext.deferContext).
  void DeferContext(json::Value user_message) {
    std::lock_guard lock(mu_);
    deferred_.push_back(std::move(user_message));
  }
  // Marks the turn as concluded by this call; only a successful result carries it.
  void ConcludeTurn() { concluded_ = true; }

  // True once the result has been published (tools/result).
  bool frozen() const { return frozen_; }

 private:
  friend class ToolRuntime;
  Execution() = default;

  std::string call_id_, root_call_id_, name_;
  std::shared_ptr<const json::Value> arguments_;
  ScopePtr agent_;
  std::optional<std::string> session_id_;
  ExecutionToken token_ = ExecutionToken::Mint();
  std::optional<ExecutionToken> parent_;
  std::function<Status(std::string_view, json::Value)> record_;

  mutable std::mutex mu_;
  Signal signal_;
  std::vector<json::Value> deferred_;
  std::atomic<bool> concluded_{false};
  std::atomic<bool> frozen_{false};
  // Pipeline-private state (§5.2): the caller's own signal, whether the body started.
  Signal caller_signal_;
  bool body_invoked_ = false;
  // The definition visible at creation, whose finalizeContent runs at finish.
  std::shared_ptr<const ToolDefinition> finalizer_def_;
};

// The body's view of its execution.
using ToolRunContext = Execution;

}  // namespace retrace::runtime

#endif  // RETRACE_ENGINE_RUNTIME_EXECUTION_H_
