// Registration: the disposer of one registration (a tool, a restriction, a
// guard, a listener). Destroying it unregisters — registrations are effects,
// as in dsh (cordis). Dispose() twice does nothing. Move-only.
//
// EffectScope plays cordis's fiber: it owns registrations and disposes them
// in reverse order when it is disposed or destroyed.
#ifndef RETRACE_ENGINE_RUNTIME_REGISTRATION_H_
#define RETRACE_ENGINE_RUNTIME_REGISTRATION_H_

#include <functional>
#include <utility>
#include <vector>

#include <retrace/engine/base/status.h>

namespace retrace::runtime {

class [[nodiscard]] Registration {
 public:
  Registration() = default;
  explicit Registration(std::function<void()> dispose) : dispose_(std::move(dispose)) {}
  Registration(Registration&& other) noexcept : dispose_(std::exchange(other.dispose_, nullptr)) {}
  Registration& operator=(Registration&& other) noexcept {
    if (this != &other) {
      Dispose();
      dispose_ = std::exchange(other.dispose_, nullptr);
    }
    return *this;
  }
  Registration(const Registration&) = delete;
  Registration& operator=(const Registration&) = delete;
  ~Registration() { Dispose(); }

  void Dispose() {
    if (auto fn = std::exchange(dispose_, nullptr)) fn();
  }
  bool active() const { return dispose_ != nullptr; }

 private:
  std::function<void()> dispose_;
};

class EffectScope {
 public:
  EffectScope() = default;
  EffectScope(const EffectScope&) = delete;
  EffectScope& operator=(const EffectScope&) = delete;
  ~EffectScope() { Dispose(); }

  // Takes ownership. On a disposed scope the registration is disposed at
  // once and FailedPrecondition is returned (cordis's INACTIVE_EFFECT).
  Status Adopt(Registration r) {
    if (disposed_) {
      r.Dispose();
      return Status::FailedPrecondition("INACTIVE_EFFECT: cannot register on a disposed effect scope");
    }
    owned_.push_back(std::move(r));
    return Status::Ok();
  }
  // Disposes every owned registration, newest first. Idempotent.
  void Dispose() {
    disposed_ = true;
    while (!owned_.empty()) {
      Registration r = std::move(owned_.back());
      owned_.pop_back();
      r.Dispose();
    }
  }
  bool disposed() const { return disposed_; }

 private:
  std::vector<Registration> owned_;
  bool disposed_ = false;
};

}  // namespace retrace::runtime

#endif  // RETRACE_ENGINE_RUNTIME_REGISTRATION_H_
