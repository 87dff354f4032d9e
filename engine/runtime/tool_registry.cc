#include "engine/runtime/tool_registry.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <set>
#include <unordered_set>

#include "engine/schema/raw_schema_check.h"
#include "engine/schema/schema_error.h"

namespace retrace::runtime {
namespace {

constexpr uint64_t kGlobal = 0;

template <typename F>
struct Listener {
  uint64_t id;
  uint64_t scope;
  std::shared_ptr<const F> fn;
};

struct CompiledFilter {
  uint64_t id;
  std::optional<std::unordered_set<std::string>> allow, deny;
  bool Admits(const std::string& name) const {
    return (!allow || allow->count(name)) && (!deny || !deny->count(name));
  }
};

struct Layer {
  std::vector<std::pair<std::string, ToolDefinitionPtr>> tools;  // insertion order
  std::vector<CompiledFilter> restrictions;
  std::vector<Listener<GuardFn>> guards;

  ToolDefinitionPtr Find(std::string_view name) const {
    for (const auto& [n, def] : tools) {
      if (n == name) return def;
    }
    return nullptr;
  }
  bool Admits(const std::string& name) const {
    return std::all_of(restrictions.begin(), restrictions.end(),
                       [&](const CompiledFilter& f) { return f.Admits(name); });
  }
};

uint64_t ScopeKey(const ScopePtr& scope) { return scope ? scope->id() : kGlobal; }

bool Sees(uint64_t listener_scope, const ScopePtr& agent) {
  return listener_scope == kGlobal || (agent && agent->id() == listener_scope);
}

// An ordered name → definition map with JS Map.set semantics (a re-set keeps
// the first position).
class OrderedTools {
 public:
  void Set(const std::string& name, ToolDefinitionPtr def) {
    auto [it, inserted] = index_.emplace(name, entries_.size());
    if (inserted) {
      entries_.emplace_back(name, std::move(def));
    } else {
      entries_[it->second].second = std::move(def);
    }
  }
  std::vector<std::pair<std::string, ToolDefinitionPtr>>& entries() { return entries_; }

 private:
  std::map<std::string, size_t, std::less<>> index_;
  std::vector<std::pair<std::string, ToolDefinitionPtr>> entries_;
};

}  // namespace

json::Value ToolSchema::ToJson() const {
  return json::Value::MakeObject({{"name", name}, {"description", description}, {"parameters", parameters}});
}

struct ToolRegistry::State {
  mutable std::mutex mu;
  ToolsMode default_mode = ToolsMode::kNative;
  ToolDefinitionPtr run_code;            // the Code Mode transport, when one is set
  std::map<uint64_t, ToolsMode> modes;   // presentAs, by scope id
  uint64_t next_id = 1;
  std::map<uint64_t, Layer> layers;
  std::vector<Listener<PreExecuteFn>> pre;
  std::vector<Listener<ExecuteWrapperFn>> wrappers;
  std::vector<Listener<PostExecuteFn>> post;
  std::vector<Listener<ResultObserverFn>> observers;
  std::vector<Listener<CodeDispatchLogFn>> code_dispatch_log;
  std::vector<Listener<std::function<void()>>> change;

  // Caller holds mu.
  const Layer* LayerOf(uint64_t key) const {
    auto it = layers.find(key);
    return it == layers.end() ? nullptr : &it->second;
  }

  // Inherited tools of `scope` (global, then ancestors farthest-first), in
  // first-insertion order. Caller holds mu.
  OrderedTools Inherited(const ScopePtr& scope) const {
    OrderedTools out;
    auto add = [&](uint64_t key) {
      if (const Layer* l = LayerOf(key)) {
        for (const auto& [n, def] : l->tools) out.Set(n, def);
      }
    };
    add(kGlobal);
    if (scope) {
      for (const Scope* s : scope->Chain()) {
        if (s != scope.get()) add(s->id());
      }
    }
    return out;
  }

  // The resolver (§4.4) that Get, Visible and Schemas share: calls
  // put(name, def) for the global tools, then each ancestor's (farthest
  // first: a nearer one shadows, JS Map.set keeping the first position),
  // those admitted by every chain layer's restrictions, then the scope's own
  // tools (they shadow and are exempt). With `only`, for that name alone
  // (Get: no map is built). Caller holds mu.
  template <typename Put>
  void Resolve(const ScopePtr& scope, const std::string_view* only, Put&& put) const {
    const Scope::ChainList chain = scope ? scope->Chain() : Scope::ChainList{};
    auto admitted = [&](const std::string& name) {
      return std::all_of(chain.begin(), chain.end(), [&](const Scope* s) {
        const Layer* l = LayerOf(s->id());
        return !l || l->Admits(name);
      });
    };
    auto add = [&](uint64_t key, bool restricted) {
      const Layer* l = LayerOf(key);
      if (!l) return;
      for (const auto& [n, def] : l->tools) {
        if ((!only || n == *only) && (!restricted || admitted(n))) put(n, def);
      }
    };
    add(kGlobal, true);
    for (const Scope* s : chain) {
      if (s != scope.get()) add(s->id(), true);
    }
    if (scope) add(scope->id(), false);
  }

  // Adds a listener to `list`; the registration removes it again.
  template <typename F>
  static Registration Add(const std::shared_ptr<State>& self, std::vector<Listener<F>> State::*list, F fn,
                          uint64_t scope, bool prepend) {
    uint64_t id;
    {
      std::lock_guard lock(self->mu);
      id = self->next_id++;
      auto& l = (*self).*list;
      l.insert(prepend ? l.begin() : l.end(), Listener<F>{id, scope, std::make_shared<const F>(std::move(fn))});
    }
    std::weak_ptr<State> weak = self;
    return Registration([weak, list, id] {
      if (auto s = weak.lock()) {
        std::lock_guard lock(s->mu);
        std::erase_if((*s).*list, [&](const Listener<F>& l) { return l.id == id; });
      }
    });
  }

  // The nearest scope's presentAs, else the deployment's mode. Caller holds mu.
  // (Every model-direct call asks, for the collapse: it walks up from the
  // scope, nearest first, and allocates nothing.)
  ToolsMode ModeFor(const ScopePtr& scope) const {
    for (const Scope* s = modes.empty() ? nullptr : scope.get(); s != nullptr; s = s->parent().get()) {
      if (auto m = modes.find(s->id()); m != modes.end()) return m->second;
    }
    return default_mode;
  }

  void EmitChange() const {
    std::vector<std::shared_ptr<const std::function<void()>>> fns;
    {
      std::lock_guard lock(mu);
      for (const auto& l : change) fns.push_back(l.fn);
    }
    for (const auto& fn : fns) (*fn)();
  }

  template <typename F>
  std::vector<std::shared_ptr<const F>> For(const std::vector<Listener<F>>& list, const ScopePtr& agent) const {
    std::vector<std::shared_ptr<const F>> out;
    std::lock_guard lock(mu);
    for (const auto& l : list) {
      if (Sees(l.scope, agent)) out.push_back(l.fn);
    }
    return out;
  }
};

ToolRegistry::ToolRegistry() : state_(std::make_shared<State>()) {}
ToolRegistry::~ToolRegistry() = default;

Result<Registration> ToolRegistry::Register(const ToolDefinitionPtr& def, const ScopePtr& scope) {
  const std::string& name = def->name;
  if (!def->output.render) {
    return Status::InvalidArgument("tool \"" + name + "\" must declare output { schema, render, presentationMeta? }");
  }
  if (std::vector<std::string> v = schema::CheckRawSchema(def->output.schema); !v.empty()) {
    return schema::SchemaError(v);
  }
  if (def->timeout_ms && (!std::isfinite(*def->timeout_ms) || *def->timeout_ms <= 0)) {
    return Status::InvalidArgument("tool \"" + name + "\" timeoutMs must be a positive finite number");
  }
  if (name == kRunCodeName) {
    return Status::InvalidArgument(
        "tool name \"run_code\" is reserved for the Code Mode presentation transport and cannot be registered or "
        "shadowed");
  }
  if (!def->execute && !def->execute_async) {
    return Status::InvalidArgument("tool \"" + name + "\" must declare a body (execute or execute_async)");
  }
  if (def->execute_brief && !def->execute) {
    return Status::InvalidArgument("tool \"" + name + "\" declares execute_brief without execute (what runs when it declines)");
  }
  const uint64_t key = ScopeKey(scope);
  {
    std::lock_guard lock(state_->mu);
    Layer& layer = state_->layers[key];
    if (layer.Find(name)) {
      return Status::AlreadyExists(
          key == kGlobal ? "tool \"" + name +
                               "\" is already registered (for a per-agent variant, register through that agent's "
                               "`agent.ctx` instead)"
                         : "tool \"" + name + "\" is already registered in this scope");
    }
    layer.tools.emplace_back(name, def);
  }
  state_->EmitChange();
  std::weak_ptr<State> weak = state_;
  const ToolDefinition* raw = def.get();
  return Registration([weak, key, raw] {
    auto s = weak.lock();
    if (!s) return;
    {
      std::lock_guard lock(s->mu);
      auto& tools = s->layers[key].tools;
      std::erase_if(tools, [&](const auto& e) { return e.second.get() == raw; });
    }
    s->EmitChange();
  });
}

Result<Registration> ToolRegistry::Restrict(const ScopePtr& scope, ToolFilter filter) {
  if (!scope) {
    return Status::InvalidArgument(
        "tools.restrict() requires a scoped context (agent.ctx): a context-global restriction would mask every "
        "agent — deny the tool for the intended agent instead");
  }
  if (!filter.allow && !filter.deny) {
    return Status::InvalidArgument(
        "tools.restrict({}) is a no-op: pass `allow` and/or `deny` (an empty filter is almost always a "
        "materialized-empty-config bug)");
  }
  std::vector<std::string> named;
  if (filter.allow) named.insert(named.end(), filter.allow->begin(), filter.allow->end());
  if (filter.deny) named.insert(named.end(), filter.deny->begin(), filter.deny->end());
  if (std::find(named.begin(), named.end(), kRunCodeName) != named.end()) {
    return Status::InvalidArgument(
        "tools.restrict() cannot name reserved Code Mode presentation transport \"run_code\"; restrict "
        "end-capability tools instead");
  }
  CompiledFilter compiled;
  uint64_t id;
  {
    std::lock_guard lock(state_->mu);
    std::set<std::string> known;
    OrderedTools inherited = state_->Inherited(scope);
    for (auto& [n, def] : inherited.entries()) known.insert(n);
    std::vector<std::string> unknown;
    for (const std::string& n : named) {
      if (!known.count(n)) unknown.push_back(n);
    }
    if (!unknown.empty()) {
      std::string list, known_list;
      for (const std::string& n : unknown) list += (list.empty() ? "\"" : ", \"") + n + "\"";
      for (const std::string& n : known) known_list += (known_list.empty() ? "" : ", ") + n;
      return Status::InvalidArgument("tools.restrict() names unknown global tool" +
                                     std::string(unknown.size() > 1 ? "s " : " ") + list +
                                     "; known global tools: " + (known_list.empty() ? "(none)" : known_list));
    }
    compiled.id = id = state_->next_id++;
    if (filter.allow) compiled.allow.emplace(filter.allow->begin(), filter.allow->end());
    if (filter.deny) compiled.deny.emplace(filter.deny->begin(), filter.deny->end());
    state_->layers[scope->id()].restrictions.push_back(std::move(compiled));
  }
  state_->EmitChange();
  std::weak_ptr<State> weak = state_;
  const uint64_t key = scope->id();
  return Registration([weak, key, id] {
    auto s = weak.lock();
    if (!s) return;
    {
      std::lock_guard lock(s->mu);
      std::erase_if(s->layers[key].restrictions, [&](const CompiledFilter& f) { return f.id == id; });
    }
    s->EmitChange();
  });
}

Registration ToolRegistry::Guard(GuardFn fn, const ScopePtr& scope) {
  const uint64_t key = ScopeKey(scope);
  uint64_t id;
  {
    std::lock_guard lock(state_->mu);
    id = state_->next_id++;
    state_->layers[key].guards.push_back({id, key, std::make_shared<const GuardFn>(std::move(fn))});
  }
  std::weak_ptr<State> weak = state_;
  return Registration([weak, key, id] {
    if (auto s = weak.lock()) {
      std::lock_guard lock(s->mu);
      std::erase_if(s->layers[key].guards, [&](const auto& g) { return g.id == id; });
    }
  });
}

Registration ToolRegistry::OnPreExecute(PreExecuteFn fn, const ScopePtr& scope, bool prepend) {
  return State::Add(state_, &State::pre, std::move(fn), ScopeKey(scope), prepend);
}
Registration ToolRegistry::OnExecute(ExecuteWrapperFn fn, const ScopePtr& scope, bool prepend) {
  return State::Add(state_, &State::wrappers, std::move(fn), ScopeKey(scope), prepend);
}
Registration ToolRegistry::OnPostExecute(PostExecuteFn fn, const ScopePtr& scope, bool prepend) {
  return State::Add(state_, &State::post, std::move(fn), ScopeKey(scope), prepend);
}
Registration ToolRegistry::OnResult(ResultObserverFn fn, const ScopePtr& scope) {
  return State::Add(state_, &State::observers, std::move(fn), ScopeKey(scope), false);
}
Registration ToolRegistry::OnCodeDispatchLog(CodeDispatchLogFn fn, const ScopePtr& scope) {
  return State::Add(state_, &State::code_dispatch_log, std::move(fn), ScopeKey(scope), false);
}
Registration ToolRegistry::OnChange(std::function<void()> fn) {
  return State::Add(state_, &State::change, std::move(fn), kGlobal, false);
}

void ToolRegistry::SetCodeMode(ToolsMode default_mode, ToolDefinitionPtr run_code) {
  {
    std::lock_guard lock(state_->mu);
    state_->default_mode = default_mode;
    state_->run_code = std::move(run_code);
  }
}

Result<Registration> ToolRegistry::PresentAs(const ScopePtr& scope, ToolsMode mode) {
  static constexpr const char* kNames[] = {"native", "code", "both"};
  if (!scope) {
    return Status::InvalidArgument(
        "tools.presentAs() requires a scoped context (agent.ctx): a context-global presentation is the `mode` config "
        "field on the tools row");
  }
  {
    std::lock_guard lock(state_->mu);
    if (auto it = state_->modes.find(scope->id()); it != state_->modes.end()) {
      return Status::Conflict(std::string("tools.presentAs(\"") + kNames[static_cast<int>(mode)] + "\") conflicts with \"" +
                              kNames[static_cast<int>(it->second)] +
                              "\" already declared for this scope; one composition selects one presentation");
    }
    state_->modes[scope->id()] = mode;
  }
  std::weak_ptr<State> weak = state_;
  const uint64_t id = scope->id();
  return Registration([weak, id] {
    if (auto st = weak.lock()) {
      {
        std::lock_guard lock(st->mu);
        st->modes.erase(id);
      }
    }
  });
}

ToolsMode ToolRegistry::ModeFor(const ScopePtr& scope) const {
  std::lock_guard lock(state_->mu);
  return state_->ModeFor(scope);
}

bool ToolRegistry::Collapses(std::string_view name, const ScopePtr& scope, bool nested) const {
  return !nested && name != kRunCodeName && ModeFor(scope) == ToolsMode::kCode;
}

ToolDefinitionPtr ToolRegistry::Get(std::string_view name, const ScopePtr& scope) const {
  std::lock_guard lock(state_->mu);
  if (name == kRunCodeName) return state_->ModeFor(scope) == ToolsMode::kNative ? nullptr : state_->run_code;
  ToolDefinitionPtr found;
  state_->Resolve(scope, &name, [&](const std::string&, const ToolDefinitionPtr& def) { found = def; });
  return found;
}

std::vector<ToolDefinitionPtr> ToolRegistry::Visible(const ScopePtr& scope) const {
  std::lock_guard lock(state_->mu);
  OrderedTools visible;
  state_->Resolve(scope, nullptr, [&](const std::string& n, const ToolDefinitionPtr& def) { visible.Set(n, def); });
  std::vector<ToolDefinitionPtr> out;
  for (auto& [n, def] : visible.entries()) out.push_back(def);
  if (state_->run_code && state_->ModeFor(scope) != ToolsMode::kNative) out.push_back(state_->run_code);
  return out;
}

presenters::PresenterSet ToolRegistry::Presenters(const ScopePtr& scope) const {
  presenters::PresenterSet set;
  for (const ToolDefinitionPtr& def : Visible(scope)) {
    if (def->presenter) set.Add(def->presenter);
  }
  return set;
}

std::vector<ToolSchema> ToolRegistry::Schemas(const ScopePtr& scope) const {
  const bool code_only = ModeFor(scope) == ToolsMode::kCode;
  std::vector<ToolSchema> out;
  for (const ToolDefinitionPtr& def : Visible(scope)) {
    if (!code_only || def->name == kRunCodeName) out.push_back({def->name, def->description, def->parameters});
  }
  return out;
}

std::vector<schema::ToolSdkSchema> ToolRegistry::SdkSchemas(const ScopePtr& scope) const {
  std::vector<schema::ToolSdkSchema> out;
  for (const ToolDefinitionPtr& def : Visible(scope)) {
    if (def->name == kRunCodeName) continue;
    out.push_back({def->name, def->description, def->parameters, def->output.schema});
  }
  return out;
}

std::vector<std::shared_ptr<const PreExecuteFn>> ToolRegistry::PreExecuteFor(const ScopePtr& agent) const {
  return state_->For(state_->pre, agent);
}
std::vector<std::shared_ptr<const ExecuteWrapperFn>> ToolRegistry::WrappersFor(const ScopePtr& agent) const {
  return state_->For(state_->wrappers, agent);
}
std::vector<std::shared_ptr<const PostExecuteFn>> ToolRegistry::PostExecuteFor(const ScopePtr& agent) const {
  return state_->For(state_->post, agent);
}
std::vector<std::shared_ptr<const CodeDispatchLogFn>> ToolRegistry::CodeDispatchLogFor(const ScopePtr& agent) const {
  return state_->For(state_->code_dispatch_log, agent);
}
std::vector<std::shared_ptr<const ResultObserverFn>> ToolRegistry::ObserversFor(const ScopePtr& agent) const {
  return state_->For(state_->observers, agent);
}

std::vector<std::shared_ptr<const GuardFn>> ToolRegistry::GuardsFor(const ScopePtr& agent) const {
  std::vector<std::shared_ptr<const GuardFn>> out;
  std::lock_guard lock(state_->mu);
  auto add = [&](uint64_t key) {
    if (const Layer* l = state_->LayerOf(key)) {
      for (const auto& g : l->guards) out.push_back(g.fn);
    }
  };
  add(kGlobal);
  if (agent) {
    for (const Scope* s : agent->Chain()) add(s->id());
  }
  return out;
}

}  // namespace retrace::runtime
