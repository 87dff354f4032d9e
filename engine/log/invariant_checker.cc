#include "engine/log/invariant_checker.h"

#include "engine/log/event_types.h"

namespace retrace::log {
namespace {

using json::Value;

std::optional<int64_t> IntField(const Event& e, std::string_view key) {
  const Value* v = e.data.Find(key);
  if (v == nullptr || !v->is_safe_integer()) return std::nullopt;
  return static_cast<int64_t>(v->as_number());
}

std::string StringAt(const Value& root, std::initializer_list<std::string_view> path) {
  const Value* v = &root;
  for (auto key : path) {
    v = v->Find(key);
    if (v == nullptr) return {};
  }
  return v->is_string() ? v->as_string() : std::string();
}

Status Violation(const Event& e, const std::string& why) {
  return Status::Corruption("invariant violated at seq " + std::to_string(e.seq) + " (" + e.type + "): " + why);
}

bool IsReplace(const Event& e) { return e.surface_op && e.surface_op->kind == SurfaceOp::Kind::kReplace; }

}  // namespace

Status InvariantChecker::CheckTurnStart(const Event& e) const {
  if (open_turn_) return Violation(e, "turn " + std::to_string(*open_turn_) + " is still open");
  const auto turn = IntField(e, "turn");
  if (turn != ended_turns_ + 1) {
    return Violation(e, "expected turn " + std::to_string(ended_turns_ + 1));
  }
  return Status::Ok();
}

Status InvariantChecker::CheckInStep(const Event& e) const {
  if (!open_turn_ || IntField(e, "turn") != open_turn_) return Violation(e, "must name the open turn");
  if (!open_step_ || IntField(e, "step") != open_step_) return Violation(e, "must name the open step");
  return Status::Ok();
}

Status InvariantChecker::CheckToolResult(const Event& e) const {
  if (IsReplace(e)) return open_turn_ ? Status::Ok() : Violation(e, "a replacing tool/result needs an open turn");
  RETURN_IF_ERROR(CheckInStep(e));
  const Value* m = e.data.Find("message");
  const std::string call_id = m != nullptr ? StringAt(*m, {"source", "callId"}) : std::string();
  if (started_calls_.count(call_id) != 0) return Status::Ok();
  if (StringAt(e.data, {"error", "code"}) == "TOOL_NOT_STARTED") return Status::Ok();
  return Violation(e, "no tool/call \"" + call_id + "\" earlier in this step");
}

Status InvariantChecker::Check(const Event& e) {
  const std::string& t = e.type;
  if (t == log::kTurnStart) {
    RETURN_IF_ERROR(CheckTurnStart(e));
  } else if (t == log::kTurnEnd) {
    if (!open_turn_ || IntField(e, "turn") != open_turn_) return Violation(e, "must name the open turn");
    if (open_step_) return Violation(e, "step " + std::to_string(*open_step_) + " is still open");
  } else if (t == log::kStepStart) {
    if (!open_turn_ || IntField(e, "turn") != open_turn_) return Violation(e, "must name the open turn");
    if (open_step_) return Violation(e, "step " + std::to_string(*open_step_) + " is still open");
    if (IntField(e, "step") != last_step_ + 1) return Violation(e, "expected step " + std::to_string(last_step_ + 1));
  } else if (t == log::kStepEnd || t == log::kAssistantChunk || t == log::kAssistantMessage || t == log::kToolCall) {
    RETURN_IF_ERROR(CheckInStep(e));
  } else if (t == log::kToolResult) {
    RETURN_IF_ERROR(CheckToolResult(e));
  } else if (t == log::kTodoWrite || t == log::kRequestHeader || t == log::kRequestContext) {
    if (!open_turn_) return Violation(e, "must be inside an open turn");
  }
  Apply(e);
  return Status::Ok();
}

void InvariantChecker::Apply(const Event& e) {
  const std::string& t = e.type;
  if (t == log::kTurnStart) {
    open_turn_ = IntField(e, "turn");
    last_step_ = 0;
  } else if (t == log::kTurnEnd) {
    open_turn_.reset();
    ++ended_turns_;
  } else if (t == log::kStepStart) {
    open_step_ = IntField(e, "step");
    last_step_ = *open_step_;
  } else if (t == log::kStepEnd) {
    open_step_.reset();
    started_calls_.clear();
  } else if (t == log::kToolCall) {
    started_calls_.insert(StringAt(e.data, {"callId"}));
  }
}

}  // namespace retrace::log
