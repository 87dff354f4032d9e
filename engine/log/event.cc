#include "engine/log/event.h"

#include <algorithm>
#include <unordered_set>

#include "engine/json/parser.h"
#include "engine/json/writer.h"
#include "engine/log/event_types.h"

namespace retrace::log {
namespace {

using json::Value;

Status Invalid(int64_t seq, const std::string& why) {
  return Status::Corruption("event at seq " + std::to_string(seq) + " has an invalid event envelope: " + why);
}

Result<SurfaceOp> ParseSurfaceOp(const Value& v, int64_t seq) {
  if (v.is_string() && v.as_string() == "append") return SurfaceOp{};
  const Value* op = v.Find("op");
  const Value* start = v.Find("start");
  const Value* end = v.Find("end");
  if (!v.is_object() || v.as_object().size() != 3 || op == nullptr || !op->is_string() ||
      op->as_string() != "replace" || start == nullptr || end == nullptr ||
      !start->is_safe_integer() || !end->is_safe_integer() || start->as_number() < 0 ||
      end->as_number() < 0) {
    return Invalid(seq, "surfaceOp must be \"append\" or {\"op\":\"replace\",\"start\":int,\"end\":int}");
  }
  return SurfaceOp{SurfaceOp::Kind::kReplace, static_cast<int64_t>(start->as_number()),
                   static_cast<int64_t>(end->as_number())};
}

Result<std::vector<int64_t>> ParseSources(const Value& v, int64_t seq) {
  if (!v.is_array()) return Invalid(seq, "sourceEventSeqs must be an array");
  std::vector<int64_t> seqs;
  seqs.reserve(v.as_array().size());
  for (const Value& s : v.as_array()) {
    if (!s.is_safe_integer() || s.as_number() < 0) {
      return Invalid(seq, "sourceEventSeqs must hold non-negative integers");
    }
    seqs.push_back(static_cast<int64_t>(s.as_number()));
  }
  return seqs;
}

}  // namespace

Result<Event> EventFromJson(Value envelope) {
  if (!envelope.is_object()) return Status::Corruption("event is not a JSON object");
  Event e;
  const Value* type = envelope.Find("type");
  const Value* seq = envelope.Find("seq");
  if (seq == nullptr || !seq->is_safe_integer() || seq->as_number() < 0) {
    return Status::Corruption("event has an invalid event envelope: seq must be a non-negative safe integer");
  }
  e.seq = static_cast<int64_t>(seq->as_number());
  if (type == nullptr || !type->is_string()) return Invalid(e.seq, "type must be a string");
  e.type = type->as_string();

  const Value* sources = nullptr;
  const Value* surface = nullptr;
  bool has_time = false, has_data = false;
  for (auto& [key, value] : envelope.as_object()) {
    if (key == "type" || key == "seq") continue;
    if (key == "time") {
      if (!value.is_safe_integer()) return Invalid(e.seq, "time must be a safe integer");
      e.time = static_cast<int64_t>(value.as_number());
      has_time = true;
    } else if (key == "data") {
      e.data = std::move(value);
      has_data = true;
    } else if (key == "sourceEventSeqs") {
      sources = &value;
    } else if (key == "surfaceOp") {
      surface = &value;
    } else if (key == "ignorable") {
      if (!value.is_bool() || !value.as_bool()) return Invalid(e.seq, "ignorable must be literally true");
      e.ignorable = true;
    } else {
      return Invalid(e.seq, "unknown envelope key \"" + key + "\"");
    }
  }
  if (!has_time) return Invalid(e.seq, "time is missing");
  if (!has_data) return Invalid(e.seq, "data is missing");
  if (surface != nullptr) {
    ASSIGN_OR_RETURN(e.surface_op, ParseSurfaceOp(*surface, e.seq));
  }
  if (sources != nullptr) {
    ASSIGN_OR_RETURN(e.source_event_seqs, ParseSources(*sources, e.seq));
  }
  return e;
}

Status CheckEnvelopeRules(const Event& e) {
  // Built only for a message: this runs on every event appended or imported.
  auto where = [&] { return "session event \"" + e.type + "\" (seq " + std::to_string(e.seq) + ")"; };
  const bool eligible = IsSurfaceEligible(e.type);
  if (!eligible && (e.surface_op || e.source_event_seqs)) {
    return Status::Corruption(where() + " is not surface-eligible and cannot carry " +
                              (e.surface_op ? "surfaceOp" : "sourceEventSeqs"));
  }
  if (eligible && !e.surface_op) return Status::Corruption(where() + " requires a surfaceOp marker");
  if (!e.source_event_seqs) return Status::Ok();
  const std::vector<int64_t>& seqs = *e.source_event_seqs;
  for (int64_t n : seqs) {
    if (n >= e.seq) return Invalid(e.seq, "sourceEventSeqs cites seq " + std::to_string(n) + ", not an earlier one");
  }
  // Writers cite in ascending order; only an unsorted list needs a set to find repeats.
  if (!std::is_sorted(seqs.begin(), seqs.end()) || std::adjacent_find(seqs.begin(), seqs.end()) != seqs.end()) {
    std::unordered_set<int64_t> seen;
    for (int64_t n : seqs) {
      if (!seen.insert(n).second) return Invalid(e.seq, "sourceEventSeqs repeats seq " + std::to_string(n));
    }
  }
  if (e.source_event_seqs->empty() && e.type != log::kAssistantMessage) {
    return Invalid(e.seq, "sourceEventSeqs must not be empty");
  }
  return Status::Ok();
}

Result<Event> ParseEvent(std::string_view text) {
  auto parsed = json::Parse(text);
  if (!parsed.ok()) return Status::Corruption(parsed.status().message());
  return EventFromJson(std::move(parsed).value());
}

namespace {

void AppendSources(std::string& out, const Event& e) {
  if (!e.source_event_seqs) return;
  out += ",\"sourceEventSeqs\":[";
  bool first = true;
  for (int64_t s : *e.source_event_seqs) {
    if (!first) out.push_back(',');
    first = false;
    json::AppendNumber(out, static_cast<double>(s));
  }
  out.push_back(']');
}

void AppendSurface(std::string& out, const Event& e) {
  if (!e.surface_op) return;
  if (e.surface_op->kind == SurfaceOp::Kind::kAppend) {
    out += ",\"surfaceOp\":\"append\"";
    return;
  }
  out += ",\"surfaceOp\":{\"op\":\"replace\",\"start\":";
  json::AppendNumber(out, static_cast<double>(e.surface_op->start));
  out += ",\"end\":";
  json::AppendNumber(out, static_cast<double>(e.surface_op->end));
  out.push_back('}');
}

// The envelope as JSON.stringify writes it, keys in `order` (event.h).
void AppendEnvelope(std::string& out, const Event& e, EnvelopeOrder order) {
  out += "{\"type\":";
  json::AppendQuoted(out, e.type);
  out += ",\"seq\":";
  json::AppendNumber(out, static_cast<double>(e.seq));
  out += ",\"time\":";
  json::AppendNumber(out, static_cast<double>(e.time));
  out += ",\"data\":";
  json::AppendSerialized(out, e.data);
  if (order == EnvelopeOrder::kLiveAppend) {
    AppendSources(out, e);
    AppendSurface(out, e);
  } else {
    AppendSurface(out, e);
    AppendSources(out, e);
  }
  if (e.ignorable) out += ",\"ignorable\":true";
  out.push_back('}');
}

}  // namespace

std::string SerializeEvent(const Event& e, EnvelopeOrder order) {
  // Written straight from the event (no envelope tree) into a buffer that
  // keeps its capacity, then copied once at its size: a string grown from
  // empty reallocates at every doubling, about eight times for a 3 KB event.
  thread_local std::string scratch;
  scratch.clear();
  AppendEnvelope(scratch, e, order);
  std::string text = scratch;
  constexpr size_t kKeep = size_t{1} << 20;  // a rare huge event does not pin its size
  if (scratch.capacity() > kKeep) std::string().swap(scratch);
  return text;
}

}  // namespace retrace::log
