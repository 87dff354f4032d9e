// CardFold: the events of a session folded into presented tool calls, one per
// card (cards.h says which): a call is presented by its tool's soft-validated
// presenters as soon as its result arrives, and handed on with its place in
// card order, so that nothing holds a result's content or meta longer than it
// takes to present it. The calls left without a result are presented by
// Finish(). A plain fold: no I/O, no text, the same events give the same calls.
#ifndef RETRACE_ENGINE_REPLAY_CARD_FOLD_H_
#define RETRACE_ENGINE_REPLAY_CARD_FOLD_H_

#include <retrace/engine/json/value.h>
#include <retrace/engine/log/event.h>
#include <retrace/presenters/presenter.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace retrace::replay {

// The logged argument text as presenters see it: log::ParseToolArguments, an
// out-of-range number keeping the text.
json::Value ParseLoggedArguments(std::string_view text);

// One card's call, presented.
struct PresentedCall {
  std::string call_id{};
  std::string name{};
  json::Value args{};
  int64_t seq = 0;  // its tool/call (or, without one, its tool/result)
  bool has_result = false;
  int64_t result_seq = -1;  // its tool/result, when it has one
  bool is_error = false;
  // The tool's own views (soft-validated presenters), before any fallback.
  std::optional<json::Value> pending{}, result{};
  // The generic completed card, when there is a result and no result view.
  std::optional<json::Value> fallback_result{};
  presenters::Presented pending_how = presenters::Presented::kNone;
  presenters::Presented result_how = presenters::Presented::kNone;  // kNone also without a result
  std::string detail{};             // schema errors, what a presenter threw, or why an upcast failed
  std::string presenter_version{};  // "" when no presenter knows the tool
  // Its tool's record in the session (retrace/tool-revision), when there is one.
  std::optional<presenters::RecordedRevision> recorded{};
  // When its tool declares revisions (presenters/revisions.h): how the call
  // reached the current one. `args` are then the upcast arguments; on a
  // failure (a step threw or broke the next schema) the logged ones, and the
  // call shows the generic card.
  std::optional<presenters::Upcasted> upcast{};
};

// Holds the presenter set by reference: the set must outlive the fold.
class CardFold {
 public:
  // Receives each call once presented, with its index in card order (calls
  // come out of order: a call waits for its result, later calls may not).
  using Emit = std::function<void(size_t index, PresentedCall&& call)>;

  CardFold(const presenters::PresenterSet& presenters, Emit emit) : presenters_(presenters), emit_(std::move(emit)) {}

  // The next event, in seq order; events cards do not need are ignored.
  void Add(log::Event&& event);
  // Presents the calls still without a result, in card order. Afterwards
  // every index below calls() has been emitted once.
  void Finish();

  // Arguments of `tool` as its presenters take them: carried through the
  // tool's upcasters (with this turn's record of its revision), or `args`
  // as logged when it declares no revisions or the chain fails. For what
  // shows a call's arguments without presenting it (Code Mode sub-calls).
  json::Value CurrentArguments(std::string_view tool, json::Value args) const;

  size_t calls() const { return next_index_; }
  // Results whose call this fold was not fed: a result without a call in the
  // log, or, when the fold sees one piece of a log, maybe a call in an earlier piece.
  size_t results_without_call() const { return results_without_call_; }
  // Requested calls (assistant tool-call blocks) held to name a result that
  // comes without its call: only those not yet logged as tool/call or settled.
  size_t requests_held() const { return asked_.size(); }

 private:
  // Carries `call` (of a tool with revisions) to the current revision; `meta`
  // then points at the upcast meta. False when a step failed: the generic card.
  static bool CarryForward(const presenters::ToolPresenter& p, PresentedCall& call, bool has_result,
                           const json::Value*& meta);
  // Presents `call` (`content` and `meta` are its result's; null without one) and emits it.
  void Present(size_t index, PresentedCall call, const json::Value::Array* content, const json::Value* meta);

  const presenters::PresenterSet& presenters_;
  Emit emit_;
  size_t next_index_ = 0;
  size_t results_without_call_ = 0;
  std::map<size_t, PresentedCall> open_;      // index → a logged call awaiting its result
  std::map<std::string, size_t> open_by_id_;  // callId → its index in open_ (the latest call of that id)
  // callId → (name, arguments) of requested calls not logged (yet) as tool/call:
  // what names a result without a call. Entries go when their call or result comes.
  std::map<std::string, std::pair<std::string, std::string>> asked_;
  // tool → its revision record in the current turn. A record holds for the
  // rest of its turn, so that a piece of a log (which starts at a turn)
  // holds every record its calls need.
  std::map<std::string, presenters::RecordedRevision, std::less<>> records_;
};

// A retrace/tool-revision event's record; nullopt when it is malformed.
std::optional<std::pair<std::string, presenters::RecordedRevision>> ReadRevisionRecord(const log::Event& event);

// The pending card shown: the tool's view, or the generic one.
json::Value ShownPending(const PresentedCall& call);

}  // namespace retrace::replay

#endif  // RETRACE_ENGINE_REPLAY_CARD_FOLD_H_
