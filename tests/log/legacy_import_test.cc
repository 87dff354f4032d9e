#include "engine/log/legacy_import.h"

#include <gtest/gtest.h>

#include "engine/json/writer.h"
#include "tests/log/log_test_util.h"

namespace retrace::log {
namespace {

std::string Upgrade(const std::string& line, bool expect_change = true) {
  Event e = testing::Ev(line);
  EXPECT_EQ(IsLegacyShape(e), expect_change) << line;
  auto changed = ImportLegacy(e, "sid", [](int64_t) -> const std::string* { return nullptr; });
  EXPECT_TRUE(changed.ok()) << changed.status().message();
  if (changed.ok()) {
    EXPECT_EQ(*changed, expect_change) << line;
  }
  return SerializeEvent(e);
}

std::string Refusal(const std::string& line) {
  Event e = testing::Ev(line);
  EXPECT_TRUE(IsLegacyShape(e)) << line;
  auto changed = ImportLegacy(e, "sid", [](int64_t) -> const std::string* { return nullptr; });
  EXPECT_FALSE(changed.ok()) << line;
  return changed.ok() ? "" : changed.status().message();
}

TEST(LegacyImportTest, DropsTurnStartTrigger) {
  EXPECT_EQ(Upgrade(R"({"type":"turn/start","seq":0,"time":1,"data":{"turn":1,"trigger":{"kind":"user"}}})"),
            R"({"type":"turn/start","seq":0,"time":1,"data":{"turn":1}})");
  Refusal(R"({"type":"turn/start","seq":0,"time":1,"data":{"turn":1,"trigger":{"kind":""}}})");
}

TEST(LegacyImportTest, UpgradesTurnEndReasons) {
  EXPECT_EQ(Upgrade(R"({"type":"turn/end","seq":0,"time":1,"data":{"turn":1,"reason":{"kind":"aborted"}}})"),
            R"({"type":"turn/end","seq":0,"time":1,"data":{"turn":1,"reason":{"kind":"aborted","reason":{"kind":"legacy"}}}})");
  EXPECT_EQ(Upgrade(R"({"type":"turn/end","seq":0,"time":1,"data":{"turn":1,"reason":{"kind":"disposed"}}})"),
            R"({"type":"turn/end","seq":0,"time":1,"data":{"turn":1,"reason":{"kind":"aborted","reason":{"kind":"disposed"}}}})");
  EXPECT_EQ(Upgrade(R"({"type":"turn/end","seq":0,"time":1,"data":{"turn":1,"reason":{"kind":"error","step":1,"failure":{"message":"m","code":"X"}}}})"),
            R"({"type":"turn/end","seq":0,"time":1,"data":{"turn":1,"reason":{"kind":"error","error":{"message":"m","code":"X"}}}})");
  EXPECT_EQ(Upgrade(R"({"type":"turn/end","seq":0,"time":1,"data":{"turn":1,"reason":{"kind":"error","step":1,"message":"m"}}})"),
            R"({"type":"turn/end","seq":0,"time":1,"data":{"turn":1,"reason":{"kind":"error","error":{"message":"m","code":"UNKNOWN"}}}})");
  Upgrade(R"({"type":"turn/end","seq":0,"time":1,"data":{"turn":1,"reason":{"kind":"completed"}}})", false);
  Refusal(R"({"type":"turn/end","seq":0,"time":1,"data":{"turn":1,"reason":{"kind":"error","step":1}}})");
}

TEST(LegacyImportTest, SteeringMessageBecomesUserMessage) {
  EXPECT_EQ(Upgrade(R"({"type":"steering/message","seq":4,"time":1,"data":{"turn":1,"content":[],"source":{"kind":"user"}}})"),
            R"({"type":"user/message","seq":4,"time":1,"data":{"content":[],"source":{"kind":"user"},"id":"legacy-message:sid:4","role":"user"},"surfaceOp":"append"})");
}

TEST(LegacyImportTest, PreIdentityMessagesGetIds) {
  EXPECT_EQ(Upgrade(R"({"type":"user/message","seq":2,"time":1,"data":{"content":[],"source":{"kind":"user"}},"surfaceOp":"append"})"),
            R"({"type":"user/message","seq":2,"time":1,"data":{"content":[],"source":{"kind":"user"},"id":"legacy-message:sid:2","role":"user"},"surfaceOp":"append"})");
  EXPECT_EQ(Upgrade(R"({"type":"tool/result","seq":3,"time":1,"data":{"turn":1,"step":1,"callId":"c","content":[],"isError":true},"sourceEventSeqs":[2],"surfaceOp":"append"})"),
            R"({"type":"tool/result","seq":3,"time":1,"data":{"turn":1,"step":1,"message":{"id":"legacy-message:sid:3","role":"user","content":[{"type":"tool-result","toolCallId":"c","content":[],"isError":true}],"source":{"kind":"tool","callId":"c"}}},"sourceEventSeqs":[2],"surfaceOp":"append"})");
  EXPECT_EQ(Upgrade(R"({"type":"assistant/message","seq":1,"time":1,"data":{"turn":1,"step":1,"content":[],"provenance":{"provider":"p","model":"m"}},"surfaceOp":"append"})"),
            R"({"type":"assistant/message","seq":1,"time":1,"data":{"turn":1,"step":1,"message":{"id":"legacy-message:sid:1","role":"assistant","content":[],"source":{"provider":"p","model":"m","kind":"model"}}},"surfaceOp":"append"})");
}

TEST(LegacyImportTest, RefusesRetiredTypes) {
  EXPECT_NE(Refusal(R"({"type":"request/header-delta","seq":0,"time":1,"data":{}})").find("no longer supported"), std::string::npos);
  Refusal(R"({"type":"mode/set","seq":0,"time":1,"data":{}})");
  Refusal(R"({"type":"request/header","seq":0,"time":1,"data":{"header":{},"reason":"fallback"}})");
}

TEST(LegacyImportTest, CurrentFixtureEventsAreUnchanged) {
  for (const auto& name : retrace::testing::RawFixtures()) {
    for (Event e : testing::PlainFixtureEvents(name)) {
      EXPECT_FALSE(IsLegacyShape(e)) << name << " seq " << e.seq;
      auto changed = ImportLegacy(e, "sid", [](int64_t) -> const std::string* { return nullptr; });
      ASSERT_TRUE(changed.ok()) << name;
      EXPECT_FALSE(*changed) << name << " seq " << e.seq;
    }
  }
}

}  // namespace
}  // namespace retrace::log
