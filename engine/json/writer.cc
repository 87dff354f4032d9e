#include "engine/json/writer.h"

#include "engine/json/utf8.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace retrace::json {
namespace {

constexpr char kHex[] = "0123456789abcdef";

void AppendUnicodeEscape(std::string& out, uint32_t unit) {
  out += "\\u";
  out += kHex[(unit >> 12) & 0xF];
  out += kHex[(unit >> 8) & 0xF];
  out += kHex[(unit >> 4) & 0xF];
  out += kHex[unit & 0xF];
}

// Characters that need no escape: printable ASCII except '"' and '\\'. Bytes
// >= 0x80 are checked: valid UTF-8 and WTF-8 surrogates pass, anything else
// is written as U+FFFD (see writer.h).
constexpr bool NeedsCare(unsigned char b) { return b < 0x20 || b == '"' || b == '\\' || b >= 0x80; }

// An open container: its children (items, or members of an object), read
// once when it opens.
struct Frame {
  const Value* items;
  const Value::Member* members;
  size_t size;
  size_t next;  // index of the next child to write
  bool object;
};

// The length of the prefix of s[i..] that needs no care: sixteen bytes at a
// time with SSE2 (every x86-64 has it), then eight at a time in a word, where
// a byte needs care when it is < 0x20, '"', '\\' or >= 0x80. The first such
// byte is found from the mask, not by a byte loop.
size_t PlainRun(std::string_view s, size_t i) {
  const size_t start = i;
#ifdef __SSE2__
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(0x20);
  while (i + 16 <= s.size()) {
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i));
    // Signed compare: bytes >= 0x80 are negative, so "< 0x20" also catches them.
    const __m128i care = _mm_or_si128(_mm_cmplt_epi8(b, space),
                                      _mm_or_si128(_mm_cmpeq_epi8(b, quote), _mm_cmpeq_epi8(b, backslash)));
    if (const int mask = _mm_movemask_epi8(care)) return i + static_cast<size_t>(__builtin_ctz(mask)) - start;
    i += 16;
  }
#endif
  constexpr uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
  auto has_zero = [](uint64_t x) { return (x - kOnes) & ~x & kHigh; };
  while (i + 8 <= s.size()) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    // The lowest flagged byte is exact (a borrow only flags bytes above a true one).
    const uint64_t care = (w & kHigh) | ((w - 0x2020202020202020ULL) & ~w & kHigh) |
                          has_zero(w ^ (kOnes * '"')) | has_zero(w ^ (kOnes * '\\'));
    if (care) {
      if constexpr (std::endian::native == std::endian::little) {
        return i + static_cast<size_t>(std::countr_zero(care) >> 3) - start;
      }
      break;  // big-endian: the byte loop below finds it
    }
    i += 8;
  }
  while (i < s.size() && !NeedsCare(static_cast<unsigned char>(s[i]))) ++i;
  return i - start;
}

}  // namespace

void AppendQuoted(std::string& out, std::string_view s) {
  out += '"';
  size_t i = 0;
  while (i < s.size()) {
    const size_t run = i;
    i += PlainRun(s, i);
    out.append(s.data() + run, i - run);
    if (i >= s.size()) break;
    const auto b = static_cast<unsigned char>(s[i]);
    if (b == 0xED && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0xA0 &&
        static_cast<unsigned char>(s[i + 1]) <= 0xBF && (static_cast<unsigned char>(s[i + 2]) & 0xC0) == 0x80) {
      // WTF-8 lone surrogate ED A0..BF xx → \udxxx (other ED sequences are plain UTF-8).
      const uint32_t unit = 0xD000 | ((static_cast<unsigned char>(s[i + 1]) & 0x3F) << 6) |
                            (static_cast<unsigned char>(s[i + 2]) & 0x3F);
      AppendUnicodeEscape(out, unit);
      i += 3;
      continue;
    }
    if (b >= 0x80) {
      const size_t len = ValidUtf8SequenceLength(s.substr(i));
      if (len == 0) {
        out += "\xEF\xBF\xBD";  // not UTF-8: what decoding the bytes in JavaScript would give
        ++i;
      } else {
        out.append(s.data() + i, len);
        i += len;
      }
      continue;
    }
    switch (b) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default: AppendUnicodeEscape(out, b);
    }
    ++i;
  }
  out += '"';
}

void AppendNumber(std::string& out, double d) {
  if (!std::isfinite(d)) {  // JSON.stringify writes NaN and ±Infinity as null
    out += "null";
    return;
  }
  if (d == 0) {  // also -0
    out += '0';
    return;
  }
  if (std::trunc(d) == d && std::fabs(d) < 1e15) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, static_cast<int64_t>(d));
    out.append(buf, r.ptr);
    return;
  }
  // Shortest round-trip digits via scientific form "d.ddde±x", then JS layout.
  char sci[40];
  auto r = std::to_chars(sci, sci + sizeof sci, d, std::chars_format::scientific);
  std::string_view text(sci, r.ptr - sci);
  const bool neg = text[0] == '-';
  if (neg) text.remove_prefix(1);
  const size_t e = text.find('e');
  std::string digits;
  for (char c : text.substr(0, e)) {
    if (c != '.') digits += c;
  }
  const int exp10 = std::atoi(std::string(text.substr(e + 1)).c_str());
  const int k = static_cast<int>(digits.size());
  const int n = exp10 + 1;  // position of the decimal point
  if (neg) out += '-';
  if (k <= n && n <= 21) {
    out += digits;
    out.append(n - k, '0');
  } else if (0 < n && n <= 21) {
    out.append(digits, 0, n);
    out += '.';
    out.append(digits, n);
  } else if (-6 < n && n <= 0) {
    out += "0.";
    out.append(-n, '0');
    out += digits;
  } else {
    out += digits[0];
    if (k > 1) {
      out += '.';
      out.append(digits, 1);
    }
    out += 'e';
    out += n - 1 >= 0 ? '+' : '-';
    out += std::to_string(std::abs(n - 1));
  }
}

std::string FormatNumber(double d) {
  std::string s;
  AppendNumber(s, d);
  return s;
}

void AppendSerialized(std::string& out, const Value& root) {
  // The open containers. Kept per thread with its capacity: a fresh stack
  // grew by doubling, several allocations for every value written, and
  // values are written by the thousand (events, cards, answers). Nothing
  // below calls out, so a call never meets another's stack.
  thread_local std::vector<Frame> stack;
  stack.clear();
  const Value* v = &root;
  while (true) {
    // Write `v`; containers are opened and pushed.
    switch (v->kind()) {
      case Value::Kind::kNull: out += "null"; break;
      case Value::Kind::kBool: out += v->as_bool() ? "true" : "false"; break;
      case Value::Kind::kNumber: AppendNumber(out, v->as_number()); break;
      case Value::Kind::kString: AppendQuoted(out, v->as_string()); break;
      case Value::Kind::kArray:
      case Value::Kind::kObject:
        if (const std::string_view kept = v->kept_text(); !kept.empty()) {
          out += kept;  // the parse's text, what the loop below would write
          break;
        }
        if (v->is_array()) {
          out += '[';
          stack.push_back({v->as_array().data(), nullptr, v->as_array().size(), 0, false});
        } else {
          out += '{';
          stack.push_back({nullptr, v->as_object().data(), v->as_object().size(), 0, true});
        }
        break;
    }
    // Find the next child to write, closing finished containers.
    v = nullptr;
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.next == f.size) {
        out += f.object ? '}' : ']';
        stack.pop_back();
        continue;
      }
      if (f.next > 0) out += ',';
      if (!f.object) {
        v = &f.items[f.next++];
      } else {
        const Value::Member& m = f.members[f.next++];
        AppendQuoted(out, m.first);
        out += ':';
        v = &m.second;
      }
      break;
    }
    if (v == nullptr) break;
  }
  constexpr size_t kKeep = 4096;  // a rare deep value does not pin its depth
  if (stack.capacity() > kKeep) std::vector<Frame>().swap(stack);
}

std::string Serialize(const Value& value) {
  std::string out;
  AppendSerialized(out, value);
  return out;
}

}  // namespace retrace::json
