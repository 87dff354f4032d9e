#include "tools/web_fetch_tool.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <filesystem>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include "engine/json/writer.h"
#include "engine/runtime/asio.h"
#include "engine/schema/schema_spec.h"
#include "tools/html_text.h"
#include "tools/reference_tool.h"
#include "engine/json/js_text.h"

namespace retrace::tools {
namespace {

using json::Value;
using namespace schema;
namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;

constexpr double kFetchTimeoutMs = 30000;
constexpr size_t kMaxBodyBytes = size_t{5} * 1024 * 1024;
constexpr int kMaxRedirects = 5;
constexpr const char* kFoot = "\n\n(Content truncated. Fetch a more specific URL or section for the full text.)";

struct Url {
  bool tls = false;
  std::string host, port, target = "/";
};

Url ParseHttpUrl(const std::string& url) {
  const std::string lower = [&] {
    std::string s = url.substr(0, 8);
    for (char& c : s) c = static_cast<char>(tolower(static_cast<unsigned char>(c)));
    return s;
  }();
  Url u;
  u.tls = lower.rfind("https://", 0) == 0;
  if (!u.tls && lower.rfind("http://", 0) != 0) throw std::runtime_error("web_fetch: only http:// and https:// URLs can be fetched: " + url);
  u.port = u.tls ? "443" : "80";
  std::string rest = url.substr(u.tls ? 8 : 7);
  const size_t slash = rest.find_first_of("/?#");
  std::string authority = rest.substr(0, slash);
  if (slash != std::string::npos) u.target = rest[slash] == '/' ? rest.substr(slash) : "/" + rest.substr(slash);
  if (const size_t hash = u.target.find('#'); hash != std::string::npos) u.target.erase(hash);
  if (const size_t at = authority.rfind('@'); at != std::string::npos) authority.erase(0, at + 1);
  if (const size_t colon = authority.rfind(':'); colon != std::string::npos && authority.find(']', colon) == std::string::npos) {
    u.port = authority.substr(colon + 1);
    authority.erase(colon);
  }
  if (authority.size() > 1 && authority.front() == '[') authority = authority.substr(1, authority.size() - 2);
  if (authority.empty()) throw std::runtime_error("web_fetch: the URL has no host: " + url);
  u.host = authority;
  return u;
}

// The TLS client settings of one fetch: TLS 1.2 or later, the peer's chain
// checked against the system's trust store (OpenSSL's compiled-in default
// file and directory, not its environment variables: the host passes those)
// plus the host's extra CA file, and the certificate checked for the host
// name or IP address of the URL.
std::unique_ptr<net::ssl::context> TlsContext(const WebFetchOptions& options, const std::string& url) {
  auto ctx = std::make_unique<net::ssl::context>(net::ssl::context::tls_client);
  ctx->set_options(net::ssl::context::default_workarounds | net::ssl::context::no_sslv2 | net::ssl::context::no_sslv3 |
                   net::ssl::context::no_tlsv1 | net::ssl::context::no_tlsv1_1);
  X509_STORE* store = SSL_CTX_get_cert_store(ctx->native_handle());
  X509_STORE_load_file(store, X509_get_default_cert_file());  // absent on a minimal system: then only the extra CAs
  X509_STORE_load_path(store, X509_get_default_cert_dir());
  ERR_clear_error();
  if (!options.ca_file.empty()) {
    beast::error_code ec;
    ctx->load_verify_file(options.ca_file, ec);
    if (ec) {
      std::error_code missing;
      const std::string why = std::filesystem::is_regular_file(options.ca_file, missing) ? "it holds no PEM certificate"
                                                                                         : "no such file";
      throw std::runtime_error("web_fetch: cannot load the CA file " + options.ca_file + " for " + url + ": " + why);
    }
  }
  ctx->set_verify_mode(net::ssl::verify_peer);
  return ctx;
}

// Resolves a Location header against the URL it came from.
std::string Resolve(const std::string& base, const std::string& location) {
  if (location.find("://") != std::string::npos) return location;
  const size_t authority_end = base.find('/', base.find("://") + 3);
  const std::string origin = base.substr(0, authority_end);
  if (!location.empty() && location[0] == '/') return origin + location;
  const std::string path = authority_end == std::string::npos ? "/" : base.substr(authority_end);
  return origin + path.substr(0, path.rfind('/') + 1) + location;
}

struct Fetched {
  std::string url;
  int status = 0;
  std::string content_type, body;
  bool truncated = false;
  std::optional<std::string> location;  // a 3xx's redirect target
};

// What one GET gathers as it goes: the parsed response, and the first error.
struct Exchange {
  http::request<http::empty_body> req;
  http::response_parser<http::string_body> parser;
  beast::flat_buffer buffer;
  beast::error_code ec;
  bool over = false;  // the body passed the cap: the rest is not read
};

// The request and the response on an open stream; the body is read chunk by
// chunk, stopping at the cap.
template <typename Stream>
net::awaitable<void> Talk(Stream& stream, Exchange& x) {
  auto token = net::redirect_error(net::use_awaitable, x.ec);
  co_await http::async_write(stream, x.req, token);
  if (x.ec) co_return;
  co_await http::async_read_header(stream, x.buffer, x.parser, token);
  while (!x.ec && !x.parser.is_done()) {
    if (x.parser.get().body().size() > kMaxBodyBytes) {
      x.over = true;
      co_return;
    }
    co_await http::async_read_some(stream, x.buffer, x.parser, token);
    // A server that closes without TLS's close_notify ends a close-delimited body
    // just as a TCP close does; HTTP's own framing catches a cut Content-Length body.
    if (x.ec == http::error::end_of_stream || x.ec == net::ssl::error::stream_truncated) {
      x.ec = {};
      co_return;
    }
  }
}

// Resolve, connect, the TLS handshake when `secure`, then Talk.
net::awaitable<void> Run(const Url& u, beast::tcp_stream& tcp, beast::ssl_stream<beast::tcp_stream>* secure, Exchange& x) {
  auto token = net::redirect_error(net::use_awaitable, x.ec);
  net::ip::tcp::resolver resolver(tcp.get_executor());
  const auto results = co_await resolver.async_resolve(u.host, u.port, token);
  if (x.ec) co_return;
  co_await tcp.async_connect(results, token);
  if (x.ec) co_return;
  if (!secure) {
    co_await Talk(tcp, x);
    co_return;
  }
  co_await secure->async_handshake(net::ssl::stream_base::client, token);
  if (x.ec) co_return;
  co_await Talk(*secure, x);
}

// One GET, bounded by `deadline` and cancelled by `signal`, over TCP or TLS.
Fetched Get(const std::string& url, std::chrono::steady_clock::time_point deadline, const runtime::Signal& signal,
            const WebFetchOptions& options) {
  const Url u = ParseHttpUrl(url);
  net::io_context io;
  std::unique_ptr<net::ssl::context> tls = u.tls ? TlsContext(options, url) : nullptr;
  std::optional<beast::tcp_stream> plain;
  std::optional<beast::ssl_stream<beast::tcp_stream>> secure;
  if (tls) {
    secure.emplace(io, *tls);
    boost::system::error_code bad_ip;
    net::ip::make_address(u.host, bad_ip);
    // SNI names a host; an IP address is not sent (RFC 6066 §3).
    if (bad_ip && !SSL_set_tlsext_host_name(secure->native_handle(), u.host.c_str())) {
      throw std::runtime_error("web_fetch: cannot set the TLS server name for " + url);
    }
    secure->set_verify_callback(net::ssl::host_name_verification(u.host));
  } else {
    plain.emplace(io);
  }
  beast::tcp_stream& tcp = tls ? beast::get_lowest_layer(*secure) : *plain;
  Exchange x;
  x.parser.body_limit(std::numeric_limits<std::uint64_t>::max());  // our own cap keeps what fits
  x.req = {http::verb::get, u.target, 11};
  x.req.set(http::field::host, u.host);
  x.req.set(http::field::user_agent, "retrace-web-fetch");
  x.req.set(http::field::accept, "text/html, text/plain;q=0.9, */*;q=0.5");
  tcp.expires_at(deadline);
  runtime::Subscription cancel = signal.OnAbort([&io, &tcp](const std::string&) {
    net::post(io, [&tcp] { tcp.socket().close(); });
  });
  net::co_spawn(io, Run(u, tcp, secure ? &*secure : nullptr, x), net::detached);
  io.run();
  cancel.Reset();
  if (signal.aborted()) throw runtime::ToolError("tool call aborted", "AbortError", "ABORTED");
  if (x.ec) {
    const std::string what = x.ec == beast::error::timeout ? "timed out fetching" : "could not fetch";
    throw std::runtime_error("web_fetch: " + what + " " + url + ": " + x.ec.message());
  }
  const auto& res = x.parser.get();
  Fetched out;
  out.url = url;
  out.status = static_cast<int>(res.result_int());
  out.content_type = std::string(res[http::field::content_type]);
  out.body = res.body();
  if (x.over || out.body.size() > kMaxBodyBytes) {
    out.body.resize(kMaxBodyBytes);
    out.truncated = true;
  }
  if (res.result_int() >= 300 && res.result_int() < 400 && res.count(http::field::location)) {
    out.location = std::string(res[http::field::location]);
  }
  return out;
}

Value Fetch(const std::string& url, const runtime::Signal& signal, const WebFetchOptions& options) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(static_cast<int64_t>(kFetchTimeoutMs));
  std::string current = url;
  for (int hop = 0;; ++hop) {
    Fetched f = Get(current, deadline, signal, options);
    if (f.location) {
      if (hop == kMaxRedirects) throw std::runtime_error("web_fetch: too many redirects from " + url);
      current = Resolve(current, *f.location);
      continue;
    }
    std::string type = f.content_type;
    for (char& c : type) c = static_cast<char>(tolower(static_cast<unsigned char>(c)));
    const bool html = type.find("html") != std::string::npos;
    return Value::MakeObject({{"url", f.url},
                              {"statusCode", f.status},
                              {"body", Value::MakeObject({{"kind", html ? "html" : "text"},
                                                          {"content", json::DecodeUtf8Lossy(f.body)}})},
                              {"truncated", f.truncated}});
  }
}

}  // namespace

FetchOutput ComputeFetchOutput(const Value& v, size_t cap) {
  const std::string header = "Fetched " + v.Find("url")->as_string() + " (HTTP " +
                             json::FormatNumber(v.Find("statusCode")->as_number()) + ")\n\n";
  const Value& body = *v.Find("body");
  const std::string& content = body.Find("content")->as_string();
  const std::string src = json::Utf16Prefix(content, cap);
  const bool src_cut = src.size() != content.size();
  const std::string rendered = body.Find("kind")->as_string() == "html" ? HtmlToMarkdown(src) : src;
  const std::string prefix = header + rendered;
  const size_t prefix_len = json::Utf16Length(prefix);
  const bool truncated = v.Find("truncated")->as_bool() || src_cut || prefix_len > cap;
  const std::string full = truncated ? prefix + kFoot : prefix;
  const size_t foot_len = json::Utf16Length(kFoot);  // 78
  if (json::Utf16Length(full) <= cap) return {full, truncated};
  if (cap < foot_len) return {json::Utf16Prefix(full, cap), truncated};
  return {json::Utf16Prefix(prefix, cap - foot_len) + kFoot, truncated};
}

Result<runtime::ToolDefinitionPtr> WebFetchTool(WebFetchOptions options) {
  runtime::ToolDefinition spec{
      .name = "web_fetch",
      .description = "Fetch the content of a specific HTTP(S) URL and return it decoded to text.",
      .output = {.schema = Object(false, {{"url", String().Required()},
                                          {"statusCode", Integer().Required()},
                                          {"body", Object(false, {{"kind", String().Enum({"html", "text"}).Required()},
                                                                  {"content", String().Required()}})
                                                       .Required()},
                                          {"truncated", Boolean().Required()}}),
                 .render = [](const Value&, const Value& v) { return runtime::TextContent(ComputeFetchOutput(v).text); },
                 .presentation_meta =
                     [](const Value&, const Value& v) {
                       return Value::MakeObject({{"url", *v.Find("url")},
                                                 {"statusCode", *v.Find("statusCode")},
                                                 {"truncated", ComputeFetchOutput(v).truncated}});
                     }},
      .execute =
          [options = std::move(options)](runtime::ToolRunContext& run) {
            const std::string& url = run.arguments().Find("url")->as_string();
            if (json::IsJsBlank(url)) throw std::runtime_error("url must be a non-empty string");
            return Fetch(url, run.signal(), options);
          },
      .timeout_ms = kFetchTimeoutMs,
      .is_concurrency_safe = [](const Value&) { return true; },
  };
  return DefineReferenceTool(std::move(spec));
}

}  // namespace retrace::tools
