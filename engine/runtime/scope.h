// Scope: an agent's registration scope (dsh's agent.ctx). Scopes form a
// chain through their parents; registrations made in a scope shadow the
// layers above it for that agent only (dsh-tool-contract §4.4). A null
// ScopePtr is the global (plain) context.
#ifndef RETRACE_ENGINE_RUNTIME_SCOPE_H_
#define RETRACE_ENGINE_RUNTIME_SCOPE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace retrace::runtime {

class Scope;
using ScopePtr = std::shared_ptr<const Scope>;

class Scope {
 public:
  static ScopePtr Create(std::string name, ScopePtr parent = nullptr) {
    return ScopePtr(new Scope(std::move(name), std::move(parent)));
  }
  const std::string& name() const { return name_; }
  const ScopePtr& parent() const { return parent_; }
  uint64_t id() const { return id_; }

  // This scope's chain, farthest ancestor first, ending with this scope.
  std::vector<const Scope*> Chain() const {
    std::vector<const Scope*> chain;
    for (const Scope* s = this; s != nullptr; s = s->parent_.get()) chain.insert(chain.begin(), s);
    return chain;
  }

 private:
  Scope(std::string name, ScopePtr parent) : name_(std::move(name)), parent_(std::move(parent)), id_(NextId()) {}
  static uint64_t NextId() {
    static std::atomic<uint64_t> next{1};
    return next++;
  }
  std::string name_;
  ScopePtr parent_;
  uint64_t id_;
};

}  // namespace retrace::runtime

#endif  // RETRACE_ENGINE_RUNTIME_SCOPE_H_
