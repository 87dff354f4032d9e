// A session's conversation as it streams: the rows of its transcript
// (transcript.h) that a person saw — prompt, context, assistant, tool — in
// seq order, each handed on as soon as it is complete, without the
// transcript's inContext (which needs the whole log). A tool row waits for
// its call to be presented (cards.h: at its result), and the rows after it
// wait with it, so that order is kept; memory holds only those. What a
// front end streams a session with (ACP's session/load). Pure and
// deterministic: the rows are the transcript's, field for field.
#ifndef RETRACE_ENGINE_REPLAY_CONVERSATION_H_
#define RETRACE_ENGINE_REPLAY_CONVERSATION_H_

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string_view>

#include "engine/json/value.h"
#include "engine/log/event.h"
#include "engine/replay/card_fold.h"
#include "presenters/presenter.h"

namespace retrace::replay {

// The row of a user/message (prompt or context) or an assistant/message
// with reasoning or text, as the transcript writes it before inContext;
// nullopt for anything else (a compaction's checkpoint included).
std::optional<json::Value> MessageRow(const log::Event& event);

// The tool row of a presented call: {seq, kind, callId, name, args, pending, result, isError}.
json::Value ToolRow(const PresentedCall& call);

bool ConversationNeeds(std::string_view event_type);

class ConversationStream {
 public:
  using Emit = std::function<void(json::Value row)>;

  ConversationStream(const presenters::PresenterSet& presenters, Emit emit);
  ConversationStream(const ConversationStream&) = delete;
  ConversationStream& operator=(const ConversationStream&) = delete;

  // Feeds the next event, in seq order (events ConversationNeeds() rejects are ignored).
  void Add(log::Event&& event);
  // After the last event: presents the calls still without a result and
  // hands on every row left.
  void Finish();

 private:
  void Flush();

  Emit emit_;
  std::unique_ptr<CardFold> fold_;
  std::deque<std::optional<json::Value>> rows_;  // in order; an empty slot awaits its call
  size_t first_ = 0;                             // the position of rows_.front() since the start
  std::map<size_t, size_t> slot_of_call_;        // card index → position
  std::map<size_t, json::Value> early_;          // tool rows presented before their slot was made
};

}  // namespace retrace::replay

#endif  // RETRACE_ENGINE_REPLAY_CONVERSATION_H_
