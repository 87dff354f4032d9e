// The built-in `web_fetch` tool (dsh-reference-tools §3.3) with its own
// provider: an HTTP/1.1 GET over Boost.Beast, plain or over TLS (OpenSSL),
// that follows up to five redirects, decodes the body as UTF-8 text (HTML
// bodies are converted to Markdown for the model), and keeps at most 5 MB of
// it. https:// checks the server's certificate chain against the system's
// trust store and the URL's host name; a failed check is an error naming the
// URL and OpenSSL's reason. A non-2xx status is a successful result.
//
// The presenters of `web_search` are in presenters/ (so dsh logs with it
// replay); there is no search provider to execute it.
#ifndef RETRACE_TOOLS_WEB_FETCH_TOOL_H_
#define RETRACE_TOOLS_WEB_FETCH_TOOL_H_

#include <retrace/engine/runtime/tool_definition.h>

namespace retrace::tools {

struct WebFetchOptions {
  // A PEM file of CA certificates trusted besides the system's (a private CA,
  // a TLS-inspecting proxy, tests). The host decides it: `retrace run` passes
  // $SSL_CERT_FILE when it is set.
  std::string ca_file{};
};

Result<runtime::ToolDefinitionPtr> WebFetchTool(WebFetchOptions options = {});

// dsh's computeFetchOutput: the model-facing text of a fetch value
// ({url, statusCode, body:{kind, content}, truncated}) and whether it was cut.
struct FetchOutput {
  std::string text;
  bool truncated = false;
};
FetchOutput ComputeFetchOutput(const json::Value& value, size_t max_output_chars = 200000);

}  // namespace retrace::tools

#endif  // RETRACE_TOOLS_WEB_FETCH_TOOL_H_
