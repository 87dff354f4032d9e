// Server: retrace's MCP server for one client connection (MCP 2025-11-25,
// with the 2025-06-18 and 2025-03-26 handshakes), over any line transport
// (frontends/mcp/stdio.h gives it stdin and stdout). It serves the live session's
// tools and records every tools/call into that session:
//
//   initialize        the negotiated revision, serverInfo, tools.listChanged
//   ping              {}
//   tools/list        every tool the session's agent sees (frontends/mcp/tool_listing.h)
//   tools/call        through the whole pipeline; calls overlap as dsh schedules them
//   notifications/cancelled   aborts the call, which is recorded as ABORTED;
//                             its request gets no answer (as the spec says)
//   notifications/initialized, notifications/roots/list_changed
//                     when the user chose no workspace and the client has
//                     roots: a roots/list request, whose answer becomes the
//                     workspace (LiveSession::SetRoots); calls wait for it
//   anything else     -32601 at once (server/discover included)
//
// A request that carries _meta.progressToken gets notifications/progress
// while its call runs past `progress_after`. Bad lines get their JSON-RPC
// error and the server goes on. Everything runs on one executor's thread:
// HandleLine, and the frames it sends.
#ifndef RETRACE_MCP_SERVER_H_
#define RETRACE_MCP_SERVER_H_

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <memory>
#include <string>
#include <string_view>

#include "engine/json/value.h"
#include "engine/runtime/asio.h"
#include "engine/runtime/cancellation.h"
#include "frontends/mcp/protocol.h"
#include "frontends/rpc/json_rpc.h"
#include "service/live_session.h"

namespace retrace::mcp {

struct ServerOptions {
  std::string version;  // serverInfo.version
  std::chrono::milliseconds progress_after{500};
  std::chrono::milliseconds progress_every{1000};
  // How long calls wait for the answer to roots/list before they run in the
  // workspace as it is.
  std::chrono::milliseconds roots_timeout{10000};
  // Said to the operator (stderr), never to the client: what could not be recorded.
  std::function<void(const std::string&)> log = [](const std::string&) {};
};

// Holds the live session by pointer: the session must outlive the server.
class Server {
 public:
  // `send` writes one frame (one line, without its newline).
  using Send = std::function<void(const std::string& frame)>;

  // `live` is the session to serve, or why there is none (its database or
  // workspace could not be opened). Without one the server still answers
  // initialize (its instructions give the reason) and ping, and answers
  // tools/list and tools/call with an error giving the reason: a client then
  // shows why, where an exit before initialize shows only "failed to connect".
  Server(runtime::asio::any_io_executor executor, Result<service::LiveSession*> live, Send send,
         ServerOptions options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Handles one client line. `hold` is released when the line's request
  // has been answered (or needs no answer): what a transport counts to stop
  // reading while too many requests are in flight.
  void HandleLine(std::string_view line, std::shared_ptr<void> hold = nullptr);
  // A line longer than `limit` bytes was dropped unread.
  void RejectOversized(size_t limit);

  size_t in_flight() const { return calls_.size(); }
  // Aborts every call in flight (a shutdown past its grace period).
  void AbortAll(const std::string& reason);
  // Completes once no call is in flight.
  runtime::asio::awaitable<void> Drain();

  const std::string& protocol_version() const { return version_; }

 private:
  struct Call;
  void Dispatch(const rpc::Frame& frame, std::shared_ptr<void> hold);
  json::Value Initialize(const json::Value& params);
  std::string Instructions() const;
  std::string Unavailable() const;  // the error every request gets without a session
  void StartCall(const rpc::Frame& frame, std::shared_ptr<void> hold);
  runtime::asio::awaitable<void> RunCall(std::shared_ptr<Call> call);
  runtime::asio::awaitable<void> ReportProgress(std::shared_ptr<Call> call);
  void Cancel(const json::Value& params);
  // Records how a request ended when the session could not be reached
  // otherwise (a JSON-RPC error answering a tools/call).
  void NoteRejectedCall(const json::Value& id, const json::Value& params, int code, const std::string& message);
  // The first record of this connection: its client (retrace/mcp-client).
  Status NoteClient();
  // Roots (MCP client/roots): asks for them, takes the answer, and lets
  // calls wait until it came.
  void AskRoots();
  void TakeRoots(const rpc::Frame& response);
  runtime::asio::awaitable<void> RootsSettled();

  runtime::asio::any_io_executor executor_;
  service::LiveSession* live_;  // null: unavailable_ says why
  Status unavailable_;
  Send send_;
  ServerOptions options_;
  std::string version_ = "2025-11-25";
  json::Value client_ = json::Value::MakeObject();  // initialize's clientInfo and capabilities
  std::string client_name_ = "mcp-client";
  bool client_noted_ = false;
  bool client_has_roots_ = false;             // initialize's capabilities.roots
  std::optional<std::string> roots_request_;  // IdText of the roots/list awaiting its answer
  int64_t roots_asked_ = 0;
  bool roots_late_ = false;  // roots_timeout passed: calls no longer wait for the answer
  std::unique_ptr<runtime::asio::steady_timer> roots_wait_;  // cancelled when the answer comes
  std::map<std::string, std::shared_ptr<Call>> calls_;  // by request id text
  std::unique_ptr<runtime::asio::steady_timer> idle_;   // cancelled when calls_ empties
};

}  // namespace retrace::mcp

#endif  // RETRACE_MCP_SERVER_H_
