// retrace acp's session updates (frontends/acp/session_updates.h) from any transcript
// row: the cards in a stored log are whatever its writer put there, and an
// update the SDK cannot keep is dropped without a word. Every update must be
// one line of valid JSON with ACP's enum values and locations.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "frontends/acp/session_updates.h"
#include "engine/json/parser.h"
#include "engine/json/writer.h"

namespace {

using retrace::json::Value;

void Check(const Value& update) {
  const std::string text = retrace::json::Serialize(update);
  if (text.find('\n') != std::string::npos || !retrace::json::Parse(text).ok()) std::abort();
  const Value* tag = update.Find("sessionUpdate");
  if (!tag || !tag->is_string()) std::abort();
  if (const Value* kind = update.Find("kind"); kind && !(kind->is_string() && retrace::acp::IsToolKind(kind->as_string()))) {
    std::abort();
  }
  if (const Value* status = update.Find("status")) {
    const std::string s = status->is_string() ? status->as_string() : "";
    if (s != "pending" && s != "in_progress" && s != "completed" && s != "failed") std::abort();
  }
  if (const Value* locations = update.Find("locations")) {
    for (const Value& loc : locations->as_array()) {
      const Value* path = loc.Find("path");
      if (!path || !path->is_string() || path->as_string().empty() || path->as_string()[0] != '/') std::abort();
      if (const Value* line = loc.Find("line")) {
        const double d = line->as_number();
        if (d < 0 || d > 4294967295.0 || std::floor(d) != d) std::abort();
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  retrace::Result<Value> row = retrace::json::Parse(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!row.ok()) return 0;
  for (bool terminal : {false, true}) {
    retrace::acp::RowUpdates(*row, {"/w", terminal}, Check);
  }
  return 0;
}
