// The JSON parser and writer: whatever the parser accepts, the writer writes
// text the parser takes back to the same text (a fixed point), and the fast
// parser (simdjson, with retrace's own as the fallback) agrees with the
// reference parser value for value. A line the fast parser reads straight
// as an event or a packed row is one log::EventFromJson or ParsePackedRow
// accepts, to the same fields; its data, written with the texts its
// containers kept from the parse, is what the reference value writes; read,
// it equals the reference value (an array left unbuilt is built from its
// text), and json::kept reads every kept array's text item by item as the
// built items write.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "engine/json/kept_reader.h"
#include "engine/json/parser.h"
#include "engine/json/writer.h"
#include "engine/log/event.h"
#include "format/chunk_rows.h"
#include "format/fast_json_parser.h"

using retrace::Result;
using retrace::json::Value;

namespace {

// Every kept array's text, read in place, is its items as written, an object
// item split into its members as written.
void CheckKeptReads(const Value& v) {
  if (v.is_array()) {
    if (const std::string_view kept = v.kept_text(); !kept.empty()) {
      size_t i = 0;
      const bool whole = retrace::json::kept::ForEachItem(kept, [&](std::string_view item, auto members) {
        if (i >= v.as_array().size() || item != retrace::json::Serialize(v.as_array()[i])) std::abort();
        const Value& built = v.as_array()[i++];
        if (built.is_object() && members.size() != built.as_object().size()) std::abort();
        for (size_t m = 0; m < members.size(); ++m) {
          if (members[m].second != retrace::json::Serialize(built.as_object()[m].second)) std::abort();
        }
        return true;
      });
      if (!whole || i != v.as_array().size()) std::abort();
    }
    for (const Value& item : v.as_array()) CheckKeptReads(item);
  } else if (v.is_object()) {
    for (const auto& [key, member] : v.as_object()) CheckKeptReads(member);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  static retrace::format::FastJsonParser fast;
  fast.set_keep_texts(true);  // so that the data written below copies every kept text
  Result<Value> reference = retrace::json::Parse(text);
  Result<Value> quick = fast.Parse(text);
  if (reference.ok() != quick.ok()) std::abort();  // the two parsers disagree on acceptance
  if (!reference.ok()) return 0;
  const std::string once = retrace::json::Serialize(*reference);
  if (retrace::json::Serialize(*quick) != once) std::abort();  // ... or on the value
  Result<Value> again = retrace::json::Parse(once);
  if (!again.ok()) std::abort();  // the writer wrote what the parser refuses
  if (retrace::json::Serialize(*again) != once) std::abort();  // not a fixed point
  auto line = fast.ParseLine(text, nullptr);
  if (!line.ok()) std::abort();
  if (line->event) {  // read straight: the general road reads the same event
    auto event = retrace::log::EventFromJson(*reference);
    if (!event.ok() || event->type != line->event->type || event->seq != line->event->seq ||
        event->time != line->event->time || retrace::json::Serialize(event->data) != retrace::json::Serialize(line->event->data) ||
        event->source_event_seqs != line->event->source_event_seqs || event->surface_op != line->event->surface_op ||
        event->ignorable != line->event->ignorable || !(event->data == line->event->data)) {
      std::abort();
    }
    CheckKeptReads(line->event->data);
  } else if (line->packed) {
    auto row = retrace::format::ParsePackedRow(*reference);
    if (!row.ok() || row->tag != line->packed->tag || row->seq0 != line->packed->seq0 || row->times != line->packed->times ||
        row->count != line->packed->count || !(row->turn == line->packed->turn) || !(row->step == line->packed->step)) {
      std::abort();
    }
  }
  return 0;
}
