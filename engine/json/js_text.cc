#include "tools/js_text.h"

#include <cstdint>

#include "engine/json/utf8.h"

namespace retrace::tools {
namespace {

size_t SequenceLength(unsigned char lead) { return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4; }

uint32_t DecodeAt(std::string_view s, size_t i, size_t len) {
  const auto b = [&](size_t k) { return static_cast<uint32_t>(static_cast<unsigned char>(s[i + k])); };
  switch (len) {
    case 1: return b(0);
    case 2: return ((b(0) & 0x1F) << 6) | (b(1) & 0x3F);
    case 3: return ((b(0) & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
    default: return ((b(0) & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
  }
}

bool IsJsWhitespace(uint32_t cp) {
  return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) ||
         cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000 || cp == 0xFEFF;
}

}  // namespace

std::string Utf16Prefix(std::string_view s, size_t units) {
  std::string out;
  size_t used = 0, i = 0;
  while (i < s.size() && used < units) {
    const size_t len = std::min(SequenceLength(static_cast<unsigned char>(s[i])), s.size() - i);
    if (len == 4) {
      if (used + 2 > units) {  // only the high surrogate fits
        json::AppendCodePoint(out, 0xD800 + ((DecodeAt(s, i, 4) - 0x10000) >> 10));
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
    const size_t len = std::min(SequenceLength(static_cast<unsigned char>(s[i])), s.size() - i);
    units += len == 4 ? 2 : 1;
    i += len;
  }
  return units;
}

bool IsJsBlank(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t len = std::min(SequenceLength(static_cast<unsigned char>(s[i])), s.size() - i);
    if (!IsJsWhitespace(DecodeAt(s, i, len))) return false;
    i += len;
  }
  return true;
}

std::optional<std::string> DecodeUtf8Strict(std::string bytes) {
  if (bytes.rfind("\xEF\xBB\xBF", 0) == 0) bytes.erase(0, 3);
  for (size_t i = 0; i < bytes.size();) {
    if (static_cast<unsigned char>(bytes[i]) < 0x80) {
      ++i;
      continue;
    }
    const size_t len = json::ValidUtf8SequenceLength(std::string_view(bytes).substr(i));
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
    if (size_t len = json::ValidUtf8SequenceLength(bytes.substr(i)); len > 0) {
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

}  // namespace retrace::tools
