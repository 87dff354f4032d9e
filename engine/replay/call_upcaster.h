// CallUpcaster: a session's events rewritten with its tools' old calls at the
// current revision (presenters/revisions.h), for `retrace migrate --rewrite`
// (store/rewrite.h), the one place upcast arguments are written back:
//   - a tool/call's `arguments` text, and the same call's tool-call block in
//     its assistant/message, become the upcast arguments (compact JSON);
//   - its tool/result's `meta` becomes the upcast meta;
//   - a `retrace/tool-revision` record of such a tool names the current
//     revision and its schema, since the calls it covers now are at it.
// A call whose upcast fails (a step threw, or broke the next schema) or that
// no revision accepts stays as logged. Reading is as the card fold reads: a
// record holds for the rest of its turn. The caller verifies the result by
// replay (the cards must not change).
#ifndef RETRACE_ENGINE_REPLAY_CALL_UPCASTER_H_
#define RETRACE_ENGINE_REPLAY_CALL_UPCASTER_H_

#include <retrace/engine/json/value.h>
#include <retrace/engine/log/event.h>
#include <retrace/presenters/presenter.h>

#include <cstdint>
#include <map>
#include <string>

namespace retrace::replay {

// One session, events in seq order. Holds the presenter set by reference.
class CallUpcaster {
 public:
  explicit CallUpcaster(const presenters::PresenterSet& presenters) : presenters_(presenters) {}

  // Rewrites `event` in place; true when it changed.
  bool Rewrite(log::Event& event);

  int64_t calls_upcast() const { return calls_upcast_; }

 private:
  // The upcast of one call of `tool` whose logged arguments are `text`; null when it stays.
  const presenters::ToolPresenter* Revised(const std::string& tool) const;
  std::optional<json::Value> UpcastArguments(const std::string& tool, std::string_view text, const json::Value* meta,
                                             std::optional<json::Value>* meta_out) const;

  const presenters::PresenterSet& presenters_;
  std::map<std::string, presenters::RecordedRevision, std::less<>> records_;  // this turn's, as logged
  // callId → (tool, logged arguments) of upcast calls, until their result.
  std::map<std::string, std::pair<std::string, std::string>> open_;
  int64_t calls_upcast_ = 0;
};

}  // namespace retrace::replay

#endif  // RETRACE_ENGINE_REPLAY_CALL_UPCASTER_H_
