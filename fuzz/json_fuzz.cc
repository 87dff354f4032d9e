// The JSON parser and writer: whatever the parser accepts, the writer writes
// text the parser takes back to the same text (a fixed point), and the fast
// parser (simdjson, with retrace's own as the fallback) agrees with the
// reference parser value for value. A line the fast parser reads straight
// as an event or a packed row is one log::EventFromJson or ParsePackedRow
// accepts, to the same fields; its data, written with the texts its
// containers kept from the parse, is what the reference value writes.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "engine/json/parser.h"
#include "engine/json/writer.h"
#include "engine/log/event.h"
#include "format/chunk_rows.h"
#include "format/fast_json_parser.h"

using retrace::Result;
using retrace::json::Value;

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
        event->ignorable != line->event->ignorable) {
      std::abort();
    }
  } else if (line->packed) {
    auto row = retrace::format::ParsePackedRow(*reference);
    if (!row.ok() || row->tag != line->packed->tag || row->seq0 != line->packed->seq0 || row->times != line->packed->times ||
        row->count != line->packed->count || !(row->turn == line->packed->turn) || !(row->step == line->packed->step)) {
      std::abort();
    }
  }
  return 0;
}
