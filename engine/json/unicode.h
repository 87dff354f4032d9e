// Unicode properties that JavaScript regular expressions and String methods
// read from the engine's tables, answered by ICU: \p{XID_Start},
// \p{XID_Continue}, String.prototype.normalize("NFKC") and toUpperCase().
//
// ICU is the system's (Debian 12: ICU 72, Unicode 15.0). Node 22 carries
// newer tables (Unicode 17.0), so a character assigned after Unicode 15.0 can
// be answered differently here; docs/COMPATIBILITY.md says where that shows.
// Text is WTF-8; a lone surrogate has no properties and normalizes to itself.
#ifndef RETRACE_ENGINE_JSON_UNICODE_H_
#define RETRACE_ENGINE_JSON_UNICODE_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace retrace::json {

bool IsXidStart(uint32_t code_point);
bool IsXidContinue(uint32_t code_point);

// s.normalize("NFKC"); text holding a lone surrogate is returned unchanged
// around it (each well-formed run is normalized on its own).
std::string NormalizeNfkc(std::string_view text);

// String.prototype.toUpperCase() of one code point: the full, locale-free
// mapping, which may give several code points ("ß" → "SS").
std::string ToUpperFull(uint32_t code_point);

}  // namespace retrace::json

#endif  // RETRACE_ENGINE_JSON_UNICODE_H_
