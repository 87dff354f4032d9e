// The timeout policy (dsh-tool-call-timeout-policy, dsh-tool-contract §5.5):
// the reference around-dispatch wrapper for tools that declare timeoutMs.
// It swaps a deadline signal (the caller's signal + a timer) onto the
// execution, runs next(), restores the signal, and — when its own timer
// fired — returns the failure "tool call timed out after <ms>ms"
// (ToolTimeoutError / TOOL_TIMEOUT). A caller cancellation cannot override
// it: cancellation replaces only successes. The registry never enforces
// timeoutMs itself; installing this wrapper does.
//
// Registration order decides the scope: registered outside a retry wrapper
// it bounds the whole operation, inside it bounds each attempt.
#ifndef RETRACE_ENGINE_RUNTIME_TIMEOUT_POLICY_H_
#define RETRACE_ENGINE_RUNTIME_TIMEOUT_POLICY_H_

#include <retrace/engine/runtime/registration.h>
#include <retrace/engine/runtime/scope.h>
#include <retrace/engine/runtime/tool_runtime.h>

namespace retrace::runtime {

Registration InstallTimeoutPolicy(ToolRuntime& runtime, const ScopePtr& scope = nullptr);

}  // namespace retrace::runtime

#endif  // RETRACE_ENGINE_RUNTIME_TIMEOUT_POLICY_H_
