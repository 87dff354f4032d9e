// Replay, the use case: a session's UI rebuilt from its log with pure
// presenters, as cards (engine/replay/card_document.h), a transcript, terminal
// text or one HTML page. The choice between pieces on several threads and
// one thread is made here, once for every front end: a source that can be
// cut (store::EventSource::PlanPieces) is replayed in pieces, anything a
// piece cannot judge alone sends it through one thread, so the document is
// always the one-thread document.
#ifndef RETRACE_SERVICE_REPLAY_H_
#define RETRACE_SERVICE_REPLAY_H_

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "engine/base/status.h"
#include "engine/json/value.h"
#include "engine/replay/cards.h"
#include "presenters/presenter.h"
#include "store/event_source.h"

namespace retrace::service {

enum class ReplayFormat { kCards, kTranscript, kText, kHtml };

// "cards", "transcript", "text", "html"; nullopt for anything else.
std::optional<ReplayFormat> ReplayFormatNamed(std::string_view name);

using TextSink = std::function<Status(std::string_view)>;

struct ReplayOptions {
  const presenters::PresenterSet* presenters = nullptr;  // default: the reference tools'
  unsigned threads = 1;    // cards: up to this many pieces
  // Hand the output to `write` every this many bytes (memory then holds a
  // block, not the document), or 0: all at the end, so that nothing of a
  // failed replay is written. A source replayed in pieces is written once
  // its pieces are joined.
  size_t drain_bytes = 0;
  bool color = false;  // text: ANSI colours (the front end knows whether a person at a terminal reads it)
};

// The cards of `source` read in pieces on up to options.threads threads,
// joined in order; nullopt when the source is not worth cutting or a piece
// could not be read exactly (then a one-thread replay gives the document,
// and any error). WriteCards uses it; a caller that wants the builder itself
// (the benchmark) calls it too.
std::optional<replay::CardBuilder> PiecedCards(const store::EventSource& source, const ReplayOptions& options);

// The card document of `source`, ending with a newline, handed to `write`.
Status WriteCards(const store::EventSource& source, const ReplayOptions& options, const TextSink& write);

// `source` replayed in `format`, handed to `write`: cards as WriteCards;
// the transcript, text and HTML from two passes over the source (transcript.h),
// in bounded memory.
Status WriteReplay(const store::EventSource& source, ReplayFormat format, const ReplayOptions& options,
                   const TextSink& write);

// The conversation of `source` (engine/replay/conversation.h): each row
// handed to `emit` as soon as it is complete, so that a front end streams a
// session while it is still being read. `emit` returns false to stop (the
// peer is gone): then nothing more is read, and the result is Ok.
using RowSink = std::function<bool(json::Value row)>;
Status StreamConversation(const store::EventSource& source, const RowSink& emit,
                          const presenters::PresenterSet* presenters = nullptr);

}  // namespace retrace::service

#endif  // RETRACE_SERVICE_REPLAY_H_
