// JavaScript string semantics over WTF-8 text, the one decoder of it for
// every layer: code points, UTF-16 lengths and cuts, JS whitespace for trim
// and "blank", TextDecoder's strict UTF-8 and Buffer's lossy decoding. The
// tools must reproduce them exactly (dsh-reference-tools §0, C1 and
// C6), and so must the search text of the read model (dsh-session-log §10.2).
//
// Text from the parsers is valid WTF-8. Elsewhere a stray or truncated byte
// counts as one code point of its own (value: the byte), so that every
// function here agrees with every other on any input.
#ifndef RETRACE_ENGINE_JSON_JS_TEXT_H_
#define RETRACE_ENGINE_JSON_JS_TEXT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace retrace::json {

// The code point at byte `i` (a lone surrogate is one) and its byte length.
std::pair<uint32_t, size_t> CodePointAt(std::string_view text, size_t i);

// Code points in the text (a lone surrogate counts as one, as in JavaScript).
int64_t CodePointLength(std::string_view text);

// JavaScript's WhiteSpace and LineTerminator: what String.prototype.trim and /\s/u match.
bool IsJsSpace(uint32_t code_point);
// s.trim()
std::string_view JsTrim(std::string_view text);

// The first `units` UTF-16 code units of a WTF-8 string, as JS .slice(0, n)
// cuts it: a surrogate pair cut in half leaves its high surrogate.
std::string Utf16Prefix(std::string_view wtf8, size_t units);

// s.length: the UTF-16 length of a WTF-8 string.
size_t Utf16Length(std::string_view s);

// s.trim().length === 0, with JS's WhiteSpace and LineTerminator set
// (including U+00A0, U+FEFF, U+2028/U+2029 and the Zs category).
bool IsJsBlank(std::string_view s);

// The UTF-8 bytes Node writes for a string (Buffer.from(s), process.stdout):
// each lone surrogate becomes one U+FFFD.
std::string ToWellFormedUtf8(std::string_view wtf8);

// new TextDecoder("utf-8", {fatal: true}).decode(bytes): a leading BOM is
// dropped; nullopt when the bytes are not UTF-8.
std::optional<std::string> DecodeUtf8Strict(std::string bytes);

// Buffer.toString("utf8"): every maximal ill-formed subpart becomes one
// U+FFFD (WHATWG decoding), a BOM is kept. Used for process output.
std::string DecodeUtf8Lossy(std::string_view bytes);

}  // namespace retrace::json

#endif  // RETRACE_ENGINE_JSON_JS_TEXT_H_
