#include "engine/log/session_title.h"

#include <cstdint>
#include <vector>

#include "engine/json/lenient.h"
#include "engine/json/utf8.h"
#include "engine/log/event_types.h"

namespace retrace::log {
namespace {

using json::Value;

constexpr uint32_t kEsc = 0x1B;

// The text as code points. A lone surrogate (WTF-8) is one code point, as a
// JavaScript string holds it; an invalid byte stands for U+FFFD.
std::vector<uint32_t> CodePoints(std::string_view s) {
  std::vector<uint32_t> out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) {
      out.push_back(b);
      ++i;
      continue;
    }
    size_t n = json::ValidUtf8SequenceLength(s.substr(i));
    if (n == 0 && b == 0xED && i + 2 < s.size()) n = 3;  // an encoded surrogate
    if (n == 0) {
      out.push_back(0xFFFD);
      ++i;
      continue;
    }
    uint32_t cp = b & (0xFF >> (n + 1));
    for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    out.push_back(cp);
    i += n;
  }
  return out;
}

std::string Utf8(const std::vector<uint32_t>& cps, size_t from = 0, size_t to = SIZE_MAX) {
  std::string out;
  for (size_t i = from; i < cps.size() && i < to; ++i) json::AppendCodePoint(out, cps[i]);
  return out;
}

size_t Utf8Bytes(uint32_t cp) { return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4; }

// JavaScript's \s.
bool IsSpace(uint32_t c) {
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) ||
         c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000 || c == 0xFEFF;
}
bool IsControl(uint32_t c) {
  return c <= 0x08 || c == 0x0B || c == 0x0C || (c >= 0x0E && c <= 0x1F) || (c >= 0x7F && c <= 0x9F);
}
bool IsDirectional(uint32_t c) {
  return c == 0x200B || c == 0x200E || c == 0x200F || (c >= 0x202A && c <= 0x202E) || (c >= 0x2060 && c <= 0x2064) ||
         (c >= 0x2066 && c <= 0x206F) || c == 0xFEFF;
}

// One global regex replacement with "": `match` gives the length of a match
// at i (0 for none).
template <typename Match>
std::vector<uint32_t> RemoveAll(const std::vector<uint32_t>& in, Match match) {
  std::vector<uint32_t> out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size();) {
    if (const size_t n = match(in, i)) {
      i += n;
    } else {
      out.push_back(in[i++]);
    }
  }
  return out;
}

// (?:\x1B\]|\x9D)(?:(?!\x07|\x1B\\)[\s\S])*(?:\x07|\x1B\\|$)
size_t Osc(const std::vector<uint32_t>& s, size_t i) {
  size_t j;
  if (s[i] == 0x9D) {
    j = i + 1;
  } else if (s[i] == kEsc && i + 1 < s.size() && s[i + 1] == ']') {
    j = i + 2;
  } else {
    return 0;
  }
  for (; j < s.size(); ++j) {
    if (s[j] == 0x07) return j + 1 - i;
    if (s[j] == kEsc && j + 1 < s.size() && s[j + 1] == '\\') return j + 2 - i;
  }
  return j - i;
}

// (?:\x1B\[|\x9B)[0-?]*[ -/]*[@-~]
size_t Csi(const std::vector<uint32_t>& s, size_t i) {
  size_t j;
  if (s[i] == 0x9B) {
    j = i + 1;
  } else if (s[i] == kEsc && i + 1 < s.size() && s[i + 1] == '[') {
    j = i + 2;
  } else {
    return 0;
  }
  while (j < s.size() && s[j] >= 0x30 && s[j] <= 0x3F) ++j;
  while (j < s.size() && s[j] >= 0x20 && s[j] <= 0x2F) ++j;
  return j < s.size() && s[j] >= 0x40 && s[j] <= 0x7E ? j + 1 - i : 0;
}

std::vector<uint32_t> Clean(std::string_view text) {
  std::vector<uint32_t> s = CodePoints(text);
  s = RemoveAll(s, Osc);
  s = RemoveAll(s, Csi);
  s = RemoveAll(s, [](const std::vector<uint32_t>& v, size_t i) -> size_t {
    return v[i] == kEsc && i + 1 < v.size() && v[i + 1] >= 0x40 && v[i + 1] <= 0x5F ? 2 : 0;
  });
  s = RemoveAll(s, [](const std::vector<uint32_t>& v, size_t i) -> size_t {
    return IsControl(v[i]) || IsDirectional(v[i]) ? 1 : 0;
  });
  // Whitespace runs become one space; then trimmed.
  std::vector<uint32_t> out;
  out.reserve(s.size());
  for (uint32_t c : s) {
    if (!IsSpace(c)) {
      out.push_back(c);
    } else if (!out.empty() && out.back() != ' ') {
      out.push_back(' ');
    }
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// The longest code-point prefix within `max_bytes`, without a trailing space.
std::string Truncated(const std::vector<uint32_t>& cps, size_t max_bytes) {
  size_t used = 0, end = 0;
  while (end < cps.size() && used + Utf8Bytes(cps[end]) <= max_bytes) used += Utf8Bytes(cps[end++]);
  while (end > 0 && IsSpace(cps[end - 1])) --end;
  return Utf8(cps, 0, end);
}

// The text blocks of a user/message's content, joined by newlines.
std::string PromptText(const Value& data) {
  std::string text;
  bool first = true;
  if (const Value* content = json::Get(data, "content"); content && content->is_array()) {
    for (const Value& block : content->as_array()) {
      if (json::StrView(json::Get(block, "type")) != "text") continue;
      if (!first) text += '\n';
      first = false;
      text += json::StrView(json::Get(block, "text"));
    }
  }
  return text;
}

}  // namespace

std::string CleanTitleText(std::string_view text) { return Utf8(Clean(text)); }

std::string FallbackSessionTitle(std::string_view text, size_t max_words, size_t max_bytes) {
  const std::vector<uint32_t> clean = Clean(text);  // single spaces between words, trimmed
  size_t end = 0, words = 0;
  while (end < clean.size() && words < max_words) {
    while (end < clean.size() && clean[end] != ' ') ++end;
    ++words;
    if (words < max_words && end < clean.size()) ++end;  // the space before the next word
  }
  return Truncated(std::vector<uint32_t>(clean.begin(), clean.begin() + static_cast<std::ptrdiff_t>(end)), max_bytes);
}

bool SessionTitleNeeds(std::string_view type) {
  return type == kUserMessage || type == "session/title" || type == kMcpClient;
}

namespace {

// "claude-code in shop": clientInfo's title or name, and the last component of
// the workspace the note names; nullopt when the note names no client.
std::optional<std::string> McpClientTitle(const Value& data) {
  const Value* info = json::Get(data, "clientInfo");
  std::string client = CleanTitleText(json::StrView(info ? json::Get(*info, "title") : nullptr));
  if (client.empty()) client = CleanTitleText(json::StrView(info ? json::Get(*info, "name") : nullptr));
  if (client.empty()) return std::nullopt;
  std::string_view workspace = json::StrView(json::Get(data, "workspace"));
  while (workspace.size() > 1 && workspace.back() == '/') workspace.remove_suffix(1);
  const size_t slash = workspace.rfind('/');
  const std::string name = CleanTitleText(slash == std::string_view::npos ? workspace : workspace.substr(slash + 1));
  std::string title = name.empty() ? client : client + " in " + name;
  return FallbackSessionTitle(title, SessionTitleFold::kFallbackMaxWords, SessionTitleFold::kFallbackMaxBytes);
}

}  // namespace

void SessionTitleFold::Add(const Event& e) {
  if (e.type == "session/title") {
    if (const Value* title = json::Get(e.data, "title"); title && title->is_string()) logged_ = title->as_string();
    return;
  }
  if (e.type == kMcpClient) {
    if (!client_) client_ = McpClientTitle(e.data);
    return;
  }
  if (fallback_ || e.type != kUserMessage) return;
  if (e.surface_op && e.surface_op->kind != SurfaceOp::Kind::kAppend) return;  // a compaction's checkpoint
  const Value* source = json::Get(e.data, "source");
  if (json::StrView(source ? json::Get(*source, "kind") : nullptr) != "user") return;
  std::string title = FallbackSessionTitle(PromptText(e.data), kFallbackMaxWords, kFallbackMaxBytes);
  if (!title.empty()) fallback_ = std::move(title);
}

std::optional<std::string> SessionTitleFold::Title() const {
  if (logged_) return logged_;
  return fallback_ ? fallback_ : client_;
}

}  // namespace retrace::log
