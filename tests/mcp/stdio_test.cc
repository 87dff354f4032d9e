// mcp::ServeStdio in process: the in-flight window that keeps a client's
// requests queued in the pipe, not in memory (frontends/mcp/stdio.h), and the answers
// written together (Outbox in frontends/mcp/stdio.cc).
#include "frontends/mcp/stdio.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
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
  // answers, one list per write(2) the server made, in order. (The answers
  // go to a SOCK_SEQPACKET socket, which keeps each write a record of its own.)
  // Serves session s1 of a fresh database over `in` and `out`.
  void Serve(int in, int out, StdioOptions options) {
    std::filesystem::create_directories(dir_ / "ws");
    retrace::testing::WriteFile(dir_ / "ws" / "a.txt", "hello\n");
    service::Catalog catalog({.db_path = dir_ / "t.db"});
    std::atomic<int> ids{0};
    Result<std::unique_ptr<service::LiveSession>> live = service::LiveSession::Open(
        catalog, {.session_id = "s1",
                  .workspace = dir_ / "ws",
                  .now_ms = [] { return int64_t{1}; },
                  .new_id = [&ids] { return "id-" + std::to_string(++ids); }});
    ASSERT_TRUE(live.ok()) << live.status().message();
    options.handle_signals = false;
    Result<StdioOutcome> served = ServeStdio(live->get(), in, out, {.version = "test"}, options);
    EXPECT_TRUE(served.ok()) << served.status().message();
  }
  std::vector<std::vector<std::string>> Writes(const std::string& input, StdioOptions options) {
    retrace::testing::WriteFile(dir_ / "in.jsonl", input);
    int out[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, out), 0);
    const int in = ::open((dir_ / "in.jsonl").c_str(), O_RDONLY | O_CLOEXEC);
    Serve(in, out[0], options);
    ::close(in);
    ::close(out[0]);
    std::vector<std::vector<std::string>> writes;
    std::vector<char> record(size_t{1} << 20);
    ssize_t n = 0;
    while ((n = ::recv(out[1], record.data(), record.size(), MSG_DONTWAIT)) > 0) {
      std::vector<std::string>& ids_written = writes.emplace_back();
      for (const std::string& line : retrace::testing::Lines(std::string(record.data(), static_cast<size_t>(n)))) {
        Result<json::Value> frame = json::Parse(line);
        const json::Value* id = frame.ok() ? frame->Find("id") : nullptr;
        ids_written.push_back(id && id->is_number() ? std::to_string(static_cast<int>(id->as_number())) : "?");
      }
    }
    ::close(out[1]);
    return writes;
  }
  // The ids of the answers in the order they were written.
  std::vector<std::string> AnswerOrder(const std::string& input, StdioOptions options) {
    std::vector<std::string> order;
    for (const std::vector<std::string>& ids : Writes(input, options)) order.insert(order.end(), ids.begin(), ids.end());
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

TEST_F(StdioTest, TheAnswersToTheRequestsOfOneReadGoOutInOneWrite) {
  // The handshake and eight reads arrive in one read of the input; the reads
  // are brief, so each is answered as it is handed over, and the answers
  // wait for the last: the client wakes once.
  std::string input = kInit;
  for (int id = 1; id <= 8; ++id) {
    input += R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
             R"(,"method":"tools/call","params":{"name":"read","arguments":{"file_path":"a.txt"}}})" + "\n";
  }
  EXPECT_THAT(Writes(input, {}),
              ::testing::ElementsAre(::testing::ElementsAre("0", "1", "2", "3", "4", "5", "6", "7", "8")));
}

TEST_F(StdioTest, AnswersMadeWhileTheReaderWaitsForRoomAreNotHeldBack) {
  // A window of one: the slow call fills it, so the reader waits with the
  // ping unread; the call's answer goes out before the ping is read.
  EXPECT_THAT(Writes(std::string(kInit) + kSlowCallThenPing, {.max_in_flight = 1}),
              ::testing::ElementsAre(::testing::ElementsAre("0"), ::testing::ElementsAre("1"),
                                     ::testing::ElementsAre("2")));
}

TEST_F(StdioTest, AnAnswerLargerThanANonBlockingOutputsRoomIsWrittenWhole) {
  // One socket for both directions, as some clients give their server: the
  // input made non-blocking makes the output so too. Its send buffer is small
  // and the client reads late, so writing the tool list meets EAGAIN.
  int pair[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
  const int small = 4096;
  ASSERT_EQ(::setsockopt(pair[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof small), 0);
  const std::string input = std::string(kInit) + R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})" + "\n";
  ASSERT_EQ(::write(pair[1], input.data(), input.size()), static_cast<ssize_t>(input.size()));
  ::shutdown(pair[1], SHUT_WR);  // the server reads to the end, then finishes
  std::string received;
  std::thread client([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    char buf[4096];
    ssize_t n = 0;
    while ((n = ::read(pair[1], buf, sizeof buf)) > 0) received.append(buf, static_cast<size_t>(n));
  });
  Serve(pair[0], pair[0], {});
  ::shutdown(pair[0], SHUT_WR);  // the client's read ends
  client.join();
  ::close(pair[0]);
  ::close(pair[1]);
  const std::vector<std::string> lines = retrace::testing::Lines(received);
  ASSERT_GE(lines.size(), 2u) << received.size() << " bytes";
  Result<json::Value> list = json::Parse(lines[1]);
  ASSERT_TRUE(list.ok()) << list.status().message();
  const json::Value* tools = list->Find("result") ? list->Find("result")->Find("tools") : nullptr;
  ASSERT_NE(tools, nullptr) << lines[1].substr(0, 200);
  EXPECT_GT(lines[1].size(), size_t{small} * 2);
}

}  // namespace
}  // namespace retrace::mcp
