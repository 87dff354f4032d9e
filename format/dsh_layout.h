// The dsh JSONL root directory layout (dsh-session-log §7.1):
//   <root>/<projectKey(cwd) | _no-cwd>/<encodeSegment(sessionId)>/session.jsonl[.zstd]
// Computed exactly as dsh does (per UTF-16 code unit).
#ifndef RETRACE_FORMAT_DSH_LAYOUT_H_
#define RETRACE_FORMAT_DSH_LAYOUT_H_

#include <optional>
#include <string>
#include <string_view>

#include <retrace/engine/base/status.h>

namespace retrace::format {

// `[A-Za-z0-9._-]` stays literal, every other code unit (and `~`) becomes
// `~XXXX`; "." and ".." are escaped whole. REQUIRES: non-empty.
std::string EncodeSegment(std::string_view id);

// Runs of `/ \ :` become one `-`, unsafe code units `~XXXX`, leading `-`
// stripped, empty → "root", at most 251 characters, wrapped as `--key--`.
std::string ProjectKey(std::string_view cwd);

// The relative path of a session's log under a dsh root.
Result<std::string> DshLogPath(std::string_view session_id, const std::optional<std::string>& cwd, bool zstd);

}  // namespace retrace::format

#endif  // RETRACE_FORMAT_DSH_LAYOUT_H_
