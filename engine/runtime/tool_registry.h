// ToolRegistry: registered tools, their visibility per agent scope, and the
// policy listeners of the pipeline (dsh-tool-contract §4, §5.6).
//
// Layers: one global layer plus one per Scope. get/schemas/dispatch share one
// resolver (§4.4): the global tools, then each ancestor scope's tools
// (nearer shadows farther, keeping the first position), filtered by every
// chain layer's restrictions, then the scope's own tools on top (they shadow
// and are exempt from the scope's own restrictions).
//
// Listeners registered with a scope see only that agent's calls; global
// listeners see every call. tools/change fires on every tool registration,
// unregistration and restriction (not on guards), unfiltered.
//
// Errors are Status values carrying dsh's exact texts. Thread-safe.
#ifndef RETRACE_ENGINE_RUNTIME_TOOL_REGISTRY_H_
#define RETRACE_ENGINE_RUNTIME_TOOL_REGISTRY_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <retrace/engine/base/status.h>
#include <retrace/engine/json/value.h>
#include <retrace/engine/runtime/code_mode.h>
#include <retrace/engine/runtime/policy.h>
#include <retrace/engine/runtime/registration.h>
#include <retrace/engine/runtime/scope.h>
#include <retrace/engine/runtime/tool_definition.h>
#include <retrace/engine/schema/tools_sdk.h>

namespace retrace::runtime {

// The model-facing projection of a tool: {name, description, parameters}.
struct ToolSchema {
  std::string name;
  std::string description;
  json::Value parameters;
  json::Value ToJson() const;
};

// A restriction: `allow` keeps only these inherited tools; `deny` hides these.
struct ToolFilter {
  std::optional<std::vector<std::string>> allow{};
  std::optional<std::vector<std::string>> deny{};
};

inline constexpr char kRunCodeName[] = "run_code";

class ToolRegistry {
 public:
  ToolRegistry();
  ~ToolRegistry();
  ToolRegistry(const ToolRegistry&) = delete;
  ToolRegistry& operator=(const ToolRegistry&) = delete;

  // Registers into the global layer (scope null) or the scope's layer.
  // Checks, in dsh's order: output declared, output schema supported,
  // timeoutMs, the reserved "run_code", a body, a duplicate in that layer.
  Result<Registration> Register(const ToolDefinitionPtr& def, const ScopePtr& scope = nullptr);

  // Masks inherited tools for `scope` (required; §4.5).
  Result<Registration> Restrict(const ScopePtr& scope, ToolFilter filter);

  Registration Guard(GuardFn fn, const ScopePtr& scope = nullptr);
  Registration OnPreExecute(PreExecuteFn fn, const ScopePtr& scope = nullptr, bool prepend = false);
  Registration OnExecute(ExecuteWrapperFn fn, const ScopePtr& scope = nullptr, bool prepend = false);
  Registration OnPostExecute(PostExecuteFn fn, const ScopePtr& scope = nullptr, bool prepend = false);
  Registration OnResult(ResultObserverFn fn, const ScopePtr& scope = nullptr);
  Registration OnCodeDispatchLog(CodeDispatchLogFn fn, const ScopePtr& scope = nullptr);
  Registration OnChange(std::function<void()> fn);

  // The definition `scope` sees under `name`, or null.
  ToolDefinitionPtr Get(std::string_view name, const ScopePtr& scope = nullptr) const;
  // Every definition `scope` sees, in resolver order; under `code` or `both`,
  // the run_code transport last.
  std::vector<ToolDefinitionPtr> Visible(const ScopePtr& scope = nullptr) const;
  // The wire schemas `scope`'s model is given (§7.1): Visible() projected,
  // fresh copies, deterministic order; under `code`, run_code's alone.
  std::vector<ToolSchema> Schemas(const ScopePtr& scope = nullptr) const;

  // Code Mode (§7.1). The deployment's mode and the run_code transport
  // (runtime/run_code.h) that non-native scopes see. Never in a layer: it
  // cannot be restricted or shadowed. REQUIRES: a transport unless native.
  void SetCodeMode(ToolsMode default_mode, ToolDefinitionPtr run_code);
  // An agent's own presentation (dsh's presentAs): the nearest scope's wins.
  // One per scope; disposing the registration restores what it covered.
  Result<Registration> PresentAs(const ScopePtr& scope, ToolsMode mode);
  ToolsMode ModeFor(const ScopePtr& scope = nullptr) const;
  // Whether a call of `name` by `scope` is refused by the `code` collapse: a
  // model-direct call (not `nested`) of any tool but run_code.
  bool Collapses(std::string_view name, const ScopePtr& scope, bool nested) const;
  // Visible() less run_code, with each tool's output schema: what the Code
  // Mode SDK declares for `scope` (schema::RenderToolsSdk).
  std::vector<schema::ToolSdkSchema> SdkSchemas(const ScopePtr& scope = nullptr) const;
  // The presenters of the tools Visible() lists: what replays their calls.
  presenters::PresenterSet Presenters(const ScopePtr& scope = nullptr) const;

  // Listener snapshots for one call, in invocation order (the pipeline's view).
  std::vector<std::shared_ptr<const PreExecuteFn>> PreExecuteFor(const ScopePtr& agent) const;
  std::vector<std::shared_ptr<const ExecuteWrapperFn>> WrappersFor(const ScopePtr& agent) const;
  std::vector<std::shared_ptr<const PostExecuteFn>> PostExecuteFor(const ScopePtr& agent) const;
  std::vector<std::shared_ptr<const ResultObserverFn>> ObserversFor(const ScopePtr& agent) const;
  std::vector<std::shared_ptr<const CodeDispatchLogFn>> CodeDispatchLogFor(const ScopePtr& agent) const;
  // Guards in evaluation order: global first, then the agent's chain farthest-first.
  std::vector<std::shared_ptr<const GuardFn>> GuardsFor(const ScopePtr& agent) const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace retrace::runtime

#endif  // RETRACE_ENGINE_RUNTIME_TOOL_REGISTRY_H_
