// JavaScript string semantics the tools must reproduce exactly
// (dsh-reference-tools.md §0, C1 and C6): UTF-16 lengths and cuts, JS
// whitespace for "blank", and TextDecoder's strict UTF-8.
#ifndef RETRACE_TOOLS_JS_TEXT_H_
#define RETRACE_TOOLS_JS_TEXT_H_

#include <optional>
#include <string>
#include <string_view>

namespace retrace::tools {

// The first `units` UTF-16 code units of a WTF-8 string, as JS .slice(0, n)
// cuts it: a surrogate pair cut in half leaves its high surrogate.
std::string Utf16Prefix(std::string_view wtf8, size_t units);

// s.length: the UTF-16 length of a UTF-8 string.
size_t Utf16Length(std::string_view s);

// s.trim().length === 0, with JS's WhiteSpace and LineTerminator set
// (including U+00A0, U+FEFF, U+2028/U+2029 and the Zs category).
bool IsJsBlank(std::string_view s);

// new TextDecoder("utf-8", {fatal: true}).decode(bytes): a leading BOM is
// dropped; nullopt when the bytes are not UTF-8.
std::optional<std::string> DecodeUtf8Strict(std::string bytes);

// Buffer.toString("utf8"): every maximal ill-formed subpart becomes one
// U+FFFD (WHATWG decoding), a BOM is kept. Used for process output.
std::string DecodeUtf8Lossy(std::string_view bytes);

}  // namespace retrace::tools

#endif  // RETRACE_TOOLS_JS_TEXT_H_
