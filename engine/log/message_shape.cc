#include "engine/log/message_shape.h"

#include <string>

#include "engine/log/event_types.h"

namespace retrace::log {
namespace {

using json::Value;

bool IsNonEmptyString(const Value* v) { return v != nullptr && v->is_string() && !v->as_string().empty(); }
bool IsString(const Value* v, std::string_view s) { return v != nullptr && v->is_string() && v->as_string() == s; }

Status Check(const Value& m, std::string_view role, std::string_view type) {
  if (!m.is_object()) return Status::Corruption("message is not an object");
  if (!IsNonEmptyString(m.Find("id"))) return Status::Corruption("message id must be a non-empty string");
  if (!IsString(m.Find("role"), role)) {
    return Status::Corruption("message role must be \"" + std::string(role) + "\"");
  }
  const Value* content = m.Find("content");
  if (content == nullptr || !content->is_array()) return Status::Corruption("message content must be an array");
  const Value* source = m.Find("source");
  if (source == nullptr || !source->is_object() || source->Find("kind") == nullptr ||
      !source->Find("kind")->is_string()) {
    return Status::Corruption("message source must be an object with a string kind");
  }

  if (type == log::kAssistantMessage) {
    if (!IsString(source->Find("kind"), "model")) return Status::Corruption("assistant message source kind must be \"model\"");
    if (!IsNonEmptyString(source->Find("provider")) || !IsNonEmptyString(source->Find("model"))) {
      return Status::Corruption("assistant message source needs a non-empty provider and model");
    }
  } else if (type == log::kToolResult) {
    const Value* call_id = source->Find("callId");
    if (!IsString(source->Find("kind"), "tool") || call_id == nullptr || !call_id->is_string()) {
      return Status::Corruption("tool result message source must be {kind:\"tool\", callId}");
    }
    const auto& blocks = content->as_array();
    if (blocks.size() != 1 || !IsString(blocks[0].Find("type"), "tool-result")) {
      return Status::Corruption("tool result message must hold exactly one tool-result block");
    }
    if (!IsString(blocks[0].Find("toolCallId"), call_id->as_string())) {
      return Status::Corruption("tool-result block toolCallId does not match source callId");
    }
    const Value* inner = blocks[0].Find("content");
    if (inner == nullptr || !inner->is_array()) return Status::Corruption("tool-result block content must be an array");
  }
  return Status::Ok();
}

}  // namespace

const Value* MessageOf(const Event& e) {
  if (e.type == log::kUserMessage) return &e.data;
  if (e.type == log::kAssistantMessage || e.type == log::kToolResult) return e.data.Find("message");
  return nullptr;
}

Status CheckMessageShape(const Event& e) {
  if (e.type != log::kUserMessage && e.type != log::kAssistantMessage && e.type != log::kToolResult) return Status::Ok();
  const Value* m = MessageOf(e);
  Status st = m == nullptr ? Status::Corruption("data.message is missing") : Check(*m, e.type == log::kAssistantMessage ? "assistant" : "user", e.type);
  return st.WithContext("session event \"" + e.type + "\" (seq " + std::to_string(e.seq) + ") has an invalid message");
}

}  // namespace retrace::log
