// FastJsonParser: JSON text → json::Value through simdjson's validating DOM
// parser (several times faster than json::Parse), for the import hot path.
//
// simdjson refuses a few inputs json::Parse accepts (lone surrogate escapes,
// integers beyond 64 bits, nesting deeper than 1024); those fall back to
// json::Parse, whose verdict and error messages are authoritative. The
// resulting Value is the same as json::Parse's (checked by a differential
// test), except that "-0" reads as 0: both compare equal and serialize as "0".
// Not thread-safe: one parser per thread.
#ifndef RETRACE_STORE_FAST_JSON_PARSER_H_
#define RETRACE_STORE_FAST_JSON_PARSER_H_

#include <memory>
#include <string_view>

#include "engine/base/status.h"
#include "engine/json/value.h"

namespace retrace::store {

class FastJsonParser {
 public:
  FastJsonParser();
  ~FastJsonParser();
  FastJsonParser(const FastJsonParser&) = delete;
  FastJsonParser& operator=(const FastJsonParser&) = delete;

  Result<json::Value> Parse(std::string_view text);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace retrace::store

#endif  // RETRACE_STORE_FAST_JSON_PARSER_H_
