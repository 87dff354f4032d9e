// web_fetch against a real HTTP server on 127.0.0.1, and its page text.
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>

#include <map>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/runtime/tool_runtime.h"
#include "tests/runtime/runtime_test_util.h"
#include "tests/test_util.h"
#include "tools/html_text.h"
#include "tools/web_fetch_tool.h"

namespace retrace::tools {
namespace {

using json::Value;
using ::testing::HasSubstr;
namespace net = boost::asio;

// A one-thread HTTP/1.1 server: path → raw response head (status line and
// headers, without the blank line) and body. With a TLS context it speaks
// https.
class LocalServer {
 public:
  explicit LocalServer(std::map<std::string, std::pair<std::string, std::string>> routes,
                       net::ssl::context* tls = nullptr)
      : routes_(std::move(routes)), tls_(tls), acceptor_(io_, {net::ip::make_address("127.0.0.1"), 0}) {
    thread_ = std::thread([this] { Serve(); });
  }
  ~LocalServer() {
    stop_ = true;
    net::ip::tcp::socket poke(io_);
    boost::system::error_code ec;
    poke.connect(acceptor_.local_endpoint(), ec);
    thread_.join();
  }
  std::string Url(const std::string& path, const std::string& host = "127.0.0.1") const {
    return (tls_ ? "https://" : "http://") + host + ":" + std::to_string(acceptor_.local_endpoint().port()) + path;
  }

 private:
  template <class Stream>
  void Answer(Stream& stream) {
    boost::system::error_code ec;
    net::streambuf request;
    net::read_until(stream, request, "\r\n\r\n", ec);
    if (ec) return;
    std::string line(net::buffers_begin(request.data()), net::buffers_end(request.data()));
    const std::string path = line.substr(4, line.find(' ', 4) - 4);
    auto it = routes_.find(path);
    const auto& [head, body] = it != routes_.end() ? it->second : routes_.at("/404");
    const std::string response = head + "\r\nContent-Length: " + std::to_string(body.size()) +
                                 "\r\nConnection: close\r\n\r\n" + body;
    net::write(stream, net::buffer(response), ec);
  }

  void Serve() {
    while (!stop_) {
      net::ip::tcp::socket socket(io_);
      boost::system::error_code ec;
      acceptor_.accept(socket, ec);
      if (ec || stop_) continue;
      if (!tls_) {
        Answer(socket);
        continue;
      }
      net::ssl::stream<net::ip::tcp::socket&> secure(socket, *tls_);
      secure.handshake(net::ssl::stream_base::server, ec);
      if (ec) continue;  // the client refused our certificate
      Answer(secure);
      secure.shutdown(ec);
    }
  }

  std::map<std::string, std::pair<std::string, std::string>> routes_;
  net::ssl::context* tls_;
  net::io_context io_;
  net::ip::tcp::acceptor acceptor_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
};

const char* kPage =
    "<!DOCTYPE html><html><head><title>T</title><script>if (a < b) alert('</p>')</script></head><body>"
    "<h1>Release notes</h1><p>Version <b>2.0</b> &amp; more: see <a href=\"/docs\">the docs</a>.</p>"
    "<ul><li>faster</li><li>smaller</li></ul><pre>x = 1\n  y = 2</pre>"
    "<table><tr><th>name</th><th>size</th></tr><tr><td>a|b</td><td>1</td></tr></table></body></html>";

class WebFetchTest : public ::testing::Test {
 protected:
  WebFetchTest()
      : server_({{"/text", {"HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8", "hello\n"}},
                 {"/page", {"HTTP/1.1 200 OK\r\nContent-Type: text/html", kPage}},
                 {"/404", {"HTTP/1.1 404 Not Found\r\nContent-Type: text/plain", "not here"}},
                 {"/moved", {"HTTP/1.1 302 Found\r\nLocation: /text", ""}},
                 {"/big", {"HTTP/1.1 200 OK\r\nContent-Type: text/plain", std::string(300000, 'a')}}}) {
    reg_ = runtime::testing::MustRegister(rt_, std::move(WebFetchTool()).value());
  }
  runtime::ToolResultPtr Fetch(const std::string& url) {
    return runtime::testing::Exec(rt_, runtime::testing::Call("web_fetch", Value::MakeObject({{"url", url}})));
  }

  LocalServer server_;
  runtime::ToolRuntime rt_;
  runtime::Registration reg_;
};

TEST_F(WebFetchTest, ATextPageComesBackWithItsStatus) {
  runtime::ToolResultPtr r = Fetch(server_.Url("/text"));
  EXPECT_FALSE(r->is_error);
  EXPECT_EQ(runtime::testing::Text(*r), "Fetched " + server_.Url("/text") + " (HTTP 200)\n\nhello\n");
  EXPECT_EQ(json::Serialize(*r->meta), R"({"url":")" + server_.Url("/text") + R"(","statusCode":200,"truncated":false})");
}

TEST_F(WebFetchTest, ANon2xxStatusIsASuccessAndRedirectsAreFollowed) {
  runtime::ToolResultPtr missing = Fetch(server_.Url("/missing"));
  EXPECT_FALSE(missing->is_error);
  EXPECT_THAT(runtime::testing::Text(*missing), HasSubstr("(HTTP 404)\n\nnot here"));
  runtime::ToolResultPtr moved = Fetch(server_.Url("/moved"));
  EXPECT_EQ(runtime::testing::Text(*moved), "Fetched " + server_.Url("/text") + " (HTTP 200)\n\nhello\n");
}

TEST_F(WebFetchTest, HtmlBecomesMarkdownWithoutScripts) {
  const std::string text = runtime::testing::Text(*Fetch(server_.Url("/page")));
  EXPECT_EQ(text, "Fetched " + server_.Url("/page") +
                      " (HTTP 200)\n\n# Release notes\n\nVersion **2.0** & more: see [the docs](/docs).\n\n-   faster\n"
                      "-   smaller\n\n```\nx = 1\n  y = 2\n```\n\n| name | size |\n| --- | --- |\n| a\\|b | 1   |");
}

TEST_F(WebFetchTest, ALongBodyIsCutToTheCapWithTheFootnote) {
  runtime::ToolResultPtr r = Fetch(server_.Url("/big"));
  const std::string text = runtime::testing::Text(*r);
  EXPECT_EQ(text.size(), 200000u);
  EXPECT_THAT(text, ::testing::EndsWith("\n\n(Content truncated. Fetch a more specific URL or section for the full text.)"));
  EXPECT_EQ(r->meta->Find("truncated")->as_bool(), true);
}

TEST_F(WebFetchTest, UnreachableAndUnsupportedUrlsAreErrors) {
  runtime::ToolResultPtr refused = Fetch("http://127.0.0.1:1/x");
  EXPECT_TRUE(refused->is_error);
  EXPECT_THAT(runtime::testing::Text(*refused), HasSubstr("could not fetch http://127.0.0.1:1/x"));
  EXPECT_THAT(runtime::testing::Text(*Fetch("ftp://example.com")), HasSubstr("only http:// and https:// URLs"));
  EXPECT_EQ(runtime::testing::Text(*Fetch("  ")), "Error: url must be a non-empty string");
}

// https against a server on 127.0.0.1 whose certificate (for IP 127.0.0.1 only)
// is signed by a throwaway CA made with the openssl tool.
class WebFetchTlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string d = dir_.path();
    const std::string make =
        "cd " + d + " && openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj /CN=retrace-test-ca"
        " 2>&1 && openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj /CN=retrace-test 2>&1"
        " && printf 'subjectAltName=IP:127.0.0.1\\n' > san.ext && openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key"
        " -CAcreateserial -out server.pem -days 2 -extfile san.ext 2>&1";
    const retrace::testing::ShellOutcome made = retrace::testing::Shell(make);
    if (made.code != 0) GTEST_SKIP() << "the openssl tool could not make a test certificate (is it installed?): " << made.out;
    tls_.use_certificate_chain_file(d + "/server.pem");
    tls_.use_private_key_file(d + "/server.key", net::ssl::context::pem);
    server_.emplace(std::map<std::string, std::pair<std::string, std::string>>{
                        {"/text", {"HTTP/1.1 200 OK\r\nContent-Type: text/plain", "over TLS\n"}},
                        {"/404", {"HTTP/1.1 404 Not Found\r\nContent-Type: text/plain", "not here"}}},
                    &tls_);
  }
  runtime::ToolResultPtr Fetch(const std::string& url, const std::string& ca_file) {
    runtime::ToolRuntime rt;
    runtime::Registration reg = runtime::testing::MustRegister(rt, std::move(WebFetchTool({.ca_file = ca_file})).value());
    return runtime::testing::Exec(rt, runtime::testing::Call("web_fetch", Value::MakeObject({{"url", url}})));
  }

  retrace::testing::TempDir dir_;
  net::ssl::context tls_{net::ssl::context::tls_server};
  std::optional<LocalServer> server_;
};

TEST_F(WebFetchTlsTest, AnHttpsPageComesBackWhenItsCertificateChainsToATrustedCa) {
  runtime::ToolResultPtr r = Fetch(server_->Url("/text"), dir_ / "ca.pem");
  EXPECT_FALSE(r->is_error) << runtime::testing::Text(*r);
  EXPECT_EQ(runtime::testing::Text(*r), "Fetched " + server_->Url("/text") + " (HTTP 200)\n\nover TLS\n");
}

TEST_F(WebFetchTlsTest, AnUntrustedCertificateIsRefusedWithOpenSslsReason) {
  runtime::ToolResultPtr r = Fetch(server_->Url("/text"), "");
  EXPECT_TRUE(r->is_error);
  EXPECT_THAT(runtime::testing::Text(*r), HasSubstr("could not fetch " + server_->Url("/text") + ": certificate verify failed"));
}

TEST_F(WebFetchTlsTest, ACertificateForAnotherHostIsRefused) {
  // localhost reaches the same server, but the certificate names only 127.0.0.1.
  runtime::ToolResultPtr r = Fetch(server_->Url("/text", "localhost"), dir_ / "ca.pem");
  EXPECT_TRUE(r->is_error);
  EXPECT_THAT(runtime::testing::Text(*r),
              HasSubstr("could not fetch " + server_->Url("/text", "localhost") + ": certificate verify failed"));
}

TEST_F(WebFetchTlsTest, ARedirectFromHttpToHttpsIsFollowedAndAMissingCaFileIsNamed) {
  LocalServer plain({{"/up", {"HTTP/1.1 301 Moved Permanently\r\nLocation: " + server_->Url("/text"), ""}},
                     {"/404", {"HTTP/1.1 404 Not Found", ""}}});
  EXPECT_EQ(runtime::testing::Text(*Fetch(plain.Url("/up"), dir_ / "ca.pem")),
            "Fetched " + server_->Url("/text") + " (HTTP 200)\n\nover TLS\n");
  runtime::ToolResultPtr missing = Fetch(server_->Url("/text"), dir_ / "nope.pem");
  EXPECT_TRUE(missing->is_error);
  EXPECT_THAT(runtime::testing::Text(*missing), HasSubstr("cannot load the CA file " + dir_ / "nope.pem" + " for " +
                                                          server_->Url("/text") + ": no such file"));
  runtime::ToolResultPtr not_pem = Fetch(server_->Url("/text"), dir_ / "san.ext");
  EXPECT_THAT(runtime::testing::Text(*not_pem), HasSubstr(": it holds no PEM certificate"));
}

TEST(HtmlTextTest, EntitiesDecode) {
  EXPECT_EQ(DecodeEntities("a &lt;b&gt; &#39;c&#x27; &mdash; &bogus; & x"), "a <b> 'c' — &bogus; & x");
}

}  // namespace
}  // namespace retrace::tools
