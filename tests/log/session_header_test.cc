#include "engine/log/session_header.h"

#include <gtest/gtest.h>

namespace retrace::log {
namespace {

TEST(SessionHeaderTest, RoundTripsTheFixtureHeader) {
  const std::string line =
      R"({"type":"session","version":0,"id":"s1-tools-inject","createdAt":1796003747260,"cwd":"/home/dev/calc","delegationDepth":0})";
  auto h = ParseHeaderLine(line);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->id, "s1-tools-inject");
  EXPECT_EQ(SerializeHeaderLine(*h), line);
}

TEST(SessionHeaderTest, WritesAllOptionalFieldsInDshOrder) {
  SessionHeader h{"child", 5, "/w", "parent", 3, "subagent", 1, "preset"};
  EXPECT_EQ(SerializeHeaderLine(h),
            R"({"type":"session","version":0,"id":"child","createdAt":5,"cwd":"/w","parentSession":"parent","seedLength":3,"origin":"subagent","delegationDepth":1,"agentPreset":"preset"})");
}

TEST(SessionHeaderTest, RefusesNewerVersionBeforeShapeChecks) {
  auto h = ParseHeaderLine(R"({"type":"session","version":1,"id":"x"})");
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.status().code(), Status::Code::kUnsupported);
  EXPECT_EQ(h.status().message(),
            "session \"x\" uses log format v1, but this harness reads only v0: the log was written by a newer "
            "harness — upgrade the harness to open it");
}

TEST(SessionHeaderTest, RefusesOlderVersion) {
  auto h = ParseHeaderLine(R"({"type":"session","version":-1,"id":"x","createdAt":0,"delegationDepth":0})");
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.status().message(),
            "session \"x\" uses log format v-1, older than the supported v0, and this build ships no upgrade path for it");
}

TEST(SessionHeaderTest, RequiresDelegationDepthOnDisk) {
  auto h = ParseHeaderLine(R"({"type":"session","version":0,"id":"x","createdAt":0})");
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.status().message().rfind("corrupt session log: first line is not a session header", 0), 0u);
}

TEST(SessionHeaderTest, RefusesRetiredPolicyFields) {
  auto h = ParseHeaderLine(R"({"type":"session","version":0,"id":"x","createdAt":0,"sandboxMode":"x","delegationDepth":0})");
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.status().message(), "session header uses retired policy baseline fields");
}

TEST(SessionHeaderTest, RefusesNonJsonAndRelativeCwd) {
  EXPECT_EQ(ParseHeaderLine("\x89PNG").status().message(), "corrupt session log: header line is not valid JSON");
  EXPECT_FALSE(ParseHeaderLine(R"({"type":"session","version":0,"id":"x","createdAt":0,"cwd":"rel","delegationDepth":0})").ok());
}

}  // namespace
}  // namespace retrace::log
