// MCP's wire layer over stdio (MCP 2025-11-25 basic/transports, JSON-RPC
// 2.0): one JSON-RPC message per line. ParseFrame classifies a client line
// or says which error answers it; the builders write the frames retrace
// sends. Pure: no I/O, no clock.
#ifndef RETRACE_MCP_PROTOCOL_H_
#define RETRACE_MCP_PROTOCOL_H_

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "engine/json/value.h"

namespace retrace::mcp {

// JSON-RPC error codes (MCP schema.ts ErrorCode).
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;

// The revisions of the initialize handshake retrace speaks, newest first: a
// client asking for another one gets the first.
inline constexpr std::array<std::string_view, 3> kProtocolVersions = {"2025-11-25", "2025-06-18", "2025-03-26"};
std::string_view NegotiateVersion(std::string_view requested);
// Whether `version` has structured tool output (outputSchema,
// structuredContent and tool titles came with 2025-06-18).
bool HasStructuredOutput(std::string_view version);

struct Frame {
  enum class Kind { kRequest, kNotification, kResponse };
  Kind kind = Kind::kRequest;
  json::Value id;       // requests and responses: a string or an integer
  std::string method;   // requests and notifications
  json::Value params;   // an object, or null when absent
};

// A line that is not a frame retrace takes: the error to answer it with.
// `id` is the request's when it could be read, else null.
struct Rejection {
  int code = kInvalidRequest;
  std::string message;
  json::Value id;
};

std::variant<Frame, Rejection> ParseFrame(std::string_view line);

// The frames retrace writes, each one line of compact JSON (no newline).
std::string ResultFrame(const json::Value& id, json::Value result);
std::string ErrorFrame(const json::Value& id, int code, std::string_view message,
                       std::optional<json::Value> data = std::nullopt);
std::string NotificationFrame(std::string_view method, json::Value params);

// A request id as text, for messages and the record: 7, "abc".
std::string IdText(const json::Value& id);

}  // namespace retrace::mcp

#endif  // RETRACE_MCP_PROTOCOL_H_
