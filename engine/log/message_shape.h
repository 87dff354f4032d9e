// Message shapes of the three surface-eligible event types
// (dsh-session-log §3.1).
#ifndef RETRACE_ENGINE_LOG_MESSAGE_SHAPE_H_
#define RETRACE_ENGINE_LOG_MESSAGE_SHAPE_H_

#include <retrace/engine/base/status.h>
#include <retrace/engine/json/value.h>
#include <retrace/engine/log/event.h>

namespace retrace::log {

// Checks the message carried by a user/message, assistant/message or
// tool/result event; other types pass. Rules:
//  - every message: non-empty string id, the role of its type, an array content,
//    an object source with a string kind;
//  - assistant: source {kind:'model'} with non-empty provider and model;
//  - tool result: source {kind:'tool', callId}, content = exactly one
//    tool-result block whose toolCallId equals callId and whose content is an array.
Status CheckMessageShape(const Event& event);

// The message object of a surface event (data itself for user/message,
// data.message otherwise), or nullptr.
const json::Value* MessageOf(const Event& event);

}  // namespace retrace::log

#endif  // RETRACE_ENGINE_LOG_MESSAGE_SHAPE_H_
