// ServeStdio: `retrace acp`'s transport (ACP v1 transports, stdio): frames in
// on one descriptor, one per line; frames out on another and nothing else
// there. Requests are handled one at a time, in order, on the calling
// thread: a session/load writes its updates as fast as the client reads
// them, and the next request waits in the pipe. A line over
// `max_frame_bytes` is dropped as it streams in and answered with an error.
// It returns at end of input, or once the client stops reading.
#ifndef RETRACE_ACP_STDIO_H_
#define RETRACE_ACP_STDIO_H_

#include <cstddef>

#include "frontends/acp/server.h"
#include "engine/base/status.h"
#include "service/catalog.h"

namespace retrace::acp {

struct StdioOptions {
  size_t max_frame_bytes = size_t{16} << 20;
};

Status ServeStdio(const service::Catalog& catalog, int in_fd, int out_fd, ServerOptions server_options,
                  StdioOptions options = {});

}  // namespace retrace::acp

#endif  // RETRACE_ACP_STDIO_H_
