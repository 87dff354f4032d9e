// The JSON parser and writer: whatever the parser accepts, the writer writes
// text the parser takes back to the same text (a fixed point), and the fast
// parser (simdjson, with retrace's own as the fallback) agrees with the
// reference parser value for value.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "engine/json/parser.h"
#include "engine/json/writer.h"
#include "format/fast_json_parser.h"

using retrace::Result;
using retrace::json::Value;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  static retrace::format::FastJsonParser fast;
  Result<Value> reference = retrace::json::Parse(text);
  Result<Value> quick = fast.Parse(text);
  if (reference.ok() != quick.ok()) std::abort();  // the two parsers disagree on acceptance
  if (!reference.ok()) return 0;
  const std::string once = retrace::json::Serialize(*reference);
  if (retrace::json::Serialize(*quick) != once) std::abort();  // ... or on the value
  Result<Value> again = retrace::json::Parse(once);
  if (!again.ok()) std::abort();  // the writer wrote what the parser refuses
  if (retrace::json::Serialize(*again) != once) std::abort();  // not a fixed point
  return 0;
}
