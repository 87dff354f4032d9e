#include "store/chunk_rows.h"

#include <cmath>
#include <initializer_list>
#include <string>

#include "engine/json/writer.h"

namespace retrace::store {
namespace {

using json::Value;

constexpr double kMaxSafe = 9007199254740991.0;

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
  for (const Value& s : v->as_array())
    if (!s.is_string()) return false;
  return true;
}

class RowDecoder {
 public:
  RowDecoder(const Value& row, bool with_text) : row_(row), tag_(row.Find("type")->as_string()), with_text_(with_text) {}

  // Checks in dsh's order, with dsh's texts (dsh-session chunk-rows validateRow).
  Result<std::vector<log::EventRecord>> Decode() {
    const bool tool = tag_ == "tool-call-chunks";
    if (!HasExactKeys(row_, {"type", "seq0", "time0", "data"})) return Malformed("envelope must be exactly {type, seq0, time0, data}");
    const Value* seq0 = row_.Find("seq0");
    const Value* time0 = row_.Find("time0");
    if (!seq0->is_safe_integer() || seq0->as_number() < 0) return Malformed("seq0 must be a non-negative safe integer");
    if (!time0->is_safe_integer()) return Malformed("time0 must be a safe integer");
    const Value& data = *row_.Find("data");
    if (!data.is_object()) return Malformed("data must be an object");
    if (tool) {
      const bool with_name = HasExactKeys(data, {"turn", "step", "index", "id", "name", "dt", "args"});
      if (!with_name && !HasExactKeys(data, {"turn", "step", "index", "id", "dt", "args"}))
        return Malformed("data must be exactly {turn, step, index, id, name?, dt, args}");
      if (!data.Find("id")->is_string() || (with_name && !data.Find("name")->is_string()))
        return Malformed("id (and name when present) must be strings");
    } else if (!HasExactKeys(data, {"turn", "step", "index", "dt", "texts"})) {
      return Malformed("data must be exactly {turn, step, index, dt, texts}");
    }
    for (const char* k : {"turn", "step", "index"})
      if (!data.Find(k)->is_number()) return Malformed("turn/step/index must be numbers");
    const char* payload_key = tool ? "args" : "texts";
    const Value* payload = data.Find(payload_key);
    if (!IsStringArray(payload)) return Malformed(std::string(payload_key) + " must be a non-empty string array");
    const Value* dt = data.Find("dt");
    if (!dt->is_array()) return Malformed("dt must be an array of safe integers");
    for (const Value& gap : dt->as_array())
      if (!gap.is_safe_integer()) return Malformed("dt must be an array of safe integers");
    const size_t members = payload->as_array().size();
    if (dt->as_array().size() != members - 1) {
      return Malformed("dt length " + std::to_string(dt->as_array().size()) + " does not match " +
                       std::to_string(members) + " members");
    }
    return Members(data, *payload, *dt, seq0->as_number(), time0->as_number(), tool);
  }

  Result<std::vector<log::EventRecord>> Members(const Value& data, const Value& payload, const Value& dt, double seq,
                                                double time, bool tool) {
    std::vector<log::EventRecord> out;
    out.reserve(payload.as_array().size());
    constexpr int64_t kMaxSafeInt = 9007199254740991;
    if (static_cast<int64_t>(seq) + static_cast<int64_t>(payload.as_array().size()) - 1 > kMaxSafeInt)
      return Malformed("member seqs must stay safe integers");
    for (size_t k = 0; k < payload.as_array().size(); ++k) {
      if (k > 0) {
        time += dt.as_array()[k - 1].as_number();
        seq += 1;
        if (time > kMaxSafe || time < -kMaxSafe) return Malformed("member times must stay safe integers");
      }
      log::Event member = Member(data, payload.as_array()[k], seq, time, tool);
      if (with_text_) {
        out.push_back(log::MakeRecord(std::move(member)));
      } else {
        out.push_back({std::move(member), std::string()});
      }
    }
    return out;
  }

  log::Event Member(const Value& data, const Value& text, double seq, double time, bool tool) const {
    Value chunk = Value::MakeObject();
    auto& c = chunk.as_object();
    if (tool) {
      c.emplace_back("type", "tool-call-delta");
      c.emplace_back("index", *data.Find("index"));
      c.emplace_back("id", *data.Find("id"));
      if (const Value* name = data.Find("name")) c.emplace_back("name", *name);
      c.emplace_back("argumentsDelta", text);
    } else {
      c.emplace_back("type", tag_ == "text-chunks" ? "text-delta" : "reasoning-delta");
      c.emplace_back("index", *data.Find("index"));
      c.emplace_back("text", text);
    }
    log::Event e;
    e.type = "assistant/chunk";
    e.seq = static_cast<int64_t>(seq);
    e.time = static_cast<int64_t>(time);
    e.data = Value::MakeObject({{"turn", *data.Find("turn")}, {"step", *data.Find("step")}, {"chunk", std::move(chunk)}});
    return e;
  }

  Status Malformed(const std::string& why) const {
    return Status::Corruption("malformed " + tag_ + " storage row: " + why);
  }

  const Value& row_;
  std::string tag_;
  bool with_text_;
};

// The row kind of a packable delta event, or "" (dsh's whitelist: exact keys).
std::string_view PackKind(const log::Event& e) {
  if (e.type != "assistant/chunk" || e.ignorable || e.surface_op || e.source_event_seqs) return "";
  if (!HasExactKeys(e.data, {"turn", "step", "chunk"}) || !e.data.Find("turn")->is_number() ||
      !e.data.Find("step")->is_number())
    return "";
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
  if (!(*next.data.Find("turn") == *prev.data.Find("turn")) || !(*next.data.Find("step") == *prev.data.Find("step")))
    return false;
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

Result<std::vector<log::EventRecord>> DecodeChunkRow(const Value& row, bool with_text) {
  return RowDecoder(row, with_text).Decode();
}

}  // namespace retrace::store
