// Event payload upcasting: a versioned chain of pure upcasters, applied on
// read, oldest first, so every consumer (replay, audits, checks) sees current
// payload shapes while the stored text stays as written. `retrace migrate
// --rewrite` is the one place that writes the upcast shapes back (to a new
// file, verified by replay).
//
// The chain:
//   1. dsh legacy shapes (dsh-session-log §9.3): pre-react-loop turn
//      events, steering messages, pre-identity messages (legacy_import.h).
// To add a step: append it to Steps() with the next version, keep it a pure
// function of the event (and of earlier events through this object's
// state), and add a replay test with a log in the old shape.
#ifndef RETRACE_ENGINE_LOG_UPCASTER_H_
#define RETRACE_ENGINE_LOG_UPCASTER_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

#include <retrace/engine/base/status.h>
#include <retrace/engine/log/event.h>

namespace retrace::log {

class Upcaster {
 public:
  struct Step {
    int version;
    std::string_view name;
  };
  static std::span<const Step> Steps();

  explicit Upcaster(std::string session_id) : session_id_(std::move(session_id)) {}

  // Brings `event` (the session's events in seq order; other types may be
  // skipped) to the current shapes. Returns whether it changed; refuses shapes
  // dsh retired (e.g. request/header-delta).
  Result<bool> Upcast(Event& event);

 private:
  std::string session_id_;
  // Message id of each tool/result seen: a replacing pre-identity result inherits its target's.
  std::unordered_map<int64_t, std::string> result_ids_;
};

}  // namespace retrace::log

#endif  // RETRACE_ENGINE_LOG_UPCASTER_H_
