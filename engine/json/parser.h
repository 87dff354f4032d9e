// Strict JSON text → json::Value, with JavaScript JSON.parse semantics.
//
// Accepts exactly RFC 8259 JSON (no comments, no trailing commas, no NaN).
// Strings must be valid UTF-8; \u escapes may produce lone surrogates, which
// are kept (WTF-8, see value.h). Numbers outside the double range (1e400) are
// refused rather than turned into Infinity, because Infinity is not lossless —
// unless the caller asks for JSON.parse's Infinity (ParseOptions), as the
// tool runtime does for model arguments so it can refuse them the way dsh does.
// Parsing is iterative: nesting depth is limited only by memory.
#ifndef RETRACE_ENGINE_JSON_PARSER_H_
#define RETRACE_ENGINE_JSON_PARSER_H_

#include <string_view>

#include <retrace/engine/base/status.h>
#include <retrace/engine/json/value.h>

namespace retrace::json {

// Parses one complete JSON text (surrounding whitespace allowed). The error
// message names the byte offset: "invalid JSON at byte 17: expected ':'".
struct ParseOptions {
  bool overflow_to_infinity = false;
};
Result<Value> Parse(std::string_view text, ParseOptions options = {});

}  // namespace retrace::json

#endif  // RETRACE_ENGINE_JSON_PARSER_H_
