#include "engine/json/unicode.h"

#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/locid.h>
#include <unicode/unistr.h>

#include "engine/json/js_text.h"
#include "engine/json/utf8.h"

namespace retrace::json {
namespace {

bool IsSurrogate(uint32_t c) { return c >= 0xD800 && c <= 0xDFFF; }

std::string NormalizeWellFormed(std::string_view utf8) {
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* nfkc = icu::Normalizer2::getNFKCInstance(status);
  if (U_FAILURE(status)) return std::string(utf8);  // no ICU data: nothing to fold with
  const icu::UnicodeString in = icu::UnicodeString::fromUTF8(icu::StringPiece(utf8.data(), static_cast<int32_t>(utf8.size())));
  if (nfkc->isNormalized(in, status) && U_SUCCESS(status)) return std::string(utf8);
  status = U_ZERO_ERROR;
  const icu::UnicodeString out = nfkc->normalize(in, status);
  if (U_FAILURE(status)) return std::string(utf8);
  std::string result;
  out.toUTF8String(result);
  return result;
}

}  // namespace

bool IsXidStart(uint32_t c) { return !IsSurrogate(c) && u_hasBinaryProperty(static_cast<UChar32>(c), UCHAR_XID_START); }

bool IsXidContinue(uint32_t c) {
  return !IsSurrogate(c) && u_hasBinaryProperty(static_cast<UChar32>(c), UCHAR_XID_CONTINUE);
}

std::string NormalizeNfkc(std::string_view text) {
  std::string out;
  size_t run = 0;  // start of the current well-formed run
  for (size_t i = 0; i < text.size();) {
    const auto [cp, len] = CodePointAt(text, i);
    if (IsSurrogate(cp) || (len == 1 && cp >= 0x80)) {  // a lone surrogate or a stray byte: kept as it is
      out += NormalizeWellFormed(text.substr(run, i - run));
      out.append(text.substr(i, len));
      run = i + len;
    }
    i += len;
  }
  out += NormalizeWellFormed(text.substr(run));
  return out;
}

std::string ToUpperFull(uint32_t c) {
  std::string out;
  if (IsSurrogate(c)) {
    AppendCodePoint(out, c);
    return out;
  }
  icu::UnicodeString s(static_cast<UChar32>(c));
  s.toUpper(icu::Locale::getRoot());
  s.toUTF8String(out);
  return out;
}

}  // namespace retrace::json
