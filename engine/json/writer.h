// json::Value → text, exactly as JavaScript's JSON.stringify(value) writes it.
//
//  - no whitespace; members in the value's order;
//  - numbers as Number.prototype.toString: shortest round-trip digits, plain
//    notation for 1e-7 < |x| < 1e21, else exponent form ("1e+21", "1.5e-7");
//    -0 is written "0";
//  - strings escape only '"', '\\' and U+0000..U+001F (\b \f \n \r \t short
//    forms, others \u00xx) and lone surrogates (\udxxx, lowercase hex); all
//    other characters, including U+2028/U+2029 and DEL, are written verbatim;
//  - bytes that are neither UTF-8 nor WTF-8 (a C++ caller's raw bytes: no
//    JavaScript string holds them) are written as U+FFFD, one per byte, so
//    the output is always text the parser reads back.
// Serialization is iterative: depth is limited only by memory.
#ifndef RETRACE_ENGINE_JSON_WRITER_H_
#define RETRACE_ENGINE_JSON_WRITER_H_

#include <string>
#include <string_view>

#include <retrace/engine/json/value.h>

namespace retrace::json {

std::string Serialize(const Value& value);
void AppendSerialized(std::string& out, const Value& value);

// Appends `s` (WTF-8) as a quoted JSON string literal.
void AppendQuoted(std::string& out, std::string_view s);

// Appends a finite double in JavaScript notation. REQUIRES: std::isfinite(d).
void AppendNumber(std::string& out, double d);
std::string FormatNumber(double d);

}  // namespace retrace::json

#endif  // RETRACE_ENGINE_JSON_WRITER_H_
