#include "format/fast_json_parser.h"

#include <simdjson.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

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

// A plain event's data converted from the tape of simdjson's DOM parse (its
// layout: simdjson's doc/tape.md).
//
// Asked to keep texts (FastJsonParser::set_keep_texts), it first walks the
// data's tape in step with the tokens that stage 1 found (the parser's
// structural indexes, the byte offset of each). The offsets of a container's
// first and last tokens show, without another pass over the bytes, whether
// its text is what json::AppendSerialized writes for it: its size is then the
// sum of what the writer writes for each token (no whitespace, no escape in
// a string, an integer in the writer's digits), and it has no repeated or
// index key. Such a container of at least kKeepBytes keeps its text
// (json::Value::KeepText), and writing it again is a copy; such an array is
// not even built (json::Value::UnbuiltArray) until something reads its
// items. One per parsed line, read before the parser's next parse.
//
// simdjson 3.0's structural indexes are public but documented for its own
// benchmarks: the static_assert below pins the version this is written for.
static_assert(simdjson::SIMDJSON_VERSION_MAJOR == 3, "the tape walk follows simdjson 3's tape and structural indexes");

class TapeReader {
 public:
  static constexpr size_t kKeepBytes = 256;
  // A container that keeps its text: where it is on the tape and in the line.
  struct Span {
    size_t t, begin, size;
    json::KeptText kept;
  };
  // What keeping texts works with, kept by the parser from line to line.
  struct Scratch {
    std::vector<Span> spans;
    std::vector<std::string_view> keys;  // of the objects being scanned, outermost first
  };

  // A line shorter than kKeepBytes has no container to keep.
  TapeReader(const simdjson::dom::parser& parser, std::string_view text, bool keep, Scratch& scratch)
      : tape_(parser.doc.tape.get()),
        strings_(parser.doc.string_buf.get()),
        at_(parser.implementation->structural_indexes.get()),
        text_(text),
        keep_(keep && text.size() >= kKeepBytes),
        spans_(scratch.spans),
        keys_(scratch.keys) {}

  char Tag(size_t t) const { return static_cast<char>(tape_[t] >> 56); }
  // For '{' and '[': the tape index just past the matching close.
  size_t After(size_t t) const {
    const char tag = Tag(t);
    if (tag == '{' || tag == '[') return static_cast<uint32_t>(tape_[t]);
    return tag == 'l' || tag == 'u' || tag == 'd' ? t + 2 : t + 1;
  }
  std::string_view String(size_t t) const {
    const uint8_t* at = strings_ + (tape_[t] & kPayload);
    uint32_t size = 0;
    std::memcpy(&size, at, sizeof size);
    return {reinterpret_cast<const char*>(at + sizeof size), size};
  }
  int64_t Int(size_t t) const { return static_cast<int64_t>(tape_[t + 1]); }

  // Moves t past the value at tape index t and s past its tokens, counting
  // commas and colons from each container's count: for the envelope's members.
  void Skip(size_t& t, uint32_t& s) {
    const size_t end = After(t);
    for (; t < end; t = Tag(t) == 'l' || Tag(t) == 'u' || Tag(t) == 'd' ? t + 2 : t + 1) {
      ++s;  // every tape entry but a number's second word is one token
      const char tag = Tag(t);
      if (tag == '{' || tag == '[') {
        const auto n = static_cast<uint32_t>((tape_[t] >> 32) & kCountMask);
        if (n == kCountMask) keep_ = false;  // the count saturates: the tokens that follow are not known
        if (n > 0) s += tag == '{' ? 2 * n - 1 : n - 1;
      }
    }
  }

  // The value at tape index t, whose first token is s.
  Value Convert(size_t t, uint32_t s) {
    spans_.clear();
    next_span_ = 0;
    if (keep_) {
      size_t scan_t = t;
      Scan(scan_t, s);
      ShareTexts();
    }
    Value v = Read(t);
    spans_.clear();  // the texts of spans Read skipped go now, not with the next line
    return v;
  }

 private:
  static constexpr uint64_t kPayload = 0x00FFFFFFFFFFFFFFULL;
  static constexpr uint32_t kCountMask = 0xFFFFFF;
  static constexpr size_t kPairwiseKeys = 16;  // more keys are checked for repeats by sorting
  // The characters the writer writes for an integer read as one (0: none
  // that can be trusted, so its container keeps no text).
  static uint32_t IntLength(int64_t v) {
    if (v <= -1000000000000000 || v >= 1000000000000000) return 0;  // the writer's integer form ends at 1e15
    uint32_t n = v < 0 ? 2 : 1;
    for (uint64_t m = v < 0 ? static_cast<uint64_t>(-v) : static_cast<uint64_t>(v); m >= 10; m /= 10) ++n;
    return n;
  }

  // True when a key in keys_[from...] is there twice.
  bool Repeats(size_t from) {
    const auto first = keys_.begin() + static_cast<std::ptrdiff_t>(from);
    if (keys_.size() - from <= kPairwiseKeys) {
      for (auto i = first; i != keys_.end(); ++i) {
        if (std::find(i + 1, keys_.end(), *i) != keys_.end()) return true;
      }
      return false;
    }
    std::sort(first, keys_.end());
    return std::adjacent_find(first, keys_.end()) != keys_.end();
  }

  // Walks the value at t (first token s) without building it: moves t past
  // it and s to its last token, and records each container's Span. Returns
  // the length of the writer's text for the value when the value is written
  // exactly so, else 0. A container's tokens are each at least as long as
  // the writer writes them (whitespace follows a token, an escape is longer
  // than its character, "-0" than 0), so its text is the writer's exactly
  // when their lengths add up to its size. Recursion is bounded by
  // simdjson's maximum depth.
  size_t Scan(size_t& t, uint32_t& s) {
    const char tag = Tag(t);
    switch (tag) {
      case '"': return String(t++).size() + 2;
      case 'l': {
        const uint32_t length = IntLength(Int(t));
        t += 2;
        return length;
      }
      case 'u':
      case 'd': t += 2; return 0;  // beyond int64, or not an integer: not the writer's digits
      case 't':
      case 'n': ++t; return 4;
      case 'f': ++t; return 5;
      default: return ScanContainer(t, s, tag == '{');
    }
  }

  size_t ScanContainer(size_t& t, uint32_t& s, bool object) {
    const size_t close = static_cast<uint32_t>(tape_[t]) - 1;
    const size_t open_t = t;
    const uint32_t open = s;
    const size_t keys_from = keys_.size();  // this object's keys follow its ancestors'
    bool canonical = true;
    size_t length = 2;  // the brackets
    uint32_t next = open + 1;  // the token after the previous one
    ++t;
    while (t < close) {
      if (object) {
        const std::string_view key = String(t++);
        // An index key would be moved first (json/value.h).
        canonical = canonical && !(!key.empty() && key[0] >= '0' && key[0] <= '9' && json::IsArrayIndexKey(key));
        if (canonical) keys_.push_back(key);
        length += key.size() + 3;  // its quotes and the colon
        next += 2;
      }
      s = next;
      const size_t item = Scan(t, s);
      canonical = canonical && item != 0;
      length += item;
      next = s + 1;
      if (t < close) {  // a comma
        ++next;
        ++length;
      }
    }
    s = next;  // the close
    ++t;
    const size_t begin = at_[open], size = at_[s] + 1 - begin;
    canonical = canonical && length == size && !(object && Repeats(keys_from));  // a repeated key is merged when built
    keys_.resize(keys_from);
    if (canonical && size >= kKeepBytes) spans_.push_back({open_t, begin, size, {}});
    return canonical ? size : 0;
  }

  // Puts the spans in tape order (Scan finds children first) and gives
  // each its text: a slice of one copy of its outermost keeping ancestor's.
  void ShareTexts() {
    std::sort(spans_.begin(), spans_.end(), [](const Span& a, const Span& b) { return a.t < b.t; });
    std::shared_ptr<const std::string> outer;
    size_t outer_begin = 0;
    for (Span& sp : spans_) {
      if (!outer || sp.begin >= outer_begin + outer->size()) {
        outer = std::make_shared<const std::string>(text_.substr(sp.begin, sp.size));
        outer_begin = sp.begin;
      }
      sp.kept = {outer, std::string_view(*outer).substr(sp.begin - outer_begin, sp.size)};
    }
  }

  // Builds the value at t and moves t past it; a container finds its span,
  // if it has one, next in tape order.
  Value Read(size_t& t) {
    const char tag = Tag(t);
    switch (tag) {
      case '"': return Value(String(t++));
      case 'l': {
        const int64_t v = Int(t);
        t += 2;
        return Value(static_cast<double>(v));
      }
      case 'u': {
        const auto v = static_cast<uint64_t>(tape_[t + 1]);
        t += 2;
        return Value(static_cast<double>(v));
      }
      case 'd': {
        double d = 0;
        std::memcpy(&d, &tape_[t + 1], sizeof d);
        t += 2;
        return Value(d);
      }
      case 't': ++t; return Value(true);
      case 'f': ++t; return Value(false);
      case 'n': ++t; return Value();
      default: return ReadContainer(t, tag == '{');
    }
  }

  Value ReadContainer(size_t& t, bool object) {
    Span* span = next_span_ < spans_.size() && spans_[next_span_].t == t ? &spans_[next_span_++] : nullptr;
    if (span && !object) {  // written again, or read later if at all
      t = After(t);
      while (next_span_ < spans_.size() && spans_[next_span_].t < t) ++next_span_;  // its descendants'
      return Value::UnbuiltArray(std::move(span->kept));
    }
    Value v = object ? ReadMembers(t) : ReadItems(t);
    if (span) v.KeepText(std::move(span->kept));
    return v;
  }

  // The object or array at t (its children built); moves t past its close.
  Value ReadMembers(size_t& t) {
    const size_t close = static_cast<uint32_t>(tape_[t]) - 1;
    Value::Object members;
    members.reserve(static_cast<size_t>((tape_[t] >> 32) & kCountMask));  // the count may saturate: a hint only
    for (++t; t < close;) {
      const std::string_view key = String(t++);
      Value member = Read(t);
      members.emplace_back(std::string(key), std::move(member));
    }
    ++t;
    return Value::MakeObject(std::move(members));
  }
  Value ReadItems(size_t& t) {
    const size_t close = static_cast<uint32_t>(tape_[t]) - 1;
    Value::Array items;
    items.reserve(static_cast<size_t>((tape_[t] >> 32) & kCountMask));
    for (++t; t < close;) items.push_back(Read(t));
    ++t;
    return Value(std::move(items));
  }

  const uint64_t* tape_;
  const uint8_t* strings_;
  const uint32_t* at_;
  std::string_view text_;
  bool keep_;
  std::vector<Span>& spans_;
  std::vector<std::string_view>& keys_;
  size_t next_span_ = 0;
};

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
std::optional<log::Event> ReadPlainEvent(TapeReader& tape, const std::function<bool(std::string_view)>* need) {
  if (tape.Tag(1) != '{') return std::nullopt;  // tape[0] is the root; the line's value starts at 1
  const size_t close = tape.After(1) - 1;
  log::Event e;
  size_t t = 2;
  uint32_t s = 1;  // tokens: the first key (0 is the '{')
  size_t data_t = 0;
  uint32_t data_s = 0;
  unsigned seen = 0;
  auto safe_integer = [&](int64_t& out) {
    if (tape.Tag(t) != 'l') return false;
    const int64_t v = tape.Int(t);
    if (v > kMaxSafe || v < -kMaxSafe) return false;
    out = v;
    return true;
  };
  while (t < close) {
    const unsigned key = EnvelopeKeyOf(tape.String(t));
    if (key == 0 || (seen & key) != 0) return std::nullopt;  // unknown or repeated: the general road names it
    seen |= key;
    ++t;
    s += 2;  // the key and its colon
    switch (key) {
      case kType: {
        if (tape.Tag(t) != '"') return std::nullopt;
        const std::string_view type = tape.String(t);
        if (IsChunkRowTag(type)) return std::nullopt;
        e.type = type;
        break;
      }
      case kSeq:
        if (!safe_integer(e.seq) || e.seq < 0) return std::nullopt;
        break;
      case kTime:
        if (!safe_integer(e.time)) return std::nullopt;
        break;
      case kData:
        data_t = t;
        data_s = s;
        break;
      case kSources: {
        if (tape.Tag(t) != '[') return std::nullopt;
        std::vector<int64_t>& out = e.source_event_seqs.emplace();
        const size_t end = tape.After(t) - 1;
        for (size_t i = t + 1; i < end; i = tape.After(i)) {
          int64_t n = 0;
          if (tape.Tag(i) != 'l' || (n = tape.Int(i)) > kMaxSafe || n < 0) return std::nullopt;
          out.push_back(n);
        }
        break;
      }
      case kSurface:
        if (tape.Tag(t) != '"' || tape.String(t) != "append") return std::nullopt;  // a replace takes the general road
        e.surface_op = log::SurfaceOp{};
        break;
      default:  // kIgnorable
        if (tape.Tag(t) != 't') return std::nullopt;
        e.ignorable = true;
    }
    if (key == kData || data_t != 0) {
      t = tape.After(t);  // only the data's tokens are looked at: the count of those after it is not needed
    } else {
      tape.Skip(t, s);
      ++s;  // the comma
    }
  }
  if ((seen & kRequiredKeys) != kRequiredKeys) return std::nullopt;
  if (need == nullptr || (*need)(e.type)) e.data = tape.Convert(data_t, data_s);
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
  bool keep_texts = false;
  TapeReader::Scratch scratch;  // reused from line to line

  // False when simdjson refuses `text` (json::Parse then has the verdict).
  // realloc_if_needed: unless padded, the text is copied into a padded buffer.
  bool Parse(std::string_view text, bool padded, simdjson::dom::element& doc) {
    return parser.parse(text.data(), text.size(), !padded).get(doc) == simdjson::SUCCESS;
  }
};

FastJsonParser::FastJsonParser() : impl_(std::make_unique<Impl>()) {}
FastJsonParser::~FastJsonParser() = default;

void FastJsonParser::set_keep_texts(bool keep) { impl_->keep_texts = keep; }

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
  TapeReader tape(impl_->parser, text, impl_->keep_texts, impl_->scratch);
  line.event = ReadPlainEvent(tape, need);
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
  TapeReader tape(impl_->parser, text, impl_->keep_texts, impl_->scratch);
  if (std::optional<log::Event> event = ReadPlainEvent(tape, nullptr)) return std::move(*event);
  return log::EventFromJson(Convert(doc));
}

}  // namespace retrace::format
