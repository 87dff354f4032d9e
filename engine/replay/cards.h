// Tool cards of a session (card_document.h has the document,
// dsh-session-log §11.4): one entry per tool call, in log order of
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
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <retrace/engine/json/value.h>
#include <retrace/engine/log/event.h>
#include <retrace/engine/replay/card_document.h>
#include <retrace/engine/replay/card_fold.h>
#include <retrace/presenters/presenter.h>

namespace retrace::replay {

// Only these event types matter to the cards; a caller may skip the rest unparsed.
bool CardsNeed(std::string_view event_type);

// A generous guess of the card document's size for a log of `log_bytes`
// (for CardBuilder::ReserveText): read cards repeat their lines, so the
// document can outgrow the log. Capped, so that a huge log never asks for
// more address space than the machine will grant; past the cap the document
// grows in blocks.
inline size_t CardsSizeHint(uint64_t log_bytes) {
  constexpr uint64_t kCap = uint64_t{1} << 30;
  return static_cast<size_t>(std::min(log_bytes * 2 + (1 << 20), kCap));
}

// The card document of a session, from its events: a CardFold
// (card_fold.h) presenting the calls, feeding either the views, kept for
// Finish() and diagnostics, or a CardDocument (card_document.h) writing the
// text as the calls are presented.
class CardBuilder {
 public:
  // kViews keeps each presented call's views; kText keeps only its entry as
  // JSON text, written while its views are fresh, for FinishText(): a
  // replay to a file then holds no view longer than it takes to write it.
  enum class Keep { kViews, kText };

  CardBuilder(std::string session_id, const presenters::PresenterSet& presenters, Keep keep = Keep::kViews);
  CardBuilder(CardBuilder&&) noexcept;
  CardBuilder& operator=(CardBuilder&&) noexcept;
  ~CardBuilder();

  // Before DrainText() first writes (CardDocument::set_session_id).
  void set_session_id(std::string id);
  // Keep::kText: the document's expected size (CardDocument::Reserve).
  void ReserveText(size_t bytes);

  // Feeds the next event, in seq order (events CardsNeed() rejects are ignored).
  // The rvalue form takes the result content and meta without copying them.
  // A call is presented as soon as its result arrives, so the content and
  // meta of a result are released right away: memory holds views, not logs.
  void Add(log::Event&& event);
  void Add(const log::Event& event) { Add(log::Event(event)); }
  // After the last event: the card document. REQUIRES: Keep::kViews.
  json::Value Finish();
  // After the last event: the same document as JSON text (what
  // Serialize(Finish()) gives). With Keep::kText the text is taken out of
  // the builder: call it once, and after DrainText() it is only the rest of
  // the document.
  std::string FinishText();
  // Keep::kText: hands the document written so far to `write` and keeps the
  // buffer's memory for what follows (CardDocument::Drain).
  Status DrainText(const std::function<Status(std::string_view)>& write);
  // Keep::kText: bytes written and not yet drained.
  size_t text_size() const;

  // Results fed to this builder whose call it was not fed (CardFold).
  size_t results_without_call() const;
  // Requested calls held to name a result that comes without its call (CardFold).
  size_t requests_held() const;
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
    std::string detail;              // schema errors, what a presenter threw, or why an upcast failed
    // When its tool declares revisions: how the call reached the current one
    // (PresentedCall::upcast), from which revision, and whether the session
    // recorded that revision or it was inferred.
    std::optional<presenters::UpcastHow> upcast;
    int revision = 0;
    bool revision_recorded = false;
  };
  // After the last event.
  std::vector<Diagnostics> CallDiagnostics();

 private:
  // What the fold's presented calls go to; on the heap, so that the fold's
  // reference to it survives moving the builder.
  struct Cards;

  std::string session_id_;
  std::unique_ptr<Cards> cards_;
  std::unique_ptr<CardFold> fold_;
  size_t appended_results_without_call_ = 0;
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
