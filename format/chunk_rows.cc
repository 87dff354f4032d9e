#include "format/chunk_rows.h"

#include <cmath>
#include <initializer_list>
#include <string>

#include "engine/json/parser.h"
#include "engine/json/writer.h"
#include "engine/log/event_types.h"

namespace retrace::format {
namespace {

using json::Value;

constexpr double kMaxSafe = 9007199254740991.0;  // Number.MAX_SAFE_INTEGER

bool HasExactKeys(const Value& v, std::initializer_list<std::string_view> required,
                  std::initializer_list<std::string_view> optional = {}) {
  if (!v.is_object()) return false;
  size_t found = 0;
  for (const auto& [k, unused] : v.as_object()) {
    bool known = false;
    for (auto r : required) known |= (k == r);
    if (known) {
      ++found;
      continue;
    }
    for (auto o : optional) known |= (k == o);
    if (!known) return false;
  }
  return found == required.size();
}

bool IsStringArray(const Value* v) {
  if (v == nullptr || !v->is_array() || v->as_array().empty()) return false;
  for (const Value& s : v->as_array()) {
    if (!s.is_string()) return false;
  }
  return true;
}

Status Malformed(const std::string& tag, const std::string& why) {
  return Status::Corruption("malformed " + tag + " storage row: " + why);
}

}  // namespace

Result<PackedRow> ParsePackedRow(const Value& row) {
  PackedRow out;
  out.tag = row.Find("type")->as_string();
  const std::string& tag = out.tag;
  const bool tool = tag == "tool-call-chunks";
  if (!HasExactKeys(row, {"type", "seq0", "time0", "data"})) return Malformed(tag, "envelope must be exactly {type, seq0, time0, data}");
  const Value* seq0 = row.Find("seq0");
  const Value* time0 = row.Find("time0");
  if (!seq0->is_safe_integer() || seq0->as_number() < 0) return Malformed(tag, "seq0 must be a non-negative safe integer");
  if (!time0->is_safe_integer()) return Malformed(tag, "time0 must be a safe integer");
  const Value& data = *row.Find("data");
  if (!data.is_object()) return Malformed(tag, "data must be an object");
  if (tool) {
    const bool with_name = HasExactKeys(data, {"turn", "step", "index", "id", "name", "dt", "args"});
    if (!with_name && !HasExactKeys(data, {"turn", "step", "index", "id", "dt", "args"})) {
      return Malformed(tag, "data must be exactly {turn, step, index, id, name?, dt, args}");
    }
    if (!data.Find("id")->is_string() || (with_name && !data.Find("name")->is_string())) {
      return Malformed(tag, "id (and name when present) must be strings");
    }
  } else if (!HasExactKeys(data, {"turn", "step", "index", "dt", "texts"})) {
    return Malformed(tag, "data must be exactly {turn, step, index, dt, texts}");
  }
  for (const char* k : {"turn", "step", "index"}) {
    if (!data.Find(k)->is_number()) return Malformed(tag, "turn/step/index must be numbers");
  }
  const char* payload_key = tool ? "args" : "texts";
  const Value* payload = data.Find(payload_key);
  if (!IsStringArray(payload)) return Malformed(tag, std::string(payload_key) + " must be a non-empty string array");
  const Value* dt = data.Find("dt");
  if (!dt->is_array()) return Malformed(tag, "dt must be an array of safe integers");
  for (const Value& gap : dt->as_array()) {
    if (!gap.is_safe_integer()) return Malformed(tag, "dt must be an array of safe integers");
  }
  const auto members = static_cast<int64_t>(payload->as_array().size());
  if (static_cast<int64_t>(dt->as_array().size()) != members - 1) {
    return Malformed(tag, "dt length " + std::to_string(dt->as_array().size()) + " does not match " +
                              std::to_string(members) + " members");
  }
  constexpr int64_t kMaxSafeInt = 9007199254740991;
  out.seq0 = static_cast<int64_t>(seq0->as_number());
  if (out.seq0 + members - 1 > kMaxSafeInt) return Malformed(tag, "member seqs must stay safe integers");
  out.time0 = static_cast<int64_t>(time0->as_number());
  out.count = members;
  out.times.reserve(static_cast<size_t>(members));
  int64_t time = out.time0;
  out.times.push_back(time);
  for (const Value& gap : dt->as_array()) {
    time += static_cast<int64_t>(gap.as_number());
    if (time > kMaxSafeInt || time < -kMaxSafeInt) return Malformed(tag, "member times must stay safe integers");
    out.times.push_back(time);
  }
  out.turn = *data.Find("turn");
  out.step = *data.Find("step");
  return out;
}

std::vector<log::EventRecord> ExpandPackedRow(const Value& row, const PackedRow& p) {
  const Value& data = *row.Find("data");
  const bool tool = p.tag == "tool-call-chunks";
  const Value& payload = *data.Find(tool ? "args" : "texts");
  std::vector<log::EventRecord> out;
  out.reserve(static_cast<size_t>(p.count));
  for (int64_t k = 0; k < p.count; ++k) {
    Value chunk = Value::MakeObject();
    auto& c = chunk.as_object();
    if (tool) {
      c.emplace_back("type", "tool-call-delta");
      c.emplace_back("index", *data.Find("index"));
      c.emplace_back("id", *data.Find("id"));
      if (const Value* name = data.Find("name")) c.emplace_back("name", *name);
      c.emplace_back("argumentsDelta", payload.as_array()[static_cast<size_t>(k)]);
    } else {
      c.emplace_back("type", p.tag == "text-chunks" ? "text-delta" : "reasoning-delta");
      c.emplace_back("index", *data.Find("index"));
      c.emplace_back("text", payload.as_array()[static_cast<size_t>(k)]);
    }
    log::Event e;
    e.type = log::kAssistantChunk;
    e.seq = p.seq0 + k;
    e.time = p.times[static_cast<size_t>(k)];
    e.data = Value::MakeObject({{"turn", p.turn}, {"step", p.step}, {"chunk", std::move(chunk)}});
    out.push_back(log::MakeRecord(std::move(e)));
  }
  return out;
}

Result<std::vector<log::EventRecord>> DecodeChunkRow(const Value& row) {
  ASSIGN_OR_RETURN(PackedRow parsed, ParsePackedRow(row));
  return ExpandPackedRow(row, parsed);
}

Result<std::vector<log::EventRecord>> DecodeStoredChunkRow(std::string_view text, int64_t seq0) {
  auto parsed = json::Parse(text);
  auto members = parsed.ok() ? DecodeChunkRow(*parsed) : Result<std::vector<log::EventRecord>>(parsed.status());
  if (!members.ok()) return Status::Corruption("stored packed row at seq " + std::to_string(seq0) + ": " + members.status().message());
  return members;
}

namespace {

// The row kind of a packable delta event, or "" (dsh's whitelist: exact keys).
std::string_view PackKind(const log::Event& e) {
  if (e.type != log::kAssistantChunk || e.ignorable || e.surface_op || e.source_event_seqs) return "";
  if (!HasExactKeys(e.data, {"turn", "step", "chunk"}) || !e.data.Find("turn")->is_number() ||
      !e.data.Find("step")->is_number()) {
    return "";
  }
  const Value& c = *e.data.Find("chunk");
  const Value* type = c.Find("type");
  if (type == nullptr || !type->is_string() || !c.Find("index") || !c.Find("index")->is_number()) return "";
  const std::string& t = type->as_string();
  if (t == "text-delta" || t == "reasoning-delta") {
    return HasExactKeys(c, {"type", "index", "text"}) && c.Find("text")->is_string()
               ? (t == "text-delta" ? "text-chunks" : "reasoning-chunks") : "";
  }
  if (t != "tool-call-delta") return "";
  const bool shape = HasExactKeys(c, {"type", "index", "id", "argumentsDelta"}) ||
                     (HasExactKeys(c, {"type", "index", "id", "name", "argumentsDelta"}) && c.Find("name")->is_string());
  return shape && c.Find("id")->is_string() && c.Find("argumentsDelta")->is_string() ? "tool-call-chunks" : "";
}

bool Continues(const log::Event& prev, const log::Event& next, std::string_view kind) {
  if (next.seq != prev.seq + 1) return false;
  if (std::abs(static_cast<double>(next.time) - static_cast<double>(prev.time)) > kMaxSafe) return false;
  if (!(*next.data.Find("turn") == *prev.data.Find("turn")) || !(*next.data.Find("step") == *prev.data.Find("step"))) {
    return false;
  }
  const Value& a = *prev.data.Find("chunk");
  const Value& b = *next.data.Find("chunk");
  if (!(*a.Find("index") == *b.Find("index"))) return false;
  if (kind != "tool-call-chunks") return true;
  const Value* an = a.Find("name");
  const Value* bn = b.Find("name");
  return *a.Find("id") == *b.Find("id") && (an == nullptr) == (bn == nullptr) && (an == nullptr || *an == *bn);
}

std::string BuildRow(std::string_view kind, std::span<const log::EventRecord> run) {
  const log::Event& first = run.front().event;
  const Value& chunk = *first.data.Find("chunk");
  Value::Array dt, payload;
  for (size_t i = 0; i < run.size(); ++i) {
    if (i > 0) dt.emplace_back(run[i].event.time - run[i - 1].event.time);
    const Value& c = *run[i].event.data.Find("chunk");
    payload.push_back(*c.Find(kind == "tool-call-chunks" ? "argumentsDelta" : "text"));
  }
  Value data = Value::MakeObject({{"turn", *first.data.Find("turn")}, {"step", *first.data.Find("step")},
                                  {"index", *chunk.Find("index")}, {"dt", std::move(dt)}});
  if (kind == "tool-call-chunks") {
    data.Set("id", *chunk.Find("id"));
    if (const Value* name = chunk.Find("name")) data.Set("name", *name);
    data.Set("args", std::move(payload));
  } else {
    data.Set("texts", std::move(payload));
  }
  return json::Serialize(Value::MakeObject(
      {{"type", std::string(kind)}, {"seq0", first.seq}, {"time0", first.time}, {"data", std::move(data)}}));
}

}  // namespace

std::vector<std::string> PackChunkRuns(std::span<const log::EventRecord> batch) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < batch.size()) {
    const std::string_view kind = PackKind(batch[i].event);
    size_t j = i + 1;
    if (!kind.empty()) {
      while (j < batch.size() && PackKind(batch[j].event) == kind && Continues(batch[j - 1].event, batch[j].event, kind)) ++j;
    }
    if (!kind.empty() && j - i >= kMinRun) {
      out.push_back(BuildRow(kind, batch.subspan(i, j - i)));
    } else {
      for (size_t k = i; k < j; ++k) out.push_back(batch[k].text);
    }
    i = j;
  }
  return out;
}

bool IsChunkRowTag(std::string_view type) {
  return type == "text-chunks" || type == "reasoning-chunks" || type == "tool-call-chunks";
}


}  // namespace retrace::format
