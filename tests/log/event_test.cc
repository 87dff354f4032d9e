#include "engine/log/event.h"

#include <gtest/gtest.h>

#include "engine/log/event_types.h"

namespace retrace::log {
namespace {

std::string EnvelopeError(const std::string& line) {
  auto e = ParseEvent(line);
  if (!e.ok()) return e.status().message();
  Status st = CheckEnvelopeRules(*e);
  return st.ok() ? "" : st.message();
}

TEST(EventTypesTest, CatalogHas48SortedTypes) {
  EXPECT_EQ(kKnownEventTypes.size(), 48u);
  EXPECT_TRUE(std::is_sorted(kKnownEventTypes.begin(), kKnownEventTypes.end()));
  EXPECT_TRUE(IsKnownEventType("tool/result"));
  EXPECT_FALSE(IsKnownEventType("steering/message"));
}

TEST(EventTest, ParsesAllEnvelopeFields) {
  auto e = ParseEvent(
      R"({"type":"tool/result","seq":5,"time":-3,"data":null,"sourceEventSeqs":[1,4],"surfaceOp":{"op":"replace","start":2,"end":3}})");
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(e->type, "tool/result");
  EXPECT_EQ(e->seq, 5);
  EXPECT_EQ(e->time, -3);  // negative time is not rejected
  EXPECT_TRUE(e->data.is_null());
  EXPECT_EQ(*e->source_event_seqs, (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(e->surface_op->kind, SurfaceOp::Kind::kReplace);
  EXPECT_EQ(e->surface_op->end, 3);
}

TEST(EventTest, RefusesAnExtraEnvelopeKey) {
  EXPECT_NE(EnvelopeError(R"({"type":"turn/start","seq":0,"time":1,"data":{},"extra":1})").find("unknown envelope key \"extra\""),
            std::string::npos);
}

TEST(EventTest, RefusesBadSeqTimeDataAndIgnorable) {
  EXPECT_NE(EnvelopeError(R"({"type":"t","seq":-1,"time":1,"data":{}})"), "");
  EXPECT_NE(EnvelopeError(R"({"type":"t","seq":1.5,"time":1,"data":{}})"), "");
  EXPECT_NE(EnvelopeError(R"({"type":"t","seq":9007199254740992,"time":1,"data":{}})"), "");
  EXPECT_NE(EnvelopeError(R"({"type":"t","seq":0,"time":"1","data":{}})"), "");
  EXPECT_NE(EnvelopeError(R"({"type":"t","seq":0,"time":1})").find("data is missing"), std::string::npos);
  EXPECT_NE(EnvelopeError(R"({"type":"t","seq":0,"time":1,"data":{},"ignorable":false})"), "");
  EXPECT_EQ(EnvelopeError(R"({"type":"t","seq":0,"time":1,"data":{},"ignorable":true})"), "");
}

TEST(EventTest, RefusesSurfaceMetadataOnNonSurfaceTypes) {
  EXPECT_EQ(EnvelopeError(R"({"type":"tool/call","seq":1,"time":1,"data":{},"surfaceOp":"append"})"),
            "session event \"tool/call\" (seq 1) is not surface-eligible and cannot carry surfaceOp");
  EXPECT_EQ(EnvelopeError(R"({"type":"tool/call","seq":1,"time":1,"data":{},"sourceEventSeqs":[0]})"),
            "session event \"tool/call\" (seq 1) is not surface-eligible and cannot carry sourceEventSeqs");
}

TEST(EventTest, RequiresSurfaceOpOnSurfaceTypes) {
  EXPECT_EQ(EnvelopeError(R"({"type":"user/message","seq":1,"time":1,"data":{}})"),
            "session event \"user/message\" (seq 1) requires a surfaceOp marker");
}

TEST(EventTest, ValidatesSourceEventSeqs) {
  EXPECT_NE(EnvelopeError(R"({"type":"tool/result","seq":3,"time":1,"data":{},"surfaceOp":"append","sourceEventSeqs":[3]})"), "");
  EXPECT_NE(EnvelopeError(R"({"type":"tool/result","seq":3,"time":1,"data":{},"surfaceOp":"append","sourceEventSeqs":[1,1]})"), "");
  EXPECT_NE(EnvelopeError(R"({"type":"tool/result","seq":3,"time":1,"data":{},"surfaceOp":"append","sourceEventSeqs":[]})"), "");
  EXPECT_EQ(EnvelopeError(R"({"type":"assistant/message","seq":3,"time":1,"data":{},"surfaceOp":"append","sourceEventSeqs":[]})"), "");
}

TEST(EventTest, RefusesMalformedReplace) {
  EXPECT_NE(EnvelopeError(R"({"type":"user/message","seq":3,"time":1,"data":{},"surfaceOp":{"op":"replace","start":1}})"), "");
  EXPECT_NE(EnvelopeError(R"({"type":"user/message","seq":3,"time":1,"data":{},"surfaceOp":{"op":"replace","start":1,"end":2,"x":0}})"), "");
  EXPECT_NE(EnvelopeError(R"({"type":"user/message","seq":3,"time":1,"data":{},"surfaceOp":"prepend"})"), "");
}

TEST(EventTest, SerializesInLiveAndCloserKeyOrder) {
  auto e = ParseEvent(R"({"type":"tool/result","seq":5,"time":1,"data":{},"sourceEventSeqs":[4],"surfaceOp":"append"})");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(SerializeEvent(*e), R"({"type":"tool/result","seq":5,"time":1,"data":{},"sourceEventSeqs":[4],"surfaceOp":"append"})");
  EXPECT_EQ(SerializeEvent(*e, EnvelopeOrder::kRepairCloser),
            R"({"type":"tool/result","seq":5,"time":1,"data":{},"surfaceOp":"append","sourceEventSeqs":[4]})");
}

}  // namespace
}  // namespace retrace::log
