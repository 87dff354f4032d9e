#include "engine/json/kept_reader.h"

#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace retrace::json::kept {
namespace {

// The index of the first '"' at or after `from`, or text.size(): 64 bytes
// at a time with SSE2 (every x86-64 has it), inline. Most strings of a kept
// text are short: a call to memchr for each cost more than the scan, and a
// block that usually holds the whole string spares a mispredicted loop exit.
size_t FindQuote(std::string_view text, size_t from) {
  size_t i = from;
#ifdef __SSE2__
  const __m128i quote = _mm_set1_epi8('"');
  auto mask16 = [&](size_t at) {
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + at));
    return static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(b, quote))));
  };
  for (; i + 64 <= text.size(); i += 64) {
    const uint64_t mask = mask16(i) | mask16(i + 16) << 16 | mask16(i + 32) << 32 | mask16(i + 48) << 48;
    if (mask) return i + static_cast<size_t>(std::countr_zero(mask));
  }
  for (; i + 16 <= text.size(); i += 16) {
    if (const uint64_t mask = mask16(i)) return i + static_cast<size_t>(std::countr_zero(mask));
  }
#endif
  while (i < text.size() && text[i] != '"') ++i;
  return i;
}

// The index just past the string whose opening quote is text[at]: the next
// quote after an even run of backslashes.
size_t StringEnd(std::string_view text, size_t at) {
  size_t from = at + 1;
  while (from < text.size()) {
    const size_t quote = FindQuote(text, from);
    if (quote >= text.size()) break;
    size_t backslashes = 0;
    while (quote - backslashes > at + 1 && text[quote - backslashes - 1] == '\\') ++backslashes;
    if (backslashes % 2 == 0) return quote + 1;
    from = quote + 1;
  }
  return text.size();
}

// The index just past the value that starts at text[at] (at < text.size()).
size_t ValueEnd(std::string_view text, size_t at) {
  const char c = text[at];
  if (c == '"') return StringEnd(text, at);
  if (c != '{' && c != '[') {  // a number or literal runs to the next separator
    size_t end = at;
    while (end < text.size() && text[end] != ',' && text[end] != ']' && text[end] != '}') ++end;
    return end;
  }
  size_t depth = 0;
  for (size_t i = at; i < text.size(); ++i) {
    switch (text[i]) {
      case '"': i = StringEnd(text, i) - 1; break;
      case '{':
      case '[': ++depth; break;
      case '}':
      case ']':
        if (--depth == 0) return i + 1;
        break;
      default: break;
    }
  }
  return text.size();
}

}  // namespace

std::string_view ValueAt(std::string_view text, size_t at) {
  if (at >= text.size()) return {};
  return text.substr(at, ValueEnd(text, at) - at);
}

double NumberOf(std::string_view value) {
  // Short integers are exact in a double, as the parser reads them.
  if (value.size() <= 15 && value.find_first_of(".eE") == std::string_view::npos) {
    const bool negative = value[0] == '-';
    int64_t n = 0;
    for (size_t i = negative ? 1 : 0; i < value.size(); ++i) n = n * 10 + (value[i] - '0');
    return negative ? -static_cast<double>(n) : static_cast<double>(n);
  }
  double d = 0;
  std::from_chars(value.data(), value.data() + value.size(), d);  // the writer's own digits: they parse
  return d;
}

size_t SplitObject(std::string_view text, size_t at, std::vector<Member>& members) {
  size_t i = at + 1;  // past '{'
  if (i < text.size() && text[i] == '}') return i + 1;
  while (i < text.size() && text[i] == '"') {
    const size_t name_end = StringEnd(text, i);
    const size_t value_at = name_end + 1;  // past the colon
    if (name_end - i < 2 || value_at >= text.size()) return at;
    const size_t value_end = ValueEnd(text, value_at);
    members.emplace_back(text.substr(i + 1, name_end - i - 2), text.substr(value_at, value_end - value_at));
    i = value_end;
    if (i < text.size() && text[i] == '}') return i + 1;
    if (i >= text.size() || text[i] != ',') return at;
    ++i;
  }
  return at;
}

}  // namespace retrace::json::kept
