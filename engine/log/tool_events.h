// Typed reads of the two events a tool card is made of (dsh-session-log
// §5): what a tool/call requests and which call a tool/result settles, read
// once here for the cards, the transcript, the read model, the event columns
// and the checks. Lenient, like every reader: a field of the wrong kind reads
// as absent. The views point into the event, which must outlive them.
#ifndef RETRACE_ENGINE_LOG_TOOL_EVENTS_H_
#define RETRACE_ENGINE_LOG_TOOL_EVENTS_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include <retrace/engine/json/value.h>
#include <retrace/engine/log/event.h>

namespace retrace::log {

// tool/call {turn, step, callId, name, arguments}.
struct ToolCallView {
  std::string_view call_id;
  std::string_view name;
  std::string_view arguments;  // the model's raw text (ParseToolArguments)
  std::optional<int64_t> turn, step;
};
// nullopt unless `e` is a tool/call.
std::optional<ToolCallView> ReadToolCall(const Event& e);

// tool/result {turn, step, message: {content: [{type:'tool-result',
// toolCallId, content, isError}], source}, error?, meta?}.
struct ToolResultView {
  // message.content[0].toolCallId: the call this result settles. (A valid log
  // has the same id in message.source.callId; the checker refuses others.)
  std::string_view call_id;
  bool is_error = false;                        // the block's isError
  const json::Value* content = nullptr;  // the block's content: an array, or null
  const json::Value* meta = nullptr;            // data.meta, the tool's presentationMeta
  const json::Value* error = nullptr;           // data.error {name?, code?, ...}
  std::optional<int64_t> turn, step;
  // False for a replacement (compaction pruning): model-only, it makes no card.
  bool append = true;
};
// nullopt unless `e` is a tool/result with a tool-result block.
std::optional<ToolResultView> ReadToolResult(const Event& e);

}  // namespace retrace::log

#endif  // RETRACE_ENGINE_LOG_TOOL_EVENTS_H_
