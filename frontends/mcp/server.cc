#include "frontends/mcp/server.h"

#include <utility>

#include "engine/json/writer.h"
#include "engine/log/event_types.h"
#include "engine/runtime/tool_error.h"
#include "frontends/mcp/tool_listing.h"

namespace retrace::mcp {

namespace asio = runtime::asio;
using json::Value;
using rpc::ErrorFrame;
using rpc::Frame;
using rpc::IdText;
using rpc::NotificationFrame;
using rpc::Rejection;
using rpc::ResultFrame;
using rpc::kInternalError;
using rpc::kInvalidParams;
using rpc::kInvalidRequest;
using rpc::kMethodNotFound;

// A tools/call in flight.
struct Server::Call {
  Value id;
  std::string key;  // IdText(id)
  std::string call_id;
  std::string name;
  std::string arguments;  // the client's arguments, as compact JSON text
  std::optional<Value> progress_token;
  runtime::AbortController abort;
  bool cancelled = false;  // by notifications/cancelled: no answer is sent
  bool done = false;
  std::shared_ptr<void> hold;
  std::unique_ptr<asio::steady_timer> progress_timer;
};

Server::Server(asio::any_io_executor executor, Result<service::LiveSession*> live, Send send, ServerOptions options)
    : executor_(std::move(executor)),
      live_(live.ok() ? *live : nullptr),
      unavailable_(live.ok() ? Status::Ok() : live.status()),
      send_(std::move(send)),
      options_(std::move(options)) {}

Server::~Server() = default;

void Server::HandleLine(std::string_view line, std::shared_ptr<void> hold) {
  if (line.find_first_not_of(" \t\r") == std::string_view::npos) return;  // blank lines are not frames
  std::variant<Frame, Rejection> parsed = rpc::ParseFrame(line);
  if (auto* rejected = std::get_if<Rejection>(&parsed)) {
    send_(ErrorFrame(rejected->id, rejected->code, rejected->message));
    return;
  }
  Dispatch(std::get<Frame>(parsed), std::move(hold));
}

void Server::RejectOversized(size_t limit) {
  send_(ErrorFrame(Value(), kInvalidRequest,
                   "Invalid Request: a message is over the " + std::to_string(limit) + "-byte limit and was dropped"));
}

void Server::Dispatch(const Frame& f, std::shared_ptr<void> hold) {
  switch (f.kind) {
    case Frame::Kind::kResponse:
      if (roots_request_ && IdText(f.id) == *roots_request_) TakeRoots(f);
      return;  // roots/list is the only request retrace sends
    case Frame::Kind::kNotification:
      if (f.method == "notifications/cancelled") Cancel(f.params);
      if (f.method == "notifications/initialized" || f.method == "notifications/roots/list_changed") AskRoots();
      return;  // the rest need nothing
    case Frame::Kind::kRequest:
      break;
  }
  if (f.method == "initialize") return send_(ResultFrame(f.id, Initialize(f.params)));
  if (f.method == "ping") return send_(ResultFrame(f.id, Value::MakeObject()));
  if (live_ == nullptr && (f.method == "tools/call" || f.method == "tools/list")) {
    return send_(ErrorFrame(f.id, kInternalError, Unavailable()));
  }
  if (f.method == "tools/call") return StartCall(f, std::move(hold));
  if (f.method == "tools/list") {
    const Value* cursor = f.params.Find("cursor");
    if (cursor && !(cursor->is_string() && cursor->as_string().empty())) {
      // One page holds every tool, so no cursor was ever given out.
      return send_(ErrorFrame(f.id, kInvalidParams, "Invalid params: unknown cursor"));
    }
    const bool structured = HasStructuredOutput(version_);
    Value::Array tools;
    for (const runtime::ToolSchema& schema : live_->runtime().registry().Schemas(live_->agent())) {
      if (runtime::ToolDefinitionPtr def = live_->runtime().registry().Get(schema.name, live_->agent())) {
        tools.push_back(ToolEntry(schema, *def, structured));
      }
    }
    return send_(ResultFrame(f.id, Value::MakeObject({{"tools", Value(std::move(tools))}})));
  }
  send_(ErrorFrame(f.id, kMethodNotFound, "Method not found: " + f.method));
}

// What the client is told: where its calls are recorded and, in Code Mode,
// the `tools:code-only` rule (under `code`) and the SDK run_code programs use.
std::string Server::Instructions() const {
  if (live_ == nullptr) return Unavailable();
  const std::string workspace = live_->workspace_chosen() ? live_->workspace() : "the client's roots";
  std::string text =
      "Every tool call is recorded durably in retrace session " + live_->session_id() + " (workspace " + workspace + ").";
  if (live_->runtime().registry().ModeFor(live_->agent()) == runtime::ToolsMode::kCode) {
    text += std::string("\n\n") + runtime::kCodeOnlyInstruction;
  }
  if (std::string sdk = live_->ToolsSdk(); !sdk.empty()) text += "\n\n" + sdk;
  return text;
}

std::string Server::Unavailable() const {
  return "retrace cannot serve its tools: " + unavailable_.message() + " (the server's log on stderr says more)";
}

Value Server::Initialize(const Value& params) {
  const Value* requested = params.Find("protocolVersion");
  version_ = std::string(NegotiateVersion(requested && requested->is_string() ? requested->as_string() : ""));
  client_ = Value::MakeObject({{"protocolVersion", version_}});
  if (const Value* info = params.Find("clientInfo"); info && info->is_object()) {
    client_.Set("clientInfo", *info);
    if (const Value* name = info->Find("name"); name && name->is_string() && !name->as_string().empty()) {
      client_name_ = name->as_string();
    }
  }
  if (const Value* caps = params.Find("capabilities"); caps && caps->is_object()) {
    client_.Set("capabilities", *caps);
    client_has_roots_ = caps->Find("roots") != nullptr;
  }
  Value info = Value::MakeObject({{"name", "retrace"}});
  if (HasStructuredOutput(version_)) info.Set("title", "retrace");
  info.Set("version", options_.version);
  return Value::MakeObject(
      {{"protocolVersion", version_},
       {"capabilities", Value::MakeObject({{"tools", Value::MakeObject({{"listChanged", true}})}})},
       {"serverInfo", std::move(info)},
       {"instructions", Instructions()}});
}

Status Server::NoteClient() {
  if (client_noted_) return Status::Ok();
  ASSIGN_OR_RETURN(runtime::SessionRecorder * recorder, live_->Recorder());
  // With the workspace the calls run in (a session list's title: "claude-code in shop").
  Value note = client_;
  note.Set("workspace", live_->workspace());
  RETURN_IF_ERROR(recorder->Note(log::kMcpClient, std::move(note)));
  client_noted_ = true;
  return Status::Ok();
}

void Server::NoteRejectedCall(const Value& id, const Value& params, int code, const std::string& message) {
  send_(ErrorFrame(id, code, message));
  Value note = Value::MakeObject({{"requestId", id}, {"method", "tools/call"}});
  if (const Value* name = params.Find("name")) note.Set("name", *name);
  if (const Value* args = params.Find("arguments")) note.Set("arguments", *args);
  note.Set("outcome", "error");
  note.Set("code", code);
  note.Set("message", message);
  Status st = NoteClient();
  if (st.ok()) st = (*live_->Recorder())->Note(log::kMcpRequest, std::move(note));
  if (!st.ok()) options_.log("could not record the refused tools/call " + IdText(id) + ": " + st.message());
}

void Server::StartCall(const Frame& f, std::shared_ptr<void> hold) {
  const std::string key = IdText(f.id);
  if (calls_.count(key)) {
    return send_(ErrorFrame(f.id, kInvalidRequest, "Invalid Request: request " + key + " is already in flight"));
  }
  const Value* name = f.params.Find("name");
  if (!name || !name->is_string()) {
    return NoteRejectedCall(f.id, f.params, kInvalidParams, "Invalid params: tools/call needs a \"name\" string");
  }
  const Value* args = f.params.Find("arguments");
  if (args && !args->is_object()) {
    return NoteRejectedCall(f.id, f.params, kInvalidParams, "Invalid params: \"arguments\" must be an object");
  }
  if (!live_->runtime().registry().Get(name->as_string(), live_->agent())) {
    return NoteRejectedCall(f.id, f.params, kInvalidParams, "Unknown tool: " + name->as_string());
  }
  auto call = std::make_shared<Call>();
  call->id = f.id;
  call->key = key;
  call->name = name->as_string();
  call->arguments = args ? json::Serialize(*args) : "{}";
  if (const Value* meta = f.params.Find("_meta"); meta && meta->is_object()) {
    const Value* token = meta->Find("progressToken");
    if (token && (token->is_string() || token->is_number())) call->progress_token = *token;
  }
  call->hold = std::move(hold);
  calls_.emplace(key, call);
  // Begun here, not after a trip through the queue: a brief call is answered
  // before the reader reads on.
  runtime::SpawnNow(executor_, RunCall(call), [this, call](const std::exception_ptr& thrown) {
    if (thrown && !call->done) {  // RunCall reports failures as frames; this is only a backstop
      call->done = true;
      send_(ErrorFrame(call->id, kInternalError, "Internal error: " + runtime::DescribeException(thrown).message));
    }
    calls_.erase(call->key);
    if (calls_.empty() && idle_) idle_->cancel();
  });
}

void Server::AskRoots() {
  if (live_ == nullptr || live_->workspace_chosen() || !client_has_roots_) return;
  const Value id = "retrace-roots-" + std::to_string(++roots_asked_);
  roots_request_ = IdText(id);
  roots_late_ = false;
  if (!roots_wait_) roots_wait_ = std::make_unique<asio::steady_timer>(executor_);
  roots_wait_->expires_after(options_.roots_timeout);
  send_(rpc::RequestFrame(id, "roots/list"));
}

namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The path of a file: URI (RFC 8089: file:///p or file://localhost/p, with
// percent-escapes); nullopt for anything else.
std::optional<std::string> FilePath(std::string_view uri) {
  constexpr std::string_view kScheme = "file://";
  if (uri.substr(0, kScheme.size()) != kScheme) return std::nullopt;
  uri.remove_prefix(kScheme.size());
  if (uri.substr(0, 9) == "localhost") uri.remove_prefix(9);
  if (uri.empty() || uri[0] != '/') return std::nullopt;
  std::string path;
  for (size_t i = 0; i < uri.size(); ++i) {
    if (uri[i] == '%' && i + 2 < uri.size() && HexDigit(uri[i + 1]) >= 0 && HexDigit(uri[i + 2]) >= 0) {
      path += static_cast<char>(HexDigit(uri[i + 1]) * 16 + HexDigit(uri[i + 2]));
      i += 2;
    } else {
      path += uri[i];
    }
  }
  if (path.find('\0') != std::string::npos) return std::nullopt;
  return path;
}

}  // namespace

void Server::TakeRoots(const Frame& response) {
  roots_request_.reset();
  roots_late_ = false;
  if (roots_wait_) roots_wait_->cancel();
  std::vector<std::string> paths;
  const Value* roots = response.result.is_object() ? response.result.Find("roots") : nullptr;
  if (!response.error.is_null() || !roots || !roots->is_array()) {
    options_.log("the client did not list its roots (" + json::Serialize(response.error) + ")");
  } else {
    for (const Value& root : roots->as_array()) {
      const Value* uri = root.is_object() ? root.Find("uri") : nullptr;
      std::optional<std::string> path = uri && uri->is_string() ? FilePath(uri->as_string()) : std::nullopt;
      if (path) {
        paths.push_back(std::move(*path));
      } else {
        options_.log("skipped a root that is not a file: URI: " + json::Serialize(root));
      }
    }
  }
  live_->SetRoots(paths);
  const std::vector<std::string> now = live_->workspace_roots();
  std::string said;
  for (const std::string& r : now) said += (said.empty() ? "" : ", ") + r;
  options_.log(now.empty() ? "no workspace: " + live_->workspace_reason() : "the workspace is now " + said);
}

asio::awaitable<void> Server::RootsSettled() {
  while (roots_request_ && !roots_late_ && roots_wait_) {
    boost::system::error_code ec;
    co_await roots_wait_->async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (!ec && roots_request_ && !roots_late_) {  // the time ran out before the answer came
      options_.log("the client did not answer roots/list in time; calls run in the workspace as it is until it does");
      roots_late_ = true;  // a late answer is still taken (TakeRoots)
    }
  }
}

asio::awaitable<void> Server::RunCall(std::shared_ptr<Call> call) {
  co_await RootsSettled();
  if (Status st = NoteClient(); !st.ok()) {
    call->done = true;
    send_(ErrorFrame(call->id, kInternalError, "Internal error: could not record the call: " + st.message()));
    co_return;
  }
  call->call_id = "mcp-" + live_->NewId();
  if (call->progress_token) asio::co_spawn(executor_, ReportProgress(call), asio::detached);
  runtime::LooseCall loose{.call = {call->call_id, call->name, call->arguments},
                           .provider = "mcp",
                           .model = client_name_,
                           .signal = call->abort.signal(),
                           .agent = live_->agent(),
                           .notes = [call](const runtime::ToolResult& r) {
                             Value note = Value::MakeObject({{"requestId", call->id},
                                                             {"method", "tools/call"},
                                                             {"callId", call->call_id}});
                             note.Set("outcome", call->cancelled ? "cancelled" : r.is_error ? "isError" : "result");
                             std::vector<std::pair<std::string, Value>> notes;
                             notes.emplace_back(std::string(log::kMcpRequest), std::move(note));
                             return notes;
                           }};
  Result<runtime::ToolResultPtr> result = co_await live_->Call(std::move(loose));
  call->done = true;
  if (call->progress_timer) call->progress_timer->cancel();
  if (call->cancelled) co_return;  // the client gave up on it: no answer (MCP basic/utilities/cancellation)
  if (!result.ok()) {
    send_(ErrorFrame(call->id, kInternalError, "Internal error: could not record the call: " + result.status().message()));
    co_return;
  }
  const runtime::ToolDefinitionPtr def = live_->runtime().registry().Get(call->name, live_->agent());
  send_(ResultFrame(call->id, CallResult(**result, def.get(), HasStructuredOutput(version_))));
}

asio::awaitable<void> Server::ReportProgress(std::shared_ptr<Call> call) {
  call->progress_timer = std::make_unique<asio::steady_timer>(executor_);
  auto wait = options_.progress_after;
  const auto started = std::chrono::steady_clock::now();
  int64_t reports = 0;
  while (!call->done) {
    call->progress_timer->expires_after(wait);
    boost::system::error_code ec;
    co_await call->progress_timer->async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (ec || call->done || call->cancelled) co_return;
    wait = options_.progress_every;
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
    // No total is known; progress counts the reports, so it always increases.
    send_(NotificationFrame("notifications/progress",
                            Value::MakeObject({{"progressToken", *call->progress_token},
                                               {"progress", ++reports},
                                               {"message", call->name + " running for " +
                                                               std::to_string(ms.count() / 1000) + " s"}})));
  }
}

void Server::Cancel(const Value& params) {
  const Value* id = params.Find("requestId");
  if (!id) return;
  auto it = calls_.find(IdText(*id));
  if (it == calls_.end() || it->second->done) return;  // unknown or finished: MAY be ignored
  const Value* reason = params.Find("reason");
  it->second->cancelled = true;
  it->second->hold.reset();  // no answer will come: the transport may read on
  it->second->abort.Abort(reason && reason->is_string() ? reason->as_string() : "cancelled by the client");
}

void Server::AbortAll(const std::string& reason) {
  for (auto& [key, call] : calls_) call->abort.Abort(reason);
}

asio::awaitable<void> Server::Drain() {
  if (!idle_) idle_ = std::make_unique<asio::steady_timer>(executor_, std::chrono::steady_clock::time_point::max());
  while (!calls_.empty()) {
    boost::system::error_code ec;
    co_await idle_->async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
}

}  // namespace retrace::mcp
