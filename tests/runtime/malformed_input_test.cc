// Malformed model input never crashes the runtime: every argument text —
// invalid JSON, deep nesting, huge strings, lone surrogates, NaN-like
// literals, random bytes — yields a normal result, and the recorder writes
// it into a log the session checker accepts.
#include <random>

#include <gtest/gtest.h>

#include "engine/log/in_memory_event_log.h"
#include "engine/runtime/session_recorder.h"
#include "tests/runtime/runtime_test_util.h"

namespace retrace::runtime {
namespace {

using namespace testing;

std::vector<std::string> HostileTexts() {
  std::vector<std::string> texts = {
      "", " ", "{", "}", "[", "{\"s\":", "{\"s\":\"unterminated", "{bad json", "null", "true", "42", "\"str\"", "[]",
      "NaN", "Infinity", "-Infinity", "{\"s\":NaN}", "{\"s\":Infinity}", "{\"s\":1e400}", "{\"s\":-1e400}",
      "{\"s\":-0}", "-0", "{\"s\":\"x\",\"n\":-0.0}", "{\"s\":\"\\ud800\"}", "{\"s\":\"\\udfff\\ud800\"}",
      "{\"\\ud800\":1,\"s\":\"k\"}", "{\"s\":\"\xff\xfe\"}", "{\"s\":\"a\"}garbage", "{\"s\":\"a\",}", "{'s':'a'}",
      "\xef\xbb\xbf{\"s\":\"bom\"}", "{\"s\":\"\\u0000\"}", std::string("{\"s\":\"nul\0\"}", 13),
  };
  const size_t deep = 200'000;
  texts.push_back(std::string(deep, '[') + std::string(deep, ']'));
  texts.push_back("{\"s\":" + std::string(deep, '[') + std::string(deep, ']') + "}");
  texts.push_back("{\"s\":" + std::string(deep, '{'));  // deep and truncated
  std::string obj;
  for (size_t i = 0; i < deep; ++i) obj += "{\"a\":";
  texts.push_back("{\"s\":\"x\",\"d\":" + obj + "1" + std::string(deep, '}') + "}");
  texts.push_back("{\"s\":\"" + std::string(16 << 20, 'a') + "\"}");
  texts.push_back("{\"k\":\"" + std::string(4 << 20, 'b') + "\"}");
  std::mt19937 rng(20261130);
  for (int i = 0; i < 2000; ++i) {
    std::string t(rng() % 64, '\0');
    for (char& c : t) c = static_cast<char>(rng() % 256);
    if (i % 2) t = "{\"s\":" + t;  // half of them start plausibly
    texts.push_back(std::move(t));
  }
  return texts;
}

TEST(MalformedInputTest, EveryHostileArgumentTextGivesANormalResult) {
  ToolRuntime rt(RuntimeOptions{.blocking_threads = 1});
  Registration r = MustRegister(rt, Define(EchoSpec()));
  for (const std::string& text : HostileTexts()) {
    ToolResultPtr res = Exec(rt, Call("echo", ParseModelArguments(text)));
    ASSERT_NE(res, nullptr);
    if (res->is_error) {
      ASSERT_EQ(Text(*res).rfind("Error: ", 0), 0u) << text.substr(0, 80);
      ASSERT_TRUE(res->error.has_value());
    } else {
      ASSERT_TRUE(res->value.has_value());
    }
  }
}

TEST(MalformedInputTest, HostileCallsAreRecordedIntoAValidLog) {
  ToolRuntime rt(RuntimeOptions{.blocking_threads = 1});
  Registration r = MustRegister(rt, Define(EchoSpec()));
  log::InMemoryEventLog log;  // appends pass the session checker or are refused
  log::SessionHeader header;
  header.id = "fuzz";
  int64_t clock = 0;
  int ids = 0;
  auto rec = std::move(SessionRecorder::Open(log, header, {[&] { return ++clock; }, [&] { return "id" + std::to_string(++ids); }})).value();
  ASSERT_TRUE(rec->BeginTurn().ok());
  ASSERT_TRUE(rec->BeginStep().ok());
  std::vector<ModelToolCall> calls;
  int n = 0;
  for (const std::string& text : HostileTexts()) {
    if (text.size() > 1000) continue;  // the size cases above already ran through the pipeline
    calls.push_back({"call" + std::to_string(++n), n % 7 ? "echo" : "\xff", text});
  }
  ASSERT_TRUE(rec->RecordAssistant({}, "test", "model").ok());
  Result<BatchOutcome> out = RunSync(rec->RunToolCalls(rt, calls, Signal()));
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(log.NextSeq("fuzz").value(), 3 + 2 * static_cast<int64_t>(calls.size()));
}

}  // namespace
}  // namespace retrace::runtime
