// web_fetch against a real HTTP server on 127.0.0.1, and its page text.
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>

#include <map>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/runtime/tool_runtime.h"
#include "tests/runtime/runtime_test_util.h"
#include "tools/html_text.h"
#include "tools/web_fetch_tool.h"

namespace retrace::tools {
namespace {

using json::Value;
using ::testing::HasSubstr;
namespace net = boost::asio;

// A one-thread HTTP/1.1 server: path → raw response head (status line and
// headers, without the blank line) and body.
class LocalServer {
 public:
  explicit LocalServer(std::map<std::string, std::pair<std::string, std::string>> routes)
      : routes_(std::move(routes)), acceptor_(io_, {net::ip::make_address("127.0.0.1"), 0}) {
    thread_ = std::thread([this] { Serve(); });
  }
  ~LocalServer() {
    stop_ = true;
    net::ip::tcp::socket poke(io_);
    boost::system::error_code ec;
    poke.connect(acceptor_.local_endpoint(), ec);
    thread_.join();
  }
  std::string Url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(acceptor_.local_endpoint().port()) + path;
  }

 private:
  void Serve() {
    while (!stop_) {
      net::ip::tcp::socket socket(io_);
      boost::system::error_code ec;
      acceptor_.accept(socket, ec);
      if (ec || stop_) continue;
      net::streambuf request;
      net::read_until(socket, request, "\r\n\r\n", ec);
      std::string line(net::buffers_begin(request.data()), net::buffers_end(request.data()));
      const std::string path = line.substr(4, line.find(' ', 4) - 4);
      auto it = routes_.find(path);
      const auto& [head, body] = it != routes_.end() ? it->second : routes_.at("/404");
      const std::string response = head + "\r\nContent-Length: " + std::to_string(body.size()) +
                                   "\r\nConnection: close\r\n\r\n" + body;
      net::write(socket, net::buffer(response), ec);
    }
  }

  std::map<std::string, std::pair<std::string, std::string>> routes_;
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
  EXPECT_THAT(runtime::testing::Text(*Fetch("https://example.com")), HasSubstr("https URLs are not supported"));
  EXPECT_THAT(runtime::testing::Text(*Fetch("ftp://example.com")), HasSubstr("only http:// URLs"));
  EXPECT_EQ(runtime::testing::Text(*Fetch("  ")), "Error: url must be a non-empty string");
}

TEST(HtmlTextTest, EntitiesDecode) {
  EXPECT_EQ(DecodeEntities("a &lt;b&gt; &#39;c&#x27; &mdash; &bogus; & x"), "a <b> 'c' — &bogus; & x");
}

}  // namespace
}  // namespace retrace::tools
