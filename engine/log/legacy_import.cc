#include "engine/log/legacy_import.h"

#include <string>

#include "engine/log/event_types.h"
#include "engine/log/message_shape.h"

namespace retrace::log {
namespace {

using json::Value;

bool IsNonEmptyKindRecord(const Value* v) {
  const Value* kind = v != nullptr ? v->Find("kind") : nullptr;
  return kind != nullptr && kind->is_string() && !kind->as_string().empty();
}

// Removes `key` from an object and returns its value (null if absent).
Value Take(Value& obj, std::string_view key) {
  auto& o = obj.as_object();
  for (auto it = o.begin(); it != o.end(); ++it) {
    if (it->first == key) {
      Value v = std::move(it->second);
      o.erase(it);
      return v;
    }
  }
  return Value();
}

std::string MintedId(std::string_view session_id, const Event& e, const MessageIdLookup& replaced_id) {
  if (e.type == log::kToolResult && e.surface_op && e.surface_op->kind == SurfaceOp::Kind::kReplace) {
    if (const std::string* id = replaced_id(e.surface_op->start)) return *id;
  }
  return "legacy-message:" + std::string(session_id) + ":" + std::to_string(e.seq);
}

Result<bool> UpgradeTurnEnd(Event& e) {
  Value* reason = e.data.Find("reason");
  if (reason == nullptr || !IsNonEmptyKindRecord(reason)) return false;
  const std::string kind = reason->Find("kind")->as_string();
  if (kind == "aborted" && reason->Find("reason") == nullptr) {
    reason->Set("reason", Value::MakeObject({{"kind", "legacy"}}));
    return true;
  }
  if (kind == "disposed") {
    *reason = Value::MakeObject({{"kind", "aborted"}, {"reason", Value::MakeObject({{"kind", "disposed"}})}});
    return true;
  }
  if (kind != "error" || reason->Find("error") != nullptr) return false;
  if (const Value* failure = reason->Find("failure")) {
    *reason = Value::MakeObject({{"kind", "error"}, {"error", *failure}});
    return true;
  }
  const Value* message = reason->Find("message");
  if (message == nullptr || !message->is_string()) {
    return Status::Corruption("malformed pre-react-loop turn/end at seq " + std::to_string(e.seq));
  }
  const Value* code = reason->Find("code");
  Value error = Value::MakeObject({{"message", *message}, {"code", code != nullptr ? *code : Value("UNKNOWN")}});
  *reason = Value::MakeObject({{"kind", "error"}, {"error", std::move(error)}});
  return true;
}

bool UpgradeSteering(Event& e, std::string_view session_id, const MessageIdLookup& lookup) {
  e.type = log::kUserMessage;
  if (!e.surface_op) e.surface_op = SurfaceOp{};
  if (Value* message = e.data.Find("message")) {
    e.data = Value(*message);
    return true;
  }
  Value content = Take(e.data, "content");
  Value source = Take(e.data, "source");
  e.data = Value::MakeObject({{"content", std::move(content)}, {"source", std::move(source)},
                              {"id", MintedId(session_id, e, lookup)}, {"role", "user"}});
  return true;
}

bool UpgradePreIdentity(Event& e, std::string_view session_id, const MessageIdLookup& lookup) {
  if (!e.data.is_object()) return false;
  if (e.type == log::kUserMessage && e.data.Find("id") == nullptr && e.data.Find("content") != nullptr) {
    e.data.Set("id", MintedId(session_id, e, lookup));
    e.data.Set("role", "user");
    return true;
  }
  if (e.type == log::kAssistantMessage && e.data.Find("message") == nullptr && e.data.Find("provenance") != nullptr) {
    Value content = Take(e.data, "content");
    Value source = Take(e.data, "provenance");
    if (source.is_object()) source.Set("kind", "model");
    e.data.Set("message", Value::MakeObject({{"id", MintedId(session_id, e, lookup)}, {"role", "assistant"},
                                             {"content", std::move(content)}, {"source", std::move(source)}}));
    return true;
  }
  if (e.type == log::kToolResult && e.data.Find("message") == nullptr && e.data.Find("callId") != nullptr) {
    const std::string id = MintedId(session_id, e, lookup);
    Value call_id = Take(e.data, "callId");
    Value content = Take(e.data, "content");
    Value is_error = Take(e.data, "isError");
    Value block = Value::MakeObject({{"type", "tool-result"}, {"toolCallId", call_id}, {"content", std::move(content)}});
    if (!is_error.is_null()) block.Set("isError", std::move(is_error));
    e.data.Set("message", Value::MakeObject({{"id", id}, {"role", "user"},
                                             {"content", Value::Array{std::move(block)}},
                                             {"source", Value::MakeObject({{"kind", "tool"}, {"callId", call_id}})}}));
    return true;
  }
  return false;
}

bool IsStringValue(const Value* v, std::string_view s) { return v != nullptr && v->is_string() && v->as_string() == s; }

bool IsLegacyTurnEndReason(const Value* reason) {
  if (!IsNonEmptyKindRecord(reason)) return false;
  const Value* kind = reason->Find("kind");
  if (IsStringValue(kind, "aborted")) return reason->Find("reason") == nullptr;
  if (IsStringValue(kind, "disposed")) return true;
  return IsStringValue(kind, "error") && reason->Find("error") == nullptr;
}

}  // namespace

bool IsLegacyShape(const Event& e) {
  const std::string& t = e.type;
  if (t == log::kRequestHeaderDelta || t == log::kModeSet || t == log::kSteeringMessage) return true;
  if (t == log::kRequestHeader) return IsStringValue(e.data.Find("reason"), "fallback");
  if (t == log::kTurnStart) return e.data.Find("trigger") != nullptr;
  if (t == log::kTurnEnd) return IsLegacyTurnEndReason(e.data.Find("reason"));
  if (!e.data.is_object()) return false;
  if (t == log::kUserMessage) return e.data.Find("id") == nullptr && e.data.Find("content") != nullptr;
  if (t == log::kAssistantMessage) return e.data.Find("message") == nullptr && e.data.Find("provenance") != nullptr;
  if (t == log::kToolResult) return e.data.Find("message") == nullptr && e.data.Find("callId") != nullptr;
  return false;
}

Result<bool> ImportLegacy(Event& e, std::string_view session_id, const MessageIdLookup& lookup) {
  const std::string at = " (seq " + std::to_string(e.seq) + ")";
  if (e.type == log::kRequestHeaderDelta || e.type == log::kModeSet) {
    return Status::Corruption("legacy event type \"" + e.type + "\"" + at + " is no longer supported");
  }
  if (e.type == log::kRequestHeader) {
    const Value* reason = e.data.Find("reason");
    if (reason != nullptr && reason->is_string() && reason->as_string() == "fallback") {
      return Status::Corruption("request/header with reason \"fallback\"" + at + " is no longer supported");
    }
    return false;
  }
  if (e.type == log::kTurnStart && e.data.Find("trigger") != nullptr) {
    if (!IsNonEmptyKindRecord(e.data.Find("trigger"))) {
      return Status::Corruption("malformed pre-react-loop turn/start" + at);
    }
    Take(e.data, "trigger");
    return true;
  }
  if (e.type == log::kTurnEnd) return UpgradeTurnEnd(e);
  if (e.type == log::kSteeringMessage) return UpgradeSteering(e, session_id, lookup);
  return UpgradePreIdentity(e, session_id, lookup);
}

}  // namespace retrace::log
