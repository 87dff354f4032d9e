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
#ifndef RETRACE_ENGINE_REPLAY_TRANSCRIPT_H_
#define RETRACE_ENGINE_REPLAY_TRANSCRIPT_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engine/json/value.h"
#include "engine/log/event.h"
#include "engine/log/surface_fold.h"
#include "engine/replay/cards.h"
#include "presenters/presenter.h"

namespace retrace::replay {

bool TranscriptNeeds(std::string_view event_type);

class TranscriptBuilder {
 public:
  TranscriptBuilder(std::string session_id, const presenters::PresenterSet& presenters)
      : session_id_(std::move(session_id)), cards_("", presenters) {}
  void set_session_id(std::string id) { session_id_ = std::move(id); }

  // Feeds the next event, in seq order (events TranscriptNeeds() rejects are ignored).
  void Add(log::Event&& event);
  json::Value Finish();

 private:
  std::string session_id_;
  CardBuilder cards_;
  log::SurfaceFold fold_;
  std::vector<json::Value> rows_;
  std::map<std::string, size_t> tool_rows_;          // callId → row
  std::map<std::string, int64_t> result_seqs_;        // callId → its tool/result seq
  std::map<std::string, json::Value::Array> sub_calls_;  // rootCallId → Code-Mode sub-calls
};

// A terminal rendering of a transcript; ANSI colours only when `color`.
std::string RenderText(const json::Value& transcript, bool color);

// One self-contained HTML page (no scripts, no network): every logged string
// is escaped; diffs and terminal output are rendered as an IDE would.
std::string RenderHtml(const json::Value& transcript);

}  // namespace retrace::replay

#endif  // RETRACE_ENGINE_REPLAY_TRANSCRIPT_H_
