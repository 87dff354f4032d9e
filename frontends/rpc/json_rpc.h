// JSON-RPC 2.0 framing as retrace's servers speak it (MCP and ACP over
// stdio): one message per line. ParseFrame classifies a client line or says
// which error answers it; the builders write the frames a server sends.
// Pure: no I/O, no clock.
#ifndef RETRACE_RPC_JSON_RPC_H_
#define RETRACE_RPC_JSON_RPC_H_

#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "engine/json/value.h"

namespace retrace::rpc {

// JSON-RPC 2.0 error codes (both protocols use them unchanged).
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;

struct Frame {
  enum class Kind { kRequest, kNotification, kResponse };
  Kind kind = Kind::kRequest;
  json::Value id;       // requests and responses: a string or an integer
  std::string method;   // requests and notifications
  json::Value params;   // an object, or null when absent
  // Responses (to a request the server sent): "result", or "error" when it failed.
  json::Value result;
  json::Value error;    // null unless the peer answered with an error
};

// A line that is not a frame a server takes: the error to answer it with.
// `id` is the request's when it could be read, else null.
struct Rejection {
  int code = kInvalidRequest;
  std::string message;
  json::Value id;
};

// Batches (a JSON array) are rejected: neither MCP (since 2025-06-18) nor ACP has them.
std::variant<Frame, Rejection> ParseFrame(std::string_view line);

// The frames a server writes, each one line of compact JSON (no newline).
std::string ResultFrame(const json::Value& id, json::Value result);
std::string ErrorFrame(const json::Value& id, int code, std::string_view message,
                       std::optional<json::Value> data = std::nullopt);
std::string NotificationFrame(std::string_view method, json::Value params);
// A request the server sends its peer (MCP's roots/list).
std::string RequestFrame(const json::Value& id, std::string_view method);

// A request id as text, for messages and the record: 7, "abc".
std::string IdText(const json::Value& id);

}  // namespace retrace::rpc

#endif  // RETRACE_RPC_JSON_RPC_H_
