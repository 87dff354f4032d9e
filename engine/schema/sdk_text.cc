#include "engine/schema/sdk_text.h"

#include <algorithm>

#include "engine/json/js_text.h"
#include "engine/json/writer.h"
#include "engine/schema/raw_schema_check.h"

namespace retrace::schema::sdk {
namespace {

// The UTF-16 code units of a code point, as one comparable number: a BMP
// code point is one unit; a supplementary one starts with its high surrogate,
// which sorts below U+E000..U+FFFF (where code points would put it above).
void AppendUnits(std::u16string& out, uint32_t cp) {
  if (cp < 0x10000) {
    out.push_back(static_cast<char16_t>(cp));
  } else {
    out.push_back(static_cast<char16_t>(0xD800 + ((cp - 0x10000) >> 10)));
    out.push_back(static_cast<char16_t>(0xDC00 + ((cp - 0x10000) & 0x3FF)));
  }
}

std::u16string Utf16(std::string_view s) {
  std::u16string out;
  for (size_t i = 0; i < s.size();) {
    const auto [cp, len] = json::CodePointAt(s, i);
    AppendUnits(out, cp);
    i += len;
  }
  return out;
}

}  // namespace

std::vector<const ToolSdkSchema*> SortedByName(std::span<const ToolSdkSchema> tools) {
  std::vector<std::pair<std::u16string, const ToolSdkSchema*>> keyed;
  keyed.reserve(tools.size());
  for (const ToolSdkSchema& t : tools) keyed.emplace_back(Utf16(t.name), &t);
  std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<const ToolSdkSchema*> out;
  out.reserve(keyed.size());
  for (const auto& [key, tool] : keyed) out.push_back(tool);
  return out;
}

std::string CollapseJsSpace(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  bool in_space = false;
  for (size_t i = 0; i < s.size();) {
    const auto [cp, len] = json::CodePointAt(s, i);
    if (json::IsJsSpace(cp)) {
      if (!in_space) out.push_back(' ');
      in_space = true;
    } else {
      out.append(s.substr(i, len));
      in_space = false;
    }
    i += len;
  }
  return out;
}

std::string Stringify(std::string_view s) {
  std::string out;
  json::AppendQuoted(out, s);
  return out;
}

bool Supported(const std::optional<json::Value>& schema) { return schema && CheckRawSchema(*schema).empty(); }

std::string Repeat(std::string_view text, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out.append(text);
  return out;
}

}  // namespace retrace::schema::sdk
