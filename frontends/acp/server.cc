#include "frontends/acp/server.h"

#include <utility>

#include "frontends/acp/session_updates.h"
#include "engine/base/iso_time.h"
#include "engine/json/lenient.h"
#include "service/replay.h"

namespace retrace::acp {

using json::Get;
using json::Value;
using rpc::ErrorFrame;
using rpc::Frame;
using rpc::ResultFrame;

namespace {

constexpr char kCursorPrefix[] = "rc1.";

// Why session/new and session/prompt are refused, in words an editor shows.
constexpr char kNoModel[] =
    "retrace acp replays stored sessions and has no model: it cannot start or continue a conversation. "
    "Open a session from the history instead (session/list, session/load; in Zed: Thread History, Import).";

// A string param: the string, or nullopt when absent or null; false in `ok` when it is something else.
std::optional<std::string> OptionalString(const Value& params, std::string_view key, bool& ok) {
  const Value* v = Get(params, key);
  if (!v || v->is_null()) return std::nullopt;
  if (!v->is_string()) {
    ok = false;
    return std::nullopt;
  }
  return v->as_string();
}

}  // namespace

std::string EncodeCursor(std::string_view after) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(kCursorPrefix);
  for (unsigned char c : after) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

std::optional<std::string> DecodeCursor(std::string_view cursor) {
  const std::string_view prefix(kCursorPrefix);
  if (cursor.substr(0, prefix.size()) != prefix || (cursor.size() - prefix.size()) % 2 != 0) return std::nullopt;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  std::string out;
  for (size_t i = prefix.size(); i < cursor.size(); i += 2) {
    const int hi = nibble(cursor[i]), lo = nibble(cursor[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
  }
  return out;
}

Server::Server(const service::Catalog& catalog, Send send, ServerOptions options)
    : catalog_(catalog), send_(std::move(send)), options_(std::move(options)) {}

void Server::HandleLine(std::string_view line) {
  if (line.find_first_not_of(" \t\r") == std::string_view::npos) return;  // blank lines are not frames
  std::variant<Frame, rpc::Rejection> parsed = rpc::ParseFrame(line);
  if (auto* rejected = std::get_if<rpc::Rejection>(&parsed)) {
    send_(ErrorFrame(rejected->id, rejected->code, rejected->message));
    return;
  }
  Dispatch(std::get<Frame>(parsed));
}

void Server::RejectOversized(size_t limit) {
  send_(ErrorFrame(Value(), rpc::kInvalidRequest,
                   "Invalid Request: a message is over the " + std::to_string(limit) + "-byte limit and was dropped"));
}

void Server::Dispatch(const Frame& f) {
  if (f.kind != Frame::Kind::kRequest) return;  // session/cancel: nothing runs; responses: we ask nothing
  const Value params = f.params.is_object() ? f.params : Value::MakeObject();
  if (f.method == "initialize") {
    send_(ResultFrame(f.id, Initialize(params)));
  } else if (f.method == "session/list") {
    List(f);
  } else if (f.method == "session/load") {
    Load(f);
  } else if (f.method == "session/new" || f.method == "session/prompt") {
    send_(ErrorFrame(f.id, rpc::kMethodNotFound, f.method + " is not available: " + kNoModel));
  } else {
    send_(ErrorFrame(f.id, rpc::kMethodNotFound, "Method not found: " + f.method));
  }
}

Value Server::Initialize(const Value& params) {
  const Value* caps = Get(params, "clientCapabilities");
  const Value* meta = caps ? Get(*caps, "_meta") : nullptr;
  const Value* terminal = meta ? Get(*meta, "terminal_output") : nullptr;
  terminal_output_ = json::True(terminal);
  Value agent = Value::MakeObject(
      {{"loadSession", true},
       {"promptCapabilities", Value::MakeObject({{"image", false}, {"audio", false}, {"embeddedContext", false}})},
       {"mcpCapabilities", Value::MakeObject({{"http", false}, {"sse", false}})},
       {"sessionCapabilities", Value::MakeObject({{"list", Value::MakeObject()}})}});
  // One protocol version: the client's answer to anything else is to disconnect.
  return Value::MakeObject(
      {{"protocolVersion", kProtocolVersion},
       {"agentCapabilities", std::move(agent)},
       {"agentInfo", Value::MakeObject({{"name", "retrace"}, {"title", "retrace"}, {"version", options_.version}})},
       {"authMethods", Value(Value::Array{})}});
}

void Server::List(const Frame& f) {
  bool ok = true;
  service::SessionQuery query;
  query.limit = options_.page_size;
  query.cwd = OptionalString(f.params, "cwd", ok);
  const std::optional<std::string> cursor = OptionalString(f.params, "cursor", ok);
  if (!ok) return (void)send_(ErrorFrame(f.id, rpc::kInvalidParams, "Invalid params: cwd and cursor must be strings"));
  if (cursor) {
    query.after = DecodeCursor(*cursor);
    if (!query.after) return (void)send_(ErrorFrame(f.id, rpc::kInvalidParams, "Invalid params: unknown cursor"));
  }
  Result<service::SessionPage> page = catalog_.List(query);
  if (!page.ok()) {
    const bool bad_cursor = page.status().code() == Status::Code::kInvalidArgument;
    send_(ErrorFrame(f.id, bad_cursor ? rpc::kInvalidParams : rpc::kInternalError,
                     (bad_cursor ? "Invalid params: unknown cursor (" : "Internal error: could not list sessions (") +
                         page.status().message() + ")"));
    return;
  }
  Value::Array sessions;
  for (const service::SessionListing& s : page->sessions) {
    Value info = Value::MakeObject({{"sessionId", s.summary.id}, {"cwd", s.summary.cwd.value_or("/")}});
    if (s.title) info.Set("title", *s.title);
    info.Set("updatedAt", IsoTime(s.summary.updated_at));
    sessions.push_back(std::move(info));
  }
  Value result = Value::MakeObject({{"sessions", Value(std::move(sessions))}});
  if (page->more) result.Set("nextCursor", EncodeCursor(page->sessions.back().summary.id));
  send_(ResultFrame(f.id, std::move(result)));
}

void Server::Load(const Frame& f) {
  bool ok = true;
  const std::optional<std::string> id = OptionalString(f.params, "sessionId", ok);
  const std::optional<std::string> cwd = OptionalString(f.params, "cwd", ok);
  if (!ok || !id) return (void)send_(ErrorFrame(f.id, rpc::kInvalidParams, "Invalid params: session/load needs a \"sessionId\" string"));
  Result<store::SessionSummary> summary = catalog_.Describe(*id);
  Result<store::EventSource> source = summary.ok() ? catalog_.Stored(*id) : Result<store::EventSource>(summary.status());
  if (!source.ok() && source.status().code() == Status::Code::kNotFound) {
    send_(ErrorFrame(f.id, kResourceNotFound, "Resource not found: no session " + *id + " in " + catalog_.db_path(),
                     Value::MakeObject({{"sessionId", *id}})));
    return;
  }
  if (!source.ok()) return (void)send_(ErrorFrame(f.id, rpc::kInternalError, "Internal error: " + source.status().message()));
  UpdateOptions options;
  options.cwd = summary->cwd.value_or(cwd.value_or(""));
  options.terminal_output = terminal_output_;
  // Streamed as the session is read: the editor draws the first rows while the rest are replayed.
  bool sending = true;
  const Value session_id(*id);
  Status st = service::StreamConversation(*source, [&](const Value& row) {
    RowUpdates(row, options, [&](Value update) {
      if (!sending) return;
      sending = send_(rpc::NotificationFrame(
          "session/update", Value::MakeObject({{"sessionId", session_id}, {"update", std::move(update)}})));
    });
    return sending;
  }, options_.presenters);
  if (!sending) return;  // the client is gone: nobody to answer
  if (!st.ok()) {
    // Updates already sent stay sent; the error says the history stops short, and where.
    options_.log("session/load " + *id + ": " + st.message());
    send_(ErrorFrame(f.id, rpc::kInternalError, "Internal error: session " + *id + " could not be replayed to its end: " +
                                                    st.message()));
    return;
  }
  send_(ResultFrame(f.id, Value::MakeObject()));
}

}  // namespace retrace::acp
