// ServeStdio: `retrace mcp`'s transport (MCP 2025-11-25 basic/transports,
// stdio): frames in on one descriptor, one per line; frames out on another
// and nothing else there (what the operator should see goes to stderr). One
// thread reads the frames and answers them; only tool bodies that may block
// run elsewhere (the runtime's pool).
//
// Limits that keep a hostile or broken client from taking the server down:
// a line over `max_frame_bytes` is dropped as it streams in (never buffered
// whole) and answered with an error; while `max_in_flight` requests wait
// for their answer, the server stops reading, so requests queue in the pipe,
// not in memory.
//
// It ends when the client does: at end of input every call in flight
// finishes and is answered, the open turn is closed, and it returns. SIGTERM
// or SIGINT stop reading the same way, but calls still running after
// `shutdown_grace` are aborted (and recorded so).
#ifndef RETRACE_MCP_STDIO_H_
#define RETRACE_MCP_STDIO_H_

#include <chrono>
#include <cstddef>

#include "engine/base/status.h"
#include "frontends/mcp/server.h"
#include "service/live_session.h"

namespace retrace::mcp {

struct StdioOptions {
  size_t max_frame_bytes = size_t{16} << 20;
  size_t max_in_flight = 256;
  std::chrono::milliseconds shutdown_grace{5000};
  bool handle_signals = true;  // SIGTERM / SIGINT end the session (the CLI); tests may not want it
};

struct StdioOutcome {
  bool signalled = false;     // SIGTERM or SIGINT, not end of input
  int64_t aborted_calls = 0;  // calls still running at the end of the grace period
};

// `live`: the session to serve, or why there is none (Server's constructor).
Result<StdioOutcome> ServeStdio(Result<service::LiveSession*> live, int in_fd, int out_fd,
                                ServerOptions server_options, StdioOptions options = {});

}  // namespace retrace::mcp

#endif  // RETRACE_MCP_STDIO_H_
