// Scope: an agent's registration scope (dsh's agent.ctx). Scopes form a
// chain through their parents; registrations made in a scope shadow the
// layers above it for that agent only (dsh-tool-contract §4.4). A null
// ScopePtr is the global (plain) context.
#ifndef RETRACE_ENGINE_RUNTIME_SCOPE_H_
#define RETRACE_ENGINE_RUNTIME_SCOPE_H_

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include <boost/container/small_vector.hpp>

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
  // Inline for chains of up to eight: every call resolves its tool through
  // it, and agents nest a few levels at most.
  using ChainList = boost::container::small_vector<const Scope*, 8>;
  ChainList Chain() const {
    ChainList chain;
    for (const Scope* s = this; s != nullptr; s = s->parent_.get()) chain.push_back(s);
    std::reverse(chain.begin(), chain.end());
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
