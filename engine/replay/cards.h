// Tool cards of a session (ARCHITECTURE.md "--format cards",
// spec/dsh-session-log.md §11.4): one entry per tool call, in log order of
// tool/call, with the tool's own pending and result views (soft-validated
// presenters) and the effective display after the generic fallback.
//
//   {"sessionId", "calls": [{"callId", "name", "args", "pending", "result",
//                            "isError", "display": {"pending", "result"}}]}
//
// A result without a call (the synthetic TOOL_NOT_STARTED) gets its card
// where its tool/result is, named from the assistant's tool-call block. Only
// append-origin results make cards (replacements are model-only). A call
// without a result has result and isError null. Pure and deterministic.
#ifndef RETRACE_ENGINE_REPLAY_CARDS_H_
#define RETRACE_ENGINE_REPLAY_CARDS_H_

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/json/value.h"
#include "engine/log/event.h"
#include "presenters/presenter.h"

namespace retrace::replay {

// Only these event types matter to the cards; a caller may skip the rest unparsed.
bool CardsNeed(std::string_view event_type);

// The logged argument text as presenters see it: log::ParseToolArguments, an
// out-of-range number keeping the text.
json::Value ParseLoggedArguments(std::string_view text);

// A generous guess of the card document's size for a log of `log_bytes`
// (for CardBuilder::ReserveText): read cards repeat their lines, so the
// document can outgrow the log. Capped, so that a huge log never asks for
// more address space than the machine will grant; past the cap the document
// grows in blocks.
inline size_t CardsSizeHint(uint64_t log_bytes) {
  constexpr uint64_t kCap = uint64_t{1} << 30;
  return static_cast<size_t>(std::min(log_bytes * 2 + (1 << 20), kCap));
}

class CardBuilder {
 public:
  // What the builder keeps of a presented call. kViews keeps the views, for
  // Finish() and for diagnostics; kText keeps only the call's entry as JSON
  // text, written while its views are fresh, for FinishText(): a replay to a
  // file then holds no view longer than it takes to write it.
  enum class Keep { kViews, kText };

  CardBuilder(std::string session_id, const presenters::PresenterSet& presenters, Keep keep = Keep::kViews)
      : session_id_(std::move(session_id)), presenters_(presenters), keep_(keep) {}

  // Before DrainText() first writes. With Keep::kText the document's head is
  // written with the first card when the session id is known by then (not
  // ""), so that FinishText() need not move the whole text to put it in
  // front; a later change of id rewrites it.
  void set_session_id(std::string id);
  // Keep::kText: the document's expected size. The text then grows in place
  // instead of by doubling copies; a generous guess costs only address space,
  // since pages that are never written are never touched.
  void ReserveText(size_t bytes);

  // Feeds the next event, in seq order (events CardsNeed() rejects are ignored).
  // The rvalue form takes the result content and meta without copying them.
  // A call is presented as soon as its result arrives, so the content and
  // meta of a result are released right away: memory holds views, not logs.
  void Add(log::Event&& event);
  void Add(const log::Event& event) { Add(log::Event(event)); }
  // The card document. REQUIRES: Keep::kViews.
  json::Value Finish() const;
  // The same document as JSON text (what Serialize(Finish()) gives), written
  // directly: each view is serialized once even where the document repeats it.
  // With Keep::kText the text is taken out of the builder: call it once, and
  // after DrainText() it is only the rest of the document.
  std::string FinishText();
  // Keep::kText: hands the document written so far to `write` (its head at
  // the first call, so the session id must be set by then; then the calls
  // presented in order since) and keeps the buffer's memory for what follows.
  // A writer to a file drains every few megabytes, so memory holds a block,
  // not the document.
  Status DrainText(const std::function<Status(std::string_view)>& write);
  // Keep::kText: bytes written and not yet drained.
  size_t text_size() const;

  // Results fed to this builder whose call it was not fed: a result without
  // a call in the log, or, when the builder sees one piece of a log, maybe a
  // call in an earlier piece.
  size_t results_without_call() const { return results_without_call_; }
  // Requested calls (assistant tool-call blocks) held to name a result that
  // comes without its call: only those not yet logged as tool/call or settled.
  size_t requests_held() const { return asked_.size(); }
  // Appends the cards of `later`, a builder (keeping the same) fed the events
  // that follow this builder's in the same log: the document is then the one
  // a single builder fed both would give, provided that
  // later.results_without_call() is 0 (each of its results belongs to a call
  // it was fed; the caller checks). Calls of this builder still without a
  // result stay without one. Afterwards this builder takes no more events.
  void Append(CardBuilder&& later);

  // How each call was presented, in card order: what replay-stability checks
  // report (a presenter that threw, arguments that no longer fit the schema).
  struct Diagnostics {
    std::string call_id, name;
    int64_t seq = 0;                 // its tool/call (or, without one, its tool/result)
    std::string presenter_version;   // "" when no presenter knows the tool
    presenters::Presented pending = presenters::Presented::kNone;
    presenters::Presented result = presenters::Presented::kNone;  // kNone also without a result
    std::string detail;              // schema errors or what a presenter threw
  };
  std::vector<Diagnostics> CallDiagnostics() const;

 private:
  struct Call {
    std::string call_id{};
    std::string name{};
    json::Value args{};
    int64_t seq = 0;
    bool has_result = false;
    bool is_error = false;
    bool presented = false;
    // The tool's own views (soft-validated presenters), before any fallback.
    std::optional<json::Value> pending{}, result{};
    // The generic completed card, kept only when there is a result and no result view.
    std::optional<json::Value> fallback_result{};
    presenters::Presented pending_how = presenters::Presented::kNone, result_how = presenters::Presented::kNone;
    std::string detail{};
    std::string text{};  // Keep::kText: the entry, presented but not yet in text_
  };
  // Fills the call's views; `content` and `meta` are the result's (absent without one).
  void Present(Call& call, const json::Value::Array* content, const json::Value* meta) const;
  // `{"sessionId":…,"calls":[`
  std::string Head() const;
  // Writes the call's entry of the card document.
  static void AppendEntry(std::string& out, const Call& call);
  // Keep::kText: moves the entries of presented calls, in order, into text_.
  void FlushPresented() const;
  // Keep::kText: the block to write the next entry (of about `bytes`) to, comma included.
  std::string& BlockFor(size_t bytes) const;
  // The pending card shown: the tool's view or the generic one.
  static json::Value ShownPending(const Call& call);
  // The call as Finish() needs it: presented now if its result never came.
  const Call& Presented(size_t index) const;
  // Keep::kText: presents the calls left without a result and writes every entry into text_.
  void FlushAll() const;

  std::string session_id_;
  const presenters::PresenterSet& presenters_;
  Keep keep_;
  mutable std::vector<Call> calls_;  // mutable: Finish() presents calls left without a result
  // Keep::kText: the entries of calls_[0, flushed_), comma-separated (a call
  // waits for every call before it to be presented), in blocks: one when
  // ReserveText() guessed right, else one more per kTextBlock bytes.
  static constexpr size_t kTextBlock = size_t{4} << 20;
  mutable std::vector<std::string> text_ = std::vector<std::string>(1);
  mutable size_t flushed_ = 0;
  bool head_drained_ = false;  // DrainText() wrote the document's head
  mutable size_t head_in_text_ = 0;  // Keep::kText: the head's bytes at the front of text_[0] (0: not there)
  size_t results_without_call_ = 0;
  std::map<std::string, size_t> open_;                               // callId → index, awaiting a result
  // callId → (name, arguments) of requested calls not logged (yet) as tool/call:
  // what names a result without a call. Entries go when their call or result comes.
  std::map<std::string, std::pair<std::string, std::string>> asked_;
};

// The cards of a log read in pieces on several threads: one builder per
// piece (the presenters, being pure, serve every thread), fed by `read`,
// which gives piece i's events to sinks[i] and returns the session id
// (expected to be `session_id`, from the log's header), or nullopt when the
// pieces are not exactly the log (store::EventSource::ReadPieces). Returns the first
// builder with the others appended and the session id set: FinishText()
// gives the document, DrainText() writes it without joining the pieces'
// texts. nullopt when `read` refused, or when a piece after the first met a
// result whose call it was not fed (it may lie in an earlier piece): the
// caller then replays the log in one piece. `piece_bytes` are the pieces'
// sizes in the log, for reserving text (CardsSizeHint); the first builder
// reserves for the whole document, so that FinishText() can join the others'
// text onto its own.
using PieceSink = std::function<Status(log::Event&&)>;
using PieceReader = std::function<std::optional<std::string>(const std::vector<PieceSink>& sinks)>;
std::optional<CardBuilder> CardsInPieces(const presenters::PresenterSet& presenters, const std::string& session_id,
                                         const std::vector<uint64_t>& piece_bytes, const PieceReader& read);

}  // namespace retrace::replay

#endif  // RETRACE_ENGINE_REPLAY_CARDS_H_
