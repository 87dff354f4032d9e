// mcp::Server and a client's roots, in process, frame by frame: a call waits
// for the answer to roots/list, runs in the workspace as it is once
// roots_timeout has passed, and a late answer still becomes the workspace.
// (The official SDK client's side is in mcp_test.cc.)
#include "frontends/mcp/server.h"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/json/lenient.h"
#include "engine/json/parser.h"
#include "engine/json/writer.h"
#include "service/catalog.h"
#include "service/live_session.h"
#include "tests/test_util.h"

namespace retrace::mcp {
namespace {

namespace asio = runtime::asio;
using ::testing::HasSubstr;
using json::Value;

constexpr const char* kInitWithRoots =
    R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",)"
    R"("capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"t","version":"1"}}})";
constexpr const char* kInitialized = R"({"jsonrpc":"2.0","method":"notifications/initialized"})";

std::string ReadCall(int id, const std::string& path) {
  return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
         R"(,"method":"tools/call","params":{"name":"read","arguments":{"file_path":")" + path + R"("}}})";
}

class RootsTest : public ::testing::Test {
 protected:
  RootsTest() {
    std::filesystem::create_directories(dir_ / "start");
    std::filesystem::create_directories(dir_ / "root");
    retrace::testing::WriteFile(dir_ / "start/a.txt", "in the start directory\n");
    retrace::testing::WriteFile(dir_ / "root/b.txt", "in the client's root\n");
  }
  // A server over a session whose workspace was not chosen (no --workspace),
  // started in start/.
  void Start(std::chrono::milliseconds roots_timeout) {
    live_ = std::move(service::LiveSession::Open(
                          catalog_, {.session_id = "s1",
                                     .workspace = dir_ / "start",
                                     .workspace_chosen = false,
                                     .now_ms = [] { return int64_t{1}; },
                                     .new_id = [this] { return "id-" + std::to_string(++ids_); }}))
                .value();
    server_ = std::make_unique<Server>(
        io_.get_executor(), live_.get(),
        [this](const std::string& frame) { frames_.push_back(std::move(json::Parse(frame)).value()); },
        ServerOptions{.version = "test", .roots_timeout = roots_timeout});
  }
  void Line(const std::string& line) { server_->HandleLine(line); }
  void RunFor(std::chrono::milliseconds ms) {
    io_.restart();
    io_.run_for(ms);
  }
  // The frame with `id` (a number: an answer; a string: our request), or null.
  const Value* Frame(const Value& id) const {
    for (const Value& f : frames_) {
      const Value* fid = f.Find("id");
      if (fid && json::Serialize(*fid) == json::Serialize(id) && (f.Find("result") || f.Find("error") || f.Find("method"))) {
        return &f;
      }
    }
    return nullptr;
  }
  // The text of call `id`'s result, with "error: " before it when isError.
  std::string CallText(int id) const {
    const Value* f = Frame(Value(id));
    if (!f) return "(no answer)";
    const Value* result = f->Find("result");
    if (!result) return "(protocol error) " + json::Serialize(*f);
    std::string text = json::True(result->Find("isError")) ? "error: " : "";
    for (const Value& block : result->Find("content")->as_array()) text += block.Find("text")->as_string();
    return text;
  }
  void AnswerRoots(const std::string& request_id, const std::string& root) {
    Line(R"({"jsonrpc":"2.0","id":")" + request_id + R"(","result":{"roots":[{"uri":"file://)" + root +
         R"(","name":"r"}]}})");
  }

  retrace::testing::TempDir dir_;
  service::Catalog catalog_{{.db_path = dir_ / "t.db"}};
  std::atomic<int> ids_{0};
  asio::io_context io_;
  std::unique_ptr<service::LiveSession> live_;
  std::unique_ptr<Server> server_;
  std::vector<Value> frames_;
};

TEST_F(RootsTest, ACallWaitsForTheRootsAndRunsInThem) {
  Start(std::chrono::seconds(10));
  Line(kInitWithRoots);
  Line(kInitialized);
  const Value* asked = Frame(Value("retrace-roots-1"));
  ASSERT_NE(asked, nullptr) << "no roots/list request";
  EXPECT_EQ(asked->Find("method")->as_string(), "roots/list");
  Line(ReadCall(1, "b.txt"));  // relative: it exists only in the client's root
  RunFor(std::chrono::milliseconds(200));
  EXPECT_EQ(CallText(1), "(no answer)");  // waiting for the roots
  AnswerRoots("retrace-roots-1", dir_ / "root");
  RunFor(std::chrono::milliseconds(2000));
  EXPECT_THAT(CallText(1), HasSubstr("in the client's root"));
  EXPECT_EQ(live_->workspace_roots(), std::vector<std::string>{std::filesystem::canonical(dir_ / "root").string()});
}

TEST_F(RootsTest, PastTheTimeoutACallRunsInTheStartDirectoryAndALateAnswerIsStillTaken) {
  Start(std::chrono::milliseconds(100));
  Line(kInitWithRoots);
  Line(kInitialized);
  Line(ReadCall(1, "a.txt"));
  RunFor(std::chrono::milliseconds(2000));
  EXPECT_THAT(CallText(1), HasSubstr("in the start directory"));
  AnswerRoots("retrace-roots-1", dir_ / "root");
  Line(ReadCall(2, "b.txt"));
  RunFor(std::chrono::milliseconds(2000));
  EXPECT_THAT(CallText(2), HasSubstr("in the client's root"));
  EXPECT_THAT(CallText(2), ::testing::Not(HasSubstr("error: ")));
}

TEST_F(RootsTest, AClientWithoutRootsIsNotAskedAndAnAnswerNobodyAskedForChangesNothing) {
  Start(std::chrono::seconds(10));
  Line(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},)"
       R"("clientInfo":{"name":"t","version":"1"}}})");
  Line(kInitialized);
  EXPECT_EQ(Frame(Value("retrace-roots-1")), nullptr);
  // An answer nobody asked for changes nothing.
  AnswerRoots("retrace-roots-1", dir_ / "root");
  Line(ReadCall(1, "a.txt"));
  RunFor(std::chrono::milliseconds(2000));
  EXPECT_THAT(CallText(1), HasSubstr("in the start directory"));
}

}  // namespace
}  // namespace retrace::mcp
