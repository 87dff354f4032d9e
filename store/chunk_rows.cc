#include "store/chunk_rows.h"

#include <initializer_list>
#include <string>

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
  explicit RowDecoder(const Value& row) : row_(row), tag_(row.Find("type")->as_string()) {}

  Result<std::vector<log::EventRecord>> Decode() {
    const bool tool = tag_ == "tool-call-chunks";
    if (!HasExactKeys(row_, {"type", "seq0", "time0", "data"})) return Malformed("row keys must be exactly type, seq0, time0, data");
    const Value& data = *row_.Find("data");
    const bool keys_ok = tool ? HasExactKeys(data, {"turn", "step", "index", "dt", "id", "args"}, {"name"})
                              : HasExactKeys(data, {"turn", "step", "index", "dt", "texts"});
    if (!keys_ok) return Malformed("unexpected data keys");
    const Value* seq0 = row_.Find("seq0");
    const Value* time0 = row_.Find("time0");
    if (!seq0->is_safe_integer() || seq0->as_number() < 0) return Malformed("seq0 must be a non-negative safe integer");
    if (!time0->is_safe_integer()) return Malformed("time0 must be a safe integer");
    for (const char* k : {"turn", "step", "index"})
      if (!data.Find(k)->is_number()) return Malformed(std::string(k) + " must be a number");
    const Value* payload = data.Find(tool ? "args" : "texts");
    if (!IsStringArray(payload)) return Malformed("payload must be a non-empty array of strings");
    if (tool && (!data.Find("id")->is_string() || (data.Find("name") != nullptr && !data.Find("name")->is_string())))
      return Malformed("id and name must be strings");
    const Value* dt = data.Find("dt");
    const size_t members = payload->as_array().size();
    if (!dt->is_array() || dt->as_array().size() != members - 1) return Malformed("dt must have one entry fewer than the payload");
    return Members(data, *payload, *dt, seq0->as_number(), time0->as_number(), tool);
  }

 private:
  Result<std::vector<log::EventRecord>> Members(const Value& data, const Value& payload, const Value& dt, double seq,
                                                double time, bool tool) {
    std::vector<log::EventRecord> out;
    out.reserve(payload.as_array().size());
    for (size_t k = 0; k < payload.as_array().size(); ++k) {
      if (k > 0) {
        const Value& gap = dt.as_array()[k - 1];
        if (!gap.is_safe_integer()) return Malformed("dt entries must be safe integers");
        time += gap.as_number();
        seq += 1;
      }
      if (seq > kMaxSafe || time > kMaxSafe || time < -kMaxSafe) return Malformed("reconstructed seq or time is not a safe integer");
      out.push_back(log::MakeRecord(Member(data, payload.as_array()[k], seq, time, tool)));
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
};

}  // namespace

bool IsChunkRowTag(std::string_view type) {
  return type == "text-chunks" || type == "reasoning-chunks" || type == "tool-call-chunks";
}

Result<std::vector<log::EventRecord>> DecodeChunkRow(const Value& row) { return RowDecoder(row).Decode(); }

}  // namespace retrace::store
