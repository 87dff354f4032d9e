// SessionHeader: the dsh v0 session header record (dsh-session-log §2.1,
// §7.2) and the format-version refusal of §9.1.
//
// On disk (JSONL line 1) the key order is
//   type, version, id, createdAt, cwd?, parentSession?, seedLength?, origin?,
//   delegationDepth, agentPreset?
// with `delegationDepth` always present. Field names are written to disk; never rename.
#ifndef RETRACE_ENGINE_LOG_SESSION_HEADER_H_
#define RETRACE_ENGINE_LOG_SESSION_HEADER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <retrace/engine/base/status.h>

namespace retrace::log {

inline constexpr int kSessionFormatVersion = 0;

struct SessionHeader {
  std::string id;
  int64_t created_at = 0;  // Unix ms
  std::optional<std::string> cwd;
  std::optional<std::string> parent_session;
  std::optional<int64_t> seed_length;
  std::optional<std::string> origin;  // only "subagent"
  int64_t delegation_depth = 0;
  std::optional<std::string> agent_preset;
};

// Parses and validates a header line. Refuses, in this order: text that is not
// JSON; a numeric `version` other than 0 (with dsh's newer/older message, before
// any shape check); retired policy fields; any other shape violation.
Result<SessionHeader> ParseHeaderLine(std::string_view text);

// The header line exactly as dsh writes it (no trailing newline).
std::string SerializeHeaderLine(const SessionHeader& header);

// dsh's SessionFormatUnsupportedError text for a log at `version`.
std::string UnsupportedVersionMessage(std::string_view session_id, double version);

}  // namespace retrace::log

#endif  // RETRACE_ENGINE_LOG_SESSION_HEADER_H_
