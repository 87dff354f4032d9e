#include "frontends/rpc/json_rpc.h"

#include "engine/json/parser.h"
#include "engine/json/writer.h"

namespace retrace::rpc {

using json::Value;

namespace {

bool IsValidId(const Value& id) { return id.is_string() || (id.is_number() && id.is_safe_integer()); }

}  // namespace

std::variant<Frame, Rejection> ParseFrame(std::string_view line) {
  Result<Value> parsed = json::Parse(line);
  if (!parsed.ok()) return Rejection{kParseError, "Parse error: " + parsed.status().message(), Value()};
  Value& msg = *parsed;
  if (msg.is_array()) {
    return Rejection{kInvalidRequest, "Invalid Request: JSON-RPC batches are not supported",
                     Value()};
  }
  if (!msg.is_object()) return Rejection{kInvalidRequest, "Invalid Request: a message must be a JSON object", Value()};
  const Value* id = msg.Find("id");
  Value shown_id = id && IsValidId(*id) ? *id : Value();
  const Value* version = msg.Find("jsonrpc");
  if (!version || !version->is_string() || version->as_string() != "2.0") {
    return Rejection{kInvalidRequest, "Invalid Request: \"jsonrpc\" must be \"2.0\"", shown_id};
  }
  if (id && !IsValidId(*id)) {
    return Rejection{kInvalidRequest, "Invalid Request: \"id\" must be a string or an integer", Value()};
  }
  Frame frame;
  if (id) frame.id = *id;
  const Value* method = msg.Find("method");
  if (!method) {
    if (id && (msg.Find("result") || msg.Find("error"))) {
      frame.kind = Frame::Kind::kResponse;
      if (const Value* result = msg.Find("result")) frame.result = *result;
      if (const Value* error = msg.Find("error")) frame.error = *error;
      return frame;
    }
    return Rejection{kInvalidRequest, "Invalid Request: no \"method\"", shown_id};
  }
  if (!method->is_string()) return Rejection{kInvalidRequest, "Invalid Request: \"method\" must be a string", shown_id};
  frame.method = method->as_string();
  frame.kind = id ? Frame::Kind::kRequest : Frame::Kind::kNotification;
  if (const Value* params = msg.Find("params")) {
    if (!params->is_object()) {
      return Rejection{kInvalidParams, "Invalid params: \"params\" must be an object", shown_id};
    }
    frame.params = *params;
  }
  return frame;
}

std::string ResultFrame(const Value& id, Value result) {
  return json::Serialize(Value::MakeObject({{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}}));
}

std::string ErrorFrame(const Value& id, int code, std::string_view message, std::optional<Value> data) {
  Value error = Value::MakeObject({{"code", code}, {"message", message}});
  if (data) error.Set("data", std::move(*data));
  return json::Serialize(Value::MakeObject({{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(error)}}));
}

std::string NotificationFrame(std::string_view method, Value params) {
  return json::Serialize(Value::MakeObject({{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}}));
}

std::string RequestFrame(const Value& id, std::string_view method) {
  return json::Serialize(Value::MakeObject({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}}));
}

std::string IdText(const Value& id) { return id.is_string() ? "\"" + id.as_string() + "\"" : json::Serialize(id); }

}  // namespace retrace::rpc
