// The human transcript of a session (dsh-session-log §11.4): the
// append-origin events in seq order as rows, each flagged in or out of the
// current model context (the surface fold), with tool calls as their
// effective cards (cards.h). Replacements are model-only: a compaction shows
// as a notice, never by deleting rows the reader saw. Pure and deterministic.
//
//   {"sessionId", "rows": [row…]}, each row {"seq", "kind", …}:
//   turn        {turn}                         turn/start
//   turn-end    {turn, reason}                 turn/end
//   prompt      {text, inContext}              user/message from the user
//   context     {source, plugin?, form?, summary?, text, inContext}
//                                              injected context (plugins, relays, …)
//   assistant   {reasoning?, text?, interrupted?, inContext}
//   tool        {callId, name, args, pending, result, isError, inContext, subCalls?}
//                                              at its tool/call (or its result, if it has no call)
//   notice      {text}                         compaction, pruning
//
// Whether a row is in context depends on events after it (a compaction
// shadows what came before), so a transcript reads the log twice: once to
// fold the surface the session ends with, once to make the rows, each handed
// on as soon as it is complete (conversation.h). Memory holds that surface
// and the rows waiting for a call's result, never the session; the writers
// below render rows one at a time, so a 1 GB log renders in bounded memory.
#ifndef RETRACE_ENGINE_REPLAY_TRANSCRIPT_H_
#define RETRACE_ENGINE_REPLAY_TRANSCRIPT_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include <retrace/engine/base/status.h>
#include <retrace/engine/json/value.h>
#include <retrace/engine/log/event.h>
#include <retrace/engine/replay/conversation.h>
#include <retrace/presenters/presenter.h>

namespace retrace::replay {

// One pass over a session: its events in seq order, at least those
// TranscriptNeeds() accepts, each handed to `sink`, stopping at the first
// error `sink` returns. A transcript makes two passes; a live session may
// grow between them, so the second stops where the first ended.
using EventSink = std::function<Status(log::Event&&)>;
using EventPass = std::function<Status(const EventSink& sink)>;
using RowEmit = std::function<Status(json::Value row)>;

// The transcript's rows, each handed to `emit` once complete; an error from
// `emit` (a reader gone) stops the passes and is returned.
Status StreamTranscript(const EventPass& pass, const presenters::PresenterSet& presenters, const RowEmit& emit);

// The whole transcript, {"sessionId", "rows"}: for tests and small sessions.
Result<json::Value> BuildTranscript(const std::string& session_id, const EventPass& pass,
                                    const presenters::PresenterSet& presenters);

// Renders a transcript row by row: Begin, each row, End; the text is taken
// as it grows (Take), so that a writer holds a block, never the document.
class TranscriptWriter {
 public:
  TranscriptWriter() = default;
  TranscriptWriter(const TranscriptWriter&) = delete;  // implementations point at out_
  TranscriptWriter& operator=(const TranscriptWriter&) = delete;
  virtual ~TranscriptWriter() = default;
  virtual void Begin(const std::string& session_id) = 0;
  virtual void Row(const json::Value& row) = 0;
  virtual void End() = 0;
  size_t size() const { return out_.size(); }
  std::string Take() { return std::exchange(out_, {}); }

 protected:
  std::string out_;
};

// The transcript as JSON: one document, then a newline.
std::unique_ptr<TranscriptWriter> JsonTranscriptWriter();
// For a terminal; ANSI colours only when `color`.
std::unique_ptr<TranscriptWriter> TextTranscriptWriter(bool color);
// One self-contained HTML page (no scripts, no network): every logged string
// is escaped; diffs and terminal output are rendered as an IDE would.
std::unique_ptr<TranscriptWriter> HtmlTranscriptWriter();

// A whole transcript (BuildTranscript's) through a writer.
std::string Render(TranscriptWriter& writer, const json::Value& transcript);
std::string RenderText(const json::Value& transcript, bool color);
std::string RenderHtml(const json::Value& transcript);

}  // namespace retrace::replay

#endif  // RETRACE_ENGINE_REPLAY_TRANSCRIPT_H_
