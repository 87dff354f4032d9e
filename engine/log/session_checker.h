// SessionChecker: the rules dsh's Session enforces on every event, always
// (dsh-session-log §5.1, §9.2): contiguous seqs from 0, known types
// (unknown ones only when ignorable), envelope rules, message shapes and the
// surface transition. Feed it events in seq order, after legacy import.
#ifndef RETRACE_ENGINE_LOG_SESSION_CHECKER_H_
#define RETRACE_ENGINE_LOG_SESSION_CHECKER_H_

#include <cstdint>
#include <string>

#include <retrace/engine/base/status.h>
#include <retrace/engine/log/event.h>
#include <retrace/engine/log/surface_fold.h>

namespace retrace::log {

class SessionChecker {
 public:
  explicit SessionChecker(std::string session_id) : session_id_(std::move(session_id)) {}

  // Accepts `event` as the next one or explains why not. On failure the
  // checker's state is unchanged.
  Status Check(const Event& event);

  // Savepoint over a batch: Rollback() undoes every Check() since Mark().
  void Mark() {
    mark_seq_ = next_seq_;
    fold_.Mark();
  }
  void Rollback() {
    next_seq_ = mark_seq_;
    fold_.Rollback();
  }

  int64_t next_seq() const { return next_seq_; }
  const SurfaceFold& surface() const { return fold_; }

 private:
  std::string session_id_;
  int64_t next_seq_ = 0;
  int64_t mark_seq_ = 0;
  SurfaceFold fold_;
};

// dsh's refusal text for an unknown, non-ignorable event type (§9.2).
std::string UnknownEventTypeMessage(std::string_view session_id, std::string_view type, int64_t seq);

}  // namespace retrace::log

#endif  // RETRACE_ENGINE_LOG_SESSION_CHECKER_H_
