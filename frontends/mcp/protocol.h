// MCP's revisions (MCP 2025-11-25 basic/lifecycle): which handshake retrace
// answers and what each revision carries. The frames themselves are
// JSON-RPC 2.0, one per line (frontends/rpc/json_rpc.h).
#ifndef RETRACE_MCP_PROTOCOL_H_
#define RETRACE_MCP_PROTOCOL_H_

#include <array>
#include <string_view>

namespace retrace::mcp {

// The revisions of the initialize handshake retrace speaks, newest first: a
// client asking for another one gets the first.
inline constexpr std::array<std::string_view, 3> kProtocolVersions = {"2025-11-25", "2025-06-18", "2025-03-26"};
std::string_view NegotiateVersion(std::string_view requested);
// Whether `version` has structured tool output (outputSchema,
// structuredContent and tool titles came with 2025-06-18).
bool HasStructuredOutput(std::string_view version);

}  // namespace retrace::mcp

#endif  // RETRACE_MCP_PROTOCOL_H_
