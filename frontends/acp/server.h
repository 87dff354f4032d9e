// Server: `retrace acp`, an ACP v1 agent (protocol version 1) for editors
// browsing history, over any line transport (frontends/acp/stdio.h gives it stdin and
// stdout). It serves the sessions of one retrace database:
//
//   initialize      protocolVersion 1, loadSession, sessionCapabilities.list,
//                   no prompt capabilities, no auth methods
//   session/list    {cwd?, cursor?} → sessions newest first, each with its
//                   cwd, title and updatedAt; a page of `page_size`, then an
//                   opaque nextCursor
//   session/load    every session/update of the session (frontends/acp/session_updates.h)
//                   streamed, then {}; an unknown session is -32002
//   session/new, session/prompt   a clear -32601: retrace has no model
//   anything else   -32601; notifications (session/cancel) need nothing
//
// Requests are answered in order, one at a time. Bad lines get their
// JSON-RPC error and the server goes on.
#ifndef RETRACE_ACP_SERVER_H_
#define RETRACE_ACP_SERVER_H_

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "engine/json/value.h"
#include "presenters/presenter.h"
#include "frontends/rpc/json_rpc.h"
#include "service/catalog.h"

namespace retrace::acp {

inline constexpr int kProtocolVersion = 1;
inline constexpr int kResourceNotFound = -32002;  // ACP ErrorCode

struct ServerOptions {
  std::string version;     // agentInfo.version
  size_t page_size = 1000;  // sessions per session/list answer (Zed asks for one page)
  // The presenters session/load shows cards with (null: the reference tools');
  // they must outlive the server.
  const presenters::PresenterSet* presenters = nullptr;
  // Said to the operator (stderr), never to the client.
  std::function<void(const std::string&)> log = [](const std::string&) {};
};

// Holds the catalog by reference: the catalog must outlive the server.
class Server {
 public:
  // Writes one frame (one line, without its newline); false once the client
  // is gone, which ends a session/load early.
  using Send = std::function<bool(const std::string& frame)>;

  Server(const service::Catalog& catalog, Send send, ServerOptions options);

  void HandleLine(std::string_view line);
  // A line longer than `limit` bytes was dropped unread.
  void RejectOversized(size_t limit);

 private:
  void Dispatch(const rpc::Frame& frame);
  json::Value Initialize(const json::Value& params);
  void List(const rpc::Frame& frame);
  void Load(const rpc::Frame& frame);

  const service::Catalog& catalog_;
  Send send_;
  ServerOptions options_;
  bool terminal_output_ = false;  // the client advertised _meta.terminal_output
};

// session/list's cursors: opaque to the client, the session id to continue after.
std::string EncodeCursor(std::string_view after_session_id);
std::optional<std::string> DecodeCursor(std::string_view cursor);

}  // namespace retrace::acp

#endif  // RETRACE_ACP_SERVER_H_
