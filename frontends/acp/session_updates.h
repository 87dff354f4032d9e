// A stored session as ACP `session/update`s (ACP v1 session-setup "Loading
// Sessions", tool-calls): what `session/load` streams to an editor, built
// from the session's transcript rows (engine/replay/transcript.h), whose
// tool rows carry the same presenters' cards `retrace replay` shows.
//
//   prompt     user_message_chunk
//   context    user_message_chunk, _meta.retrace.context = {source, plugin?, form?, summary?}
//   assistant  agent_thought_chunk (reasoning), agent_message_chunk (text)
//   tool       tool_call, already settled, from its cards (the table below);
//              a terminal card through the `_meta.terminal_*` convention
//              when the client advertises it: tool_call, then tool_call_update
//              with the output, then one with the exit and the status
//   others     nothing (turn boundaries and compaction notices have no ACP form)
//
//   card (result, else pending)   kind      content
//   read                          read      text (the card's fallback text, else its lines)
//   diff                          edit      diff {path, oldText, newText} per file
//   terminal                      execute   terminal convention, or a ```console text block
//   search                        search    text: path:line: match, or one path per line
//   web                           fetch     text: the sources, or the fetched URL and status
//   generic                       its kind when ACP has it, else other; its content blocks
//
// status: completed, failed (isError), pending (no result). locations are
// absolute against the session's cwd, lines only when they are ACP's uint32.
// Every message chunk carries messageId "m<seq>", so that two messages in a
// row are never joined. Pure and deterministic.
#ifndef RETRACE_ACP_SESSION_UPDATES_H_
#define RETRACE_ACP_SESSION_UPDATES_H_

#include <functional>
#include <string>
#include <string_view>

#include "engine/json/value.h"

namespace retrace::acp {

struct UpdateOptions {
  std::string cwd;               // the session's cwd: relative paths are made absolute against it
  bool terminal_output = false;  // the client advertised _meta.terminal_output
};

// ACP's ToolKind values; anything else is dropped by the SDK without a word,
// so a card's kind is mapped onto these or "other".
bool IsToolKind(std::string_view kind);

// An absolute, lexically normalized path: `path` itself when absolute, else
// against `cwd`; "" when neither gives one.
std::string AbsolutePath(std::string_view path, std::string_view cwd);

// Hands each `update` (the params.update of a session/update) of one
// transcript row to `emit`, in order.
using EmitUpdate = std::function<void(json::Value update)>;
void RowUpdates(const json::Value& row, const UpdateOptions& options, const EmitUpdate& emit);

}  // namespace retrace::acp

#endif  // RETRACE_ACP_SESSION_UPDATES_H_
