// A session's rows as they stream, each handed on as soon as it is complete.
// Two forms, one code:
//  - the conversation: the rows of its transcript (transcript.h) that a person
//    saw — prompt, context, assistant, tool — without the transcript's
//    inContext (which needs the whole log); what a front end streams a
//    session with (ACP's session/load);
//  - the transcript itself, given the surface the session ends with (a first
//    pass over the log, transcript.h): turn, turn-end and notice rows too,
//    inContext on each, a tool row's Code-Mode subCalls.
// A tool row waits for its call to be presented (cards.h: at its result),
// and the rows after it wait with it, so that order is kept; memory holds
// only those. Pure and deterministic.
#ifndef RETRACE_ENGINE_REPLAY_CONVERSATION_H_
#define RETRACE_ENGINE_REPLAY_CONVERSATION_H_

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string_view>

#include <retrace/engine/json/value.h>
#include <retrace/engine/log/event.h>
#include <retrace/engine/log/surface_fold.h>
#include <retrace/engine/replay/card_fold.h>
#include <retrace/presenters/presenter.h>

namespace retrace::replay {

// The row of a user/message (prompt or context) or an assistant/message
// with reasoning or text, as the transcript writes it before inContext;
// nullopt for anything else (a compaction's checkpoint included).
std::optional<json::Value> MessageRow(const log::Event& event);

// The tool row of a presented call: {seq, kind, callId, name, args, pending, result, isError}.
json::Value ToolRow(const PresentedCall& call);

bool ConversationNeeds(std::string_view event_type);
bool TranscriptNeeds(std::string_view event_type);

class ConversationStream {
 public:
  using Emit = std::function<void(json::Value row)>;

  // With `surface` (it must outlive the stream), the transcript's rows.
  ConversationStream(const presenters::PresenterSet& presenters, Emit emit,
                     const log::SurfaceFold* surface = nullptr);
  ConversationStream(const ConversationStream&) = delete;
  ConversationStream& operator=(const ConversationStream&) = delete;

  // Feeds the next event, in seq order (events ConversationNeeds(), or for
  // the transcript TranscriptNeeds(), rejects are ignored).
  void Add(log::Event&& event);
  // After the last event: presents the calls still without a result and
  // hands on every row left.
  void Finish();

 private:
  void Flush();
  // The transcript's rows that are not messages or tool calls (turns,
  // notices), and Code-Mode sub-calls kept for their tool row.
  void AddStructure(const log::Event& event);
  // Sets inContext (`seq` on the final surface) when the stream makes the transcript.
  void MarkContext(json::Value& row, int64_t seq) const;

  Emit emit_;
  const log::SurfaceFold* surface_;
  std::unique_ptr<CardFold> fold_;
  std::deque<std::optional<json::Value>> rows_;  // in order; an empty slot awaits its call
  size_t first_ = 0;                             // the position of rows_.front() since the start
  std::map<size_t, size_t> slot_of_call_;        // card index → position
  std::map<size_t, json::Value> early_;          // tool rows presented before their slot was made
  std::map<std::string, json::Value::Array> sub_calls_;  // rootCallId → Code-Mode sub-calls not yet shown
};

}  // namespace retrace::replay

#endif  // RETRACE_ENGINE_REPLAY_CONVERSATION_H_
