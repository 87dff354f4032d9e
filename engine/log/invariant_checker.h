// InvariantChecker: dsh's optional relational invariants (the
// `dsh-session/invariant` companion, dsh-session-log §5.2): turn and
// step enclosure and numbering, and call/result pairing within a step.
//
// Not part of SessionChecker because dsh itself does not enforce these on
// load; readers must tolerate, e.g., an unpaired tool/call in a closed turn.
#ifndef RETRACE_ENGINE_LOG_INVARIANT_CHECKER_H_
#define RETRACE_ENGINE_LOG_INVARIANT_CHECKER_H_

#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include <retrace/engine/base/status.h>
#include <retrace/engine/log/event.h>

namespace retrace::log {

class InvariantChecker {
 public:
  // Checks `event` as the next event; on failure the state is unchanged.
  Status Check(const Event& event);

  bool turn_open() const { return open_turn_.has_value(); }

 private:
  Status CheckTurnStart(const Event& e) const;
  Status CheckInStep(const Event& e) const;
  Status CheckToolResult(const Event& e) const;
  void Apply(const Event& e);

  int64_t ended_turns_ = 0;
  std::optional<int64_t> open_turn_;
  std::optional<int64_t> open_step_;
  int64_t last_step_ = 0;
  std::set<std::string> started_calls_;  // callIds with a tool/call in the open step
};

}  // namespace retrace::log

#endif  // RETRACE_ENGINE_LOG_INVARIANT_CHECKER_H_
