// A session's title as dsh-session-title gives it, folded from the log: the
// latest `session/title` event's title (last wins), else the deterministic
// fallback from the first human prompt — the user/message of source "user"
// whose text blocks, joined by newlines, keep something visible once
// cleaned. Cleaning is upstream's: terminal escape sequences, control and
// directional characters removed, whitespace runs made one space, trimmed;
// the fallback keeps the leading words within a word and a UTF-8 byte cap,
// never splitting a code point. Where dsh gives no title at all (a session
// with no prompt: one `retrace mcp` recorded), retrace's own: the MCP
// client's name and the workspace's name from its retrace/mcp-client note,
// "claude-code in shop" (docs/MCP.md). Pure.
#ifndef RETRACE_ENGINE_LOG_SESSION_TITLE_H_
#define RETRACE_ENGINE_LOG_SESSION_TITLE_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <retrace/engine/log/event.h>

namespace retrace::log {

// Upstream's cleanTitleText: one trimmed, whitespace-normalized line.
std::string CleanTitleText(std::string_view text);
// Upstream's fallbackSessionTitle(text, max_words, max_bytes).
std::string FallbackSessionTitle(std::string_view text, size_t max_words, size_t max_bytes);

// The events the fold reads; a caller may skip the rest unparsed.
bool SessionTitleNeeds(std::string_view event_type);

class SessionTitleFold {
 public:
  // dsh leaves the caps to configuration; these are retrace's (docs/ACP.md).
  static constexpr size_t kFallbackMaxWords = 12;
  static constexpr size_t kFallbackMaxBytes = 120;

  // Feeds the next event, in seq order (others are ignored).
  void Add(const Event& event);
  // The title, or nullopt while the session has none.
  std::optional<std::string> Title() const;

 private:
  std::optional<std::string> logged_;    // the latest session/title
  std::optional<std::string> fallback_;  // from the first eligible prompt
  std::optional<std::string> client_;    // from the first retrace/mcp-client note
};

}  // namespace retrace::log

#endif  // RETRACE_ENGINE_LOG_SESSION_TITLE_H_
