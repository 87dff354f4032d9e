// Tool-author revisions: a chain of upcasters is checked when it is
// declared, and carries an old call's arguments and meta to the current
// revision, or says which step failed.
#include "presenters/revisions.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/json/parser.h"
#include "engine/json/writer.h"
#include "engine/schema/schema_compiler.h"
#include "engine/schema/schema_spec.h"
#include "presenters/presenter.h"

namespace retrace::presenters {
namespace {

using json::Value;
using ::testing::HasSubstr;

Value J(std::string_view text) { return json::Parse(text).value(); }

// A tool whose `town` (revision 1) became `city` (2), then an object {name} (3).
Value V1() { return schema::Parameters({{"town", schema::String().Required()}}); }
Value V2() { return schema::Parameters({{"city", schema::String().Required()}}); }
Value V3() {
  return schema::Parameters({{"city", schema::Object(false, {{"name", schema::String().Required()}}).Required()}});
}

Value RenameTown(const Value& args) { return Value::MakeObject({{"city", *args.Find("town")}}); }
Value CityObject(const Value& args) {
  return Value::MakeObject({{"city", Value::MakeObject({{"name", *args.Find("city")}})}});
}
Value MetaDegrees(const Value& meta) {
  Value out = J("{}");
  for (const auto& [key, value] : meta.as_object()) out.Set(key == "temp" ? "degrees" : key, value);
  return out;
}

RevisionSpec Weather() {
  return RevisionSpec{.current = 3,
                      .parameters = {{1, V1()}, {2, V2()}},
                      .steps = {{.from = 1, .to = 2, .arguments = RenameTown, .meta = MetaDegrees},
                                {.from = 2, .to = 3, .arguments = CityObject}}};
}

Value Current() { return schema::CompileParameters(V3()).value(); }

RevisionsPtr Compiled(RevisionSpec spec = Weather()) {
  Result<RevisionsPtr> r = CompileRevisions("weather", std::move(spec), Current());
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : nullptr;
}

std::string Refusal(RevisionSpec spec) {
  Result<RevisionsPtr> r = CompileRevisions("weather", std::move(spec), Current());
  return r.ok() ? "accepted" : r.status().message();
}

TEST(RevisionsTest, AWellFormedChainCompilesWithAFingerprintPerRevision) {
  RevisionsPtr r = Compiled();
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->current, 3);
  EXPECT_EQ(r->schemas.size(), 3u);
  ASSERT_EQ(r->fingerprints.size(), 3u);
  EXPECT_EQ(r->fingerprints.at(3), SchemaFingerprint(Current()));
  EXPECT_NE(r->fingerprints.at(1), r->fingerprints.at(2));
}

TEST(RevisionsTest, AGapIsRefusedNamingTheToolAndTheStep) {
  RevisionSpec spec = Weather();
  spec.steps[1].from = 3;
  spec.steps[1].to = 4;
  spec.current = 4;
  spec.parameters[3] = V3();
  EXPECT_THAT(Refusal(spec),
              HasSubstr("tool \"weather\": step 2 (revision 3 → 4) leaves a gap: no step reads revision 2"));
  RevisionSpec skips = Weather();
  skips.steps.erase(skips.steps.begin());
  EXPECT_THAT(Refusal(skips), HasSubstr("step 1 (revision 2 → 3) leaves a gap: no step reads revision 1"));
}

TEST(RevisionsTest, ADuplicateStepIsRefused) {
  RevisionSpec spec = Weather();
  spec.steps.insert(spec.steps.begin() + 1, spec.steps[0]);
  EXPECT_THAT(Refusal(spec),
              HasSubstr("tool \"weather\": step 2 (revision 1 → 2) duplicates an earlier step from revision 1"));
}

TEST(RevisionsTest, AStepThatDoesNotAdvanceIsRefused) {
  RevisionSpec spec = Weather();
  spec.steps[1].to = 2;
  EXPECT_THAT(Refusal(spec), HasSubstr("tool \"weather\": step 2 (revision 2 → 2) does not advance"));
}

TEST(RevisionsTest, ACycleIsRefused) {
  RevisionSpec spec = Weather();
  spec.steps.push_back({.from = 3, .to = 1, .arguments = RenameTown});
  EXPECT_THAT(Refusal(spec), HasSubstr("tool \"weather\": step 3 (revision 3 → 1) goes back (a cycle)"));
}

TEST(RevisionsTest, AChainThatStopsShortOfTheCurrentRevisionIsRefused) {
  RevisionSpec spec = Weather();
  spec.current = 4;
  spec.parameters[3] = V3();
  EXPECT_THAT(Refusal(spec),
              HasSubstr("tool \"weather\": the chain ends at revision 3, not at the current revision 4"));
  RevisionSpec none{.current = 2, .parameters = {{1, V1()}}};
  EXPECT_THAT(Refusal(none), HasSubstr("the chain ends at revision 1, not at the current revision 2"));
}

TEST(RevisionsTest, AnOlderRevisionWithoutItsSchemaIsRefused) {
  RevisionSpec spec = Weather();
  spec.parameters.erase(2);
  EXPECT_THAT(Refusal(spec), HasSubstr("tool \"weather\": revision 2 has no parameter schema"));
  RevisionSpec future = Weather();
  future.parameters[3] = V3();
  EXPECT_THAT(Refusal(future), HasSubstr("a schema for revision 3, which is not older than the current revision 3"));
}

TEST(RevisionsTest, AStepWithoutAnArgumentsUpcasterIsRefused) {
  RevisionSpec spec = Weather();
  spec.steps[0].arguments = nullptr;
  EXPECT_THAT(Refusal(spec), HasSubstr("step 1 (revision 1 → 2) has no arguments upcaster"));
}

TEST(RevisionsTest, AnOldCallIsInferredAndCarriedToTheCurrentRevisionWithItsMeta) {
  RevisionsPtr r = Compiled();
  const Value meta = J(R"({"temp":21})");
  Upcasted up = Upcast(*r, J(R"({"town":"Oslo"})"), &meta, nullptr);
  EXPECT_EQ(up.how, UpcastHow::kUpcast);
  EXPECT_EQ(up.from, 1);
  EXPECT_FALSE(up.recorded);
  ASSERT_TRUE(up.arguments && up.meta);
  EXPECT_EQ(json::Serialize(*up.arguments), R"({"city":{"name":"Oslo"}})");
  EXPECT_EQ(json::Serialize(*up.meta), R"({"degrees":21})");
  Upcasted mid = Upcast(*r, J(R"({"city":"Oslo"})"), nullptr, nullptr);
  EXPECT_EQ(mid.from, 2);
  EXPECT_EQ(json::Serialize(*mid.arguments), R"({"city":{"name":"Oslo"}})");
  EXPECT_FALSE(mid.meta);
}

TEST(RevisionsTest, ACurrentCallIsLeftAsItIs) {
  RevisionsPtr r = Compiled();
  const Value args = J(R"({"city":{"name":"Oslo"}})");
  Upcasted up = Upcast(*r, args, nullptr, nullptr);
  EXPECT_EQ(up.how, UpcastHow::kCurrent);
  EXPECT_EQ(up.from, 3);
  EXPECT_FALSE(up.arguments);
  EXPECT_EQ(up.Arguments(args), &args);
}

TEST(RevisionsTest, ARecordedRevisionWinsOverInferenceWhileItsSchemaIsUnchanged) {
  // Revision 2 added an optional field: revision-1 arguments validate at both,
  // and inference alone would take the newer.
  RevisionSpec spec{.current = 2,
                    .parameters = {{1, schema::Parameters({{"days", schema::Integer()}})}},
                    .steps = {{.from = 1, .to = 2, .arguments = [](const Value& a) {
                                 Value out = a;
                                 out.Set("weeks", Value(int64_t{1}));
                                 return out;
                               }}}};
  const Value current =
      schema::CompileParameters(schema::Parameters({{"days", schema::Integer()}, {"weeks", schema::Integer()}}))
          .value();
  RevisionsPtr r = CompileRevisions("t", std::move(spec), current).value();
  const Value args = J(R"({"days":3})");
  EXPECT_EQ(Upcast(*r, args, nullptr, nullptr).how, UpcastHow::kCurrent);
  const RecordedRevision at1{1, r->fingerprints.at(1)};
  Upcasted up = Upcast(*r, args, nullptr, &at1);
  EXPECT_EQ(up.how, UpcastHow::kUpcast);
  EXPECT_TRUE(up.recorded);
  EXPECT_EQ(json::Serialize(*up.arguments), R"({"days":3,"weeks":1})");
  // A record whose schema the tool no longer declares falls back to inference, saying so.
  const RecordedRevision stale{1, "0000000000000000"};
  Upcasted inferred = Upcast(*r, args, nullptr, &stale);
  EXPECT_EQ(inferred.how, UpcastHow::kCurrent);
  EXPECT_FALSE(inferred.recorded);
  EXPECT_THAT(inferred.detail, HasSubstr("which this tool does not declare: revision inferred"));
}

TEST(RevisionsTest, AThrowingStepIsReportedNotThrown) {
  RevisionSpec spec = Weather();
  spec.steps[1].arguments = [](const Value&) -> Value { throw std::runtime_error("no city"); };
  RevisionsPtr r = Compiled(std::move(spec));
  Upcasted up = Upcast(*r, J(R"({"town":"Oslo"})"), nullptr, nullptr);
  EXPECT_EQ(up.how, UpcastHow::kThrew);
  EXPECT_FALSE(up.ok());
  EXPECT_EQ(up.detail, "step 2 (revision 2 → 3) threw: no city");
  EXPECT_EQ(up.Arguments(J("{}")), nullptr);
}

TEST(RevisionsTest, AStepWhoseOutputFailsTheNextSchemaIsReported) {
  RevisionSpec spec = Weather();
  spec.steps[0].arguments = [](const Value& a) { return a; };  // forgets the rename
  RevisionsPtr r = Compiled(std::move(spec));
  Upcasted up = Upcast(*r, J(R"({"town":"Oslo"})"), nullptr, nullptr);
  EXPECT_EQ(up.how, UpcastHow::kInvalidStep);
  EXPECT_THAT(up.detail, HasSubstr("step 1 (revision 1 → 2) gave arguments that fail revision 2's schema"));
}

TEST(RevisionsTest, ArgumentsNoRevisionAcceptsAreSaidSo) {
  RevisionsPtr r = Compiled();
  Upcasted up = Upcast(*r, J(R"({"village":"Oslo"})"), nullptr, nullptr);
  EXPECT_EQ(up.how, UpcastHow::kNoRevision);
  EXPECT_EQ(up.from, 0);
  EXPECT_THAT(up.detail, HasSubstr("no revision's schema accepts the arguments"));
}

TEST(RevisionsTest, UpcastingTwiceGivesTheSameBytes) {
  RevisionsPtr r = Compiled();
  const Value args = J(R"({"town":"Oslo"})");
  EXPECT_EQ(json::Serialize(*Upcast(*r, args, nullptr, nullptr).arguments),
            json::Serialize(*Upcast(*r, args, nullptr, nullptr).arguments));
}

TEST(RevisionsTest, APresenterSetRefusesABadChainAndTheVersionCoversTheRevisions) {
  PresenterSet set;
  RevisionSpec bad = Weather();
  bad.steps[1].to = 2;
  Status st = set.Add(
      "weather", V3(), [](const Value&) { return std::optional<Value>(); }, nullptr, "1", std::move(bad));
  EXPECT_THAT(st.message(), HasSubstr("tool \"weather\": step 2 (revision 2 → 2) does not advance"));
  EXPECT_EQ(set.Find("weather"), nullptr);
  ASSERT_TRUE(set.Add(
                     "weather", V3(), [](const Value&) { return std::optional<Value>(); }, nullptr, "1", Weather())
                  .ok());
  ASSERT_TRUE(set.Add(
                     "plain", V3(), [](const Value&) { return std::optional<Value>(); }, nullptr, "1")
                  .ok());
  ASSERT_NE(set.Find("weather")->revisions, nullptr);
  EXPECT_EQ(set.Find("plain")->revisions, nullptr);
  PresenterSet plain_weather;
  ASSERT_TRUE(plain_weather
                  .Add(
                      "weather", V3(), [](const Value&) { return std::optional<Value>(); }, nullptr, "1")
                  .ok());
  EXPECT_NE(set.Find("weather")->version, plain_weather.Find("weather")->version);
}

}  // namespace
}  // namespace retrace::presenters
