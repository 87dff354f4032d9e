// mcp::ServeStdio in process: the in-flight window that keeps a client's
// requests queued in the pipe, not in memory (mcp/stdio.h).
#include "mcp/stdio.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/json/parser.h"
#include "service/catalog.h"
#include "service/live_session.h"
#include "tests/test_util.h"

namespace retrace::mcp {
namespace {

constexpr const char* kInit =
    R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})"
    "\n";
// A call that takes half a second, then a ping.
constexpr const char* kSlowCallThenPing =
    R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bash","arguments":{"command":"sleep 0.5","description":"slow"}}})"
    "\n"
    R"({"jsonrpc":"2.0","id":2,"method":"ping"})"
    "\n";

class StdioTest : public ::testing::Test {
 protected:
  // Serves `input` (a regular file) with `options`; returns the ids of the
  // answers in the order they were written.
  std::vector<std::string> AnswerOrder(const std::string& input, StdioOptions options) {
    std::filesystem::create_directories(dir_ / "ws");
    retrace::testing::WriteFile(dir_ / "in.jsonl", input);
    service::Catalog catalog({.db_path = dir_ / "t.db"});
    std::atomic<int> ids{0};
    Result<std::unique_ptr<service::LiveSession>> live = service::LiveSession::Open(
        catalog, {.session_id = "s1",
                  .workspace = dir_ / "ws",
                  .now_ms = [] { return int64_t{1}; },
                  .new_id = [&ids] { return "id-" + std::to_string(++ids); }});
    EXPECT_TRUE(live.ok()) << live.status().message();
    if (!live.ok()) return {};
    const int in = ::open((dir_ / "in.jsonl").c_str(), O_RDONLY | O_CLOEXEC);
    const int out = ::open((dir_ / "out.jsonl").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    options.handle_signals = false;
    Result<StdioOutcome> served = ServeStdio(**live, in, out, {.version = "test"}, options);
    ::close(in);
    ::close(out);
    EXPECT_TRUE(served.ok()) << served.status().message();
    std::vector<std::string> order;
    for (const std::string& line : retrace::testing::Lines(retrace::testing::ReadFile(dir_ / "out.jsonl"))) {
      Result<json::Value> frame = json::Parse(line);
      const json::Value* id = frame.ok() ? frame->Find("id") : nullptr;
      order.push_back(id && id->is_number() ? std::to_string(static_cast<int>(id->as_number())) : "?");
    }
    return order;
  }

  retrace::testing::TempDir tmp_;
  std::filesystem::path dir_ = tmp_.path();
};

TEST_F(StdioTest, WithRoomInFlightAPingIsAnsweredWhileASlowCallRuns) {
  EXPECT_THAT(AnswerOrder(std::string(kInit) + kSlowCallThenPing, {}), ::testing::ElementsAre("0", "2", "1"));
}

TEST_F(StdioTest, AFullWindowLeavesTheNextRequestUnreadUntilACallIsAnswered) {
  EXPECT_THAT(AnswerOrder(std::string(kInit) + kSlowCallThenPing, {.max_in_flight = 1}),
              ::testing::ElementsAre("0", "1", "2"));
}

}  // namespace
}  // namespace retrace::mcp
