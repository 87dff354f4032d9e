#include "format/fast_json_parser.h"

#include <simdjson.h>

#include "engine/json/parser.h"
#include "format/chunk_rows.h"
#include "format/line_source.h"

namespace retrace::format {
namespace {

using json::Value;

constexpr int64_t kMaxSafe = 9007199254740991;  // Number.MAX_SAFE_INTEGER

// Recursion is bounded by simdjson's maximum depth (1024). With `blank`,
// strings convert as "" (kinds and structure are kept, contents are not).
Value Convert(simdjson::dom::element el, bool blank = false) {
  switch (el.type()) {
    case simdjson::dom::element_type::OBJECT: {
      const simdjson::dom::object obj(el);
      Value::Object members;
      members.reserve(obj.size());
      for (auto field : obj) members.emplace_back(std::string(field.key), Convert(field.value, blank));
      return Value::MakeObject(std::move(members));
    }
    case simdjson::dom::element_type::ARRAY: {
      Value::Array a;
      const simdjson::dom::array arr(el);
      a.reserve(arr.size());
      for (simdjson::dom::element child : arr) a.push_back(Convert(child, blank));
      return Value(std::move(a));
    }
    case simdjson::dom::element_type::STRING:
      return blank ? Value(std::string()) : Value(std::string_view(el.get_string().value_unsafe()));
    case simdjson::dom::element_type::INT64: return Value(static_cast<double>(el.get_int64().value_unsafe()));
    case simdjson::dom::element_type::UINT64: return Value(static_cast<double>(el.get_uint64().value_unsafe()));
    case simdjson::dom::element_type::DOUBLE: return Value(el.get_double().value_unsafe());
    case simdjson::dom::element_type::BOOL: return Value(el.get_bool().value_unsafe());
    case simdjson::dom::element_type::NULL_VALUE: return Value();
  }
  return Value();
}

// The general road's value of a line when `need` may refuse its type
// (FastJsonParser::ParseLine says how).
Value ConvertUnlessNeeded(simdjson::dom::element doc, const std::function<bool(std::string_view)>& need) {
  std::string_view type;
  if (doc.type() != simdjson::dom::element_type::OBJECT || doc["type"].get(type) != simdjson::SUCCESS || need(type)) {
    return Convert(doc);
  }
  // A packed chunk row's data keeps its shape (the row checks read it); a
  // plain event's data is not looked at, so it is not converted at all.
  const bool packed = type.size() > 7 && type.substr(type.size() - 7) == "-chunks";
  const simdjson::dom::object envelope(doc);
  Value::Object members;
  members.reserve(envelope.size());
  for (auto field : envelope) {
    const bool data = field.key == "data";
    members.emplace_back(std::string(field.key), data && !packed ? Value() : Convert(field.value, data));
  }
  return Value::MakeObject(std::move(members));
}

// A safe integer written as one (what log::EventFromJson accepts as an
// integer and this path reads without a double: "5.0" or "5e0" take the general road).
bool SafeInteger(simdjson::dom::element el, int64_t& out) {
  if (el.type() != simdjson::dom::element_type::INT64) return false;
  const int64_t v = el.get_int64().value_unsafe();
  if (v > kMaxSafe || v < -kMaxSafe) return false;
  out = v;
  return true;
}

// The envelope's keys (log/event.h), a bit each.
enum EnvelopeKey : unsigned { kType = 1, kSeq = 2, kTime = 4, kData = 8, kSources = 16, kSurface = 32, kIgnorable = 64 };
constexpr unsigned kRequiredKeys = kType | kSeq | kTime | kData;

unsigned EnvelopeKeyOf(std::string_view key) {
  if (key == "type") return kType;
  if (key == "seq") return kSeq;
  if (key == "time") return kTime;
  if (key == "data") return kData;
  if (key == "sourceEventSeqs") return kSources;
  if (key == "surfaceOp") return kSurface;
  if (key == "ignorable") return kIgnorable;
  return 0;
}

// The plain event of the common envelope (FastJsonParser::ParseLine), or
// nullopt for the general road. Every value accepted here is one
// log::EventFromJson accepts alike.
std::optional<log::Event> ReadPlainEvent(simdjson::dom::element doc, const std::function<bool(std::string_view)>* need) {
  simdjson::dom::object envelope;
  if (doc.get(envelope) != simdjson::SUCCESS) return std::nullopt;
  log::Event e;
  simdjson::dom::element data;
  unsigned seen = 0;
  for (auto field : envelope) {
    const unsigned key = EnvelopeKeyOf(field.key);
    if (key == 0 || (seen & key) != 0) return std::nullopt;  // unknown or repeated: the general road names it
    seen |= key;
    const simdjson::dom::element v = field.value;
    switch (key) {
      case kType: {
        std::string_view type;
        if (v.get(type) != simdjson::SUCCESS || IsChunkRowTag(type)) return std::nullopt;
        e.type = type;
        break;
      }
      case kSeq:
        if (!SafeInteger(v, e.seq) || e.seq < 0) return std::nullopt;
        break;
      case kTime:
        if (!SafeInteger(v, e.time)) return std::nullopt;
        break;
      case kData: data = v; break;
      case kSources: {
        simdjson::dom::array seqs;
        if (v.get(seqs) != simdjson::SUCCESS) return std::nullopt;
        std::vector<int64_t>& out = e.source_event_seqs.emplace();
        out.reserve(seqs.size());
        for (simdjson::dom::element s : seqs) {
          int64_t n = 0;
          if (!SafeInteger(s, n) || n < 0) return std::nullopt;
          out.push_back(n);
        }
        break;
      }
      case kSurface: {
        std::string_view op;
        if (v.get(op) != simdjson::SUCCESS || op != "append") return std::nullopt;  // a replace takes the general road
        e.surface_op = log::SurfaceOp{};
        break;
      }
      default: {  // kIgnorable
        bool ignorable = false;
        if (v.get(ignorable) != simdjson::SUCCESS || !ignorable) return std::nullopt;
        e.ignorable = true;
      }
    }
  }
  if ((seen & kRequiredKeys) != kRequiredKeys) return std::nullopt;
  if (need == nullptr || (*need)(e.type)) e.data = Convert(data);
  return e;
}

// True when `obj` has each of `required` once, and otherwise only keys of
// `optional`, each once (a repeated key takes the general road).
bool HasExactKeys(simdjson::dom::object obj, std::initializer_list<std::string_view> required,
                  std::initializer_list<std::string_view> optional = {}) {
  uint32_t seen = 0;
  size_t found = 0;
  for (auto field : obj) {
    uint32_t bit = 1;
    bool known = false;
    for (std::string_view k : required) {
      if (field.key == k) {
        known = true;
        ++found;
        break;
      }
      bit <<= 1;
    }
    if (!known) {
      bit = 1u << required.size();
      for (std::string_view k : optional) {
        if (field.key == k) {
          known = true;
          break;
        }
        bit <<= 1;
      }
    }
    if (!known || (seen & bit) != 0) return false;
    seen |= bit;
  }
  return found == required.size();
}

// The row of a packed chunk line that passes every check of ParsePackedRow
// (chunk_rows.h), read straight from the parse; nullopt for anything else,
// which ParsePackedRow then names.
std::optional<PackedRow> ReadPackedRow(simdjson::dom::object row, std::string_view tag) {
  const bool tool = tag == "tool-call-chunks";
  simdjson::dom::object data;
  PackedRow out;
  if (!HasExactKeys(row, {"type", "seq0", "time0", "data"}) || !SafeInteger(row["seq0"].value_unsafe(), out.seq0) ||
      out.seq0 < 0 || !SafeInteger(row["time0"].value_unsafe(), out.time0) || row["data"].get(data) != simdjson::SUCCESS) {
    return std::nullopt;
  }
  if (tool) {
    const bool with_name = HasExactKeys(data, {"turn", "step", "index", "id", "name", "dt", "args"});
    if ((!with_name && !HasExactKeys(data, {"turn", "step", "index", "id", "dt", "args"})) ||
        !data["id"].value_unsafe().is_string() || (with_name && !data["name"].value_unsafe().is_string())) {
      return std::nullopt;
    }
  } else if (!HasExactKeys(data, {"turn", "step", "index", "dt", "texts"})) {
    return std::nullopt;
  }
  for (const char* k : {"turn", "step", "index"}) {
    if (!data[k].value_unsafe().is_number()) return std::nullopt;
  }
  simdjson::dom::array payload, dt;
  if (data[tool ? "args" : "texts"].get(payload) != simdjson::SUCCESS || payload.size() == 0 ||
      data["dt"].get(dt) != simdjson::SUCCESS) {
    return std::nullopt;
  }
  for (simdjson::dom::element s : payload) {
    if (!s.is_string()) return std::nullopt;
  }
  const auto members = static_cast<int64_t>(payload.size());
  if (static_cast<int64_t>(dt.size()) != members - 1 || out.seq0 + members - 1 > kMaxSafe) return std::nullopt;
  out.tag = tag;
  out.count = members;
  out.times.reserve(static_cast<size_t>(members));
  int64_t time = out.time0;
  out.times.push_back(time);
  for (simdjson::dom::element gap : dt) {
    int64_t step = 0;
    if (!SafeInteger(gap, step)) return std::nullopt;
    time += step;
    if (time > kMaxSafe || time < -kMaxSafe) return std::nullopt;
    out.times.push_back(time);
  }
  out.turn = Convert(data["turn"].value_unsafe());
  out.step = Convert(data["step"].value_unsafe());
  return out;
}

}  // namespace

struct FastJsonParser::Impl {
  simdjson::dom::parser parser;

  // False when simdjson refuses `text` (json::Parse then has the verdict).
  // realloc_if_needed: unless padded, the text is copied into a padded buffer.
  bool Parse(std::string_view text, bool padded, simdjson::dom::element& doc) {
    return parser.parse(text.data(), text.size(), !padded).get(doc) == simdjson::SUCCESS;
  }
};

FastJsonParser::FastJsonParser() : impl_(std::make_unique<Impl>()) {}
FastJsonParser::~FastJsonParser() = default;

static_assert(LineSource::kLinePadding >= simdjson::SIMDJSON_PADDING);

Result<Value> FastJsonParser::Parse(std::string_view text, bool padded) {
  simdjson::dom::element doc;
  if (!impl_->Parse(text, padded, doc)) return json::Parse(text);
  return Convert(doc);
}

Result<FastJsonParser::Line> FastJsonParser::ParseLine(std::string_view text,
                                                       const std::function<bool(std::string_view)>* need, bool padded) {
  simdjson::dom::element doc;
  Line line;
  if (!impl_->Parse(text, padded, doc)) {
    ASSIGN_OR_RETURN(line.value, json::Parse(text));
    return line;
  }
  line.event = ReadPlainEvent(doc, need);
  if (line.event) return line;
  std::string_view type;
  if (simdjson::dom::object row; doc.get(row) == simdjson::SUCCESS && row["type"].get(type) == simdjson::SUCCESS &&
                                 IsChunkRowTag(type)) {
    if ((line.packed = ReadPackedRow(row, type))) return line;
  }
  line.value = need != nullptr ? ConvertUnlessNeeded(doc, *need) : Convert(doc);
  return line;
}

Result<log::Event> FastJsonParser::ParseEvent(std::string_view text, bool padded) {
  simdjson::dom::element doc;
  if (!impl_->Parse(text, padded, doc)) {
    ASSIGN_OR_RETURN(Value value, json::Parse(text));
    return log::EventFromJson(std::move(value));
  }
  if (std::optional<log::Event> event = ReadPlainEvent(doc, nullptr)) return std::move(*event);
  return log::EventFromJson(Convert(doc));
}

}  // namespace retrace::format
