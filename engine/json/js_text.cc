#include "engine/json/js_text.h"

#include "engine/json/utf8.h"

namespace retrace::json {

std::pair<uint32_t, size_t> CodePointAt(std::string_view s, size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  const size_t len = b < 0x80 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
  if (i + len > s.size()) return {b, 1};
  uint32_t cp = len == 1 ? b : len == 2 ? b & 0x1F : len == 3 ? b & 0x0F : b & 0x07;
  for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  return {cp, len};
}

int64_t CodePointLength(std::string_view text) {
  int64_t n = 0;
  for (size_t i = 0; i < text.size(); i += CodePointAt(text, i).second) ++n;
  return n;
}

bool IsJsSpace(uint32_t c) {
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) ||
         c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000 || c == 0xFEFF;
}

std::string_view JsTrim(std::string_view s) {
  size_t begin = 0;
  while (begin < s.size()) {
    auto [cp, len] = CodePointAt(s, begin);
    if (!IsJsSpace(cp)) break;
    begin += len;
  }
  size_t end = s.size();
  while (end > begin) {
    size_t start = end - 1;  // back up to the lead byte of the last code point
    while (start > begin && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80 && end - start < 4) --start;
    auto [cp, len] = CodePointAt(s, start);
    if (start + len != end || !IsJsSpace(cp)) break;
    end = start;
  }
  return s.substr(begin, end - begin);
}

std::string Utf16Prefix(std::string_view s, size_t units) {
  std::string out;
  size_t used = 0;
  for (size_t i = 0; i < s.size() && used < units;) {
    const auto [cp, len] = CodePointAt(s, i);
    if (len == 4) {
      if (used + 2 > units) {  // only the high surrogate fits
        AppendCodePoint(out, 0xD800 + ((cp - 0x10000) >> 10));
        return out;
      }
      used += 2;
    } else {
      used += 1;
    }
    out.append(s.substr(i, len));
    i += len;
  }
  return out;
}

size_t Utf16Length(std::string_view s) {
  size_t units = 0;
  for (size_t i = 0; i < s.size();) {
    const size_t len = CodePointAt(s, i).second;
    units += len == 4 ? 2 : 1;
    i += len;
  }
  return units;
}

std::string ToWellFormedUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto [cp, len] = CodePointAt(s, i);
    if (cp >= 0xD800 && cp <= 0xDFFF && len == 3) {
      out += "\xEF\xBF\xBD";
    } else {
      out.append(s.substr(i, len));
    }
    i += len;
  }
  return out;
}

bool IsJsBlank(std::string_view s) { return JsTrim(s).empty(); }

std::optional<std::string> DecodeUtf8Strict(std::string bytes) {
  if (bytes.rfind("\xEF\xBB\xBF", 0) == 0) bytes.erase(0, 3);
  for (size_t i = 0; i < bytes.size();) {
    if (static_cast<unsigned char>(bytes[i]) < 0x80) {
      ++i;
      continue;
    }
    const size_t len = ValidUtf8SequenceLength(std::string_view(bytes).substr(i));
    if (len == 0) return std::nullopt;
    i += len;
  }
  return bytes;
}

std::string DecodeUtf8Lossy(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (size_t i = 0; i < bytes.size();) {
    const auto b = static_cast<unsigned char>(bytes[i]);
    if (b < 0x80) {
      out += static_cast<char>(b);
      ++i;
      continue;
    }
    if (size_t len = ValidUtf8SequenceLength(bytes.substr(i)); len > 0) {
      out.append(bytes.substr(i, len));
      i += len;
      continue;
    }
    // The maximal subpart: a valid lead and the continuation bytes that could still have completed it.
    size_t consumed = 1;
    if (b >= 0xC2 && b <= 0xF4) {
      const size_t need = b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
      unsigned char lo = 0x80, hi = 0xBF;
      if (b == 0xE0) lo = 0xA0;
      if (b == 0xED) hi = 0x9F;
      if (b == 0xF0) lo = 0x90;
      if (b == 0xF4) hi = 0x8F;
      while (consumed < need && i + consumed < bytes.size()) {
        const auto c = static_cast<unsigned char>(bytes[i + consumed]);
        if (c < lo || c > hi) break;
        ++consumed;
        lo = 0x80, hi = 0xBF;
      }
    }
    out += "\xEF\xBF\xBD";
    i += consumed;
  }
  return out;
}

}  // namespace retrace::json
