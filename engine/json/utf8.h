// UTF-8 / WTF-8 helpers shared by the JSON parser and writer.
#ifndef RETRACE_ENGINE_JSON_UTF8_H_
#define RETRACE_ENGINE_JSON_UTF8_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace retrace::json {

// Length (2..4) of the strictly valid UTF-8 sequence starting at s[0] (whose
// first byte is >= 0x80), or 0 if it is invalid: overlong forms, encoded
// surrogates, code points above U+10FFFF and truncated sequences are invalid.
size_t ValidUtf8SequenceLength(std::string_view s);

// Appends a code point (or a lone surrogate, giving WTF-8) as UTF-8 bytes.
void AppendCodePoint(std::string& out, uint32_t cp);

}  // namespace retrace::json

#endif  // RETRACE_ENGINE_JSON_UTF8_H_
