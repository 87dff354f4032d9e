// Builders for synthetic events in engine/log tests.
#ifndef RETRACE_TESTS_LOG_LOG_TEST_UTIL_H_
#define RETRACE_TESTS_LOG_LOG_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/log/event.h"
#include "engine/log/event_log.h"
#include "tests/test_util.h"

namespace retrace::log::testing {

// Parses an event line; fails the test on error.
inline Event Ev(const std::string& line) {
  auto e = ParseEvent(line);
  EXPECT_TRUE(e.ok()) << line << ": " << e.status().message();
  return e.ok() ? std::move(e).value() : Event{};
}

inline EventRecord Rec(const std::string& line) { return EventRecord{Ev(line), line}; }

// Event lines of a raw fixture, skipping the header and packed chunk rows.
inline std::vector<Event> PlainFixtureEvents(const std::string& name) {
  std::vector<Event> out;
  const std::string text = retrace::testing::ReadFile(retrace::testing::FixturePath(name));
  auto lines = retrace::testing::Lines(text);
  if (text.back() != '\n') lines.pop_back();
  for (size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].find("\"type\":\"assistant/") == std::string::npos && lines[i].find("-chunks\"") != std::string::npos)
      continue;
    out.push_back(Ev(lines[i]));
  }
  return out;
}

// A small valid session: one turn, one step, one tool call with its result.
inline std::vector<std::string> SmallSessionLines() {
  return {
      R"({"type":"turn/start","seq":0,"time":10,"data":{"turn":1}})",
      R"({"type":"step/start","seq":1,"time":10,"data":{"turn":1,"step":1}})",
      R"({"type":"user/message","seq":2,"time":11,"data":{"content":[{"type":"text","text":"hi"}],"source":{"kind":"user"},"role":"user","id":"u1"},"surfaceOp":"append"})",
      R"({"type":"assistant/message","seq":3,"time":12,"data":{"turn":1,"step":1,"message":{"role":"assistant","content":[{"type":"tool-call","id":"c1","name":"read","arguments":"{}"}],"source":{"kind":"model","provider":"p","model":"m"},"id":"a1"}},"sourceEventSeqs":[],"surfaceOp":"append"})",
      R"({"type":"tool/call","seq":4,"time":13,"data":{"turn":1,"step":1,"callId":"c1","name":"read","arguments":"{}"}})",
      R"({"type":"tool/result","seq":5,"time":14,"data":{"turn":1,"step":1,"message":{"source":{"kind":"tool","callId":"c1"},"content":[{"type":"tool-result","toolCallId":"c1","content":[{"type":"text","text":"ok"}]}],"role":"user","id":"r1"}},"sourceEventSeqs":[4],"surfaceOp":"append"})",
      R"({"type":"step/end","seq":6,"time":15,"data":{"turn":1,"step":1}})",
      R"({"type":"turn/end","seq":7,"time":16,"data":{"turn":1,"reason":{"kind":"completed"}}})",
  };
}

}  // namespace retrace::log::testing

#endif  // RETRACE_TESTS_LOG_LOG_TEST_UTIL_H_
