// The presenters layer: reference parameter schemas equal what upstream
// registers, soft validation, and the generic fallback.
#include <algorithm>

#include <gtest/gtest.h>

#include "engine/json/parser.h"
#include "engine/json/writer.h"
#include "engine/schema/schema_compiler.h"
#include "presenters/reference_tools.h"
#include "tests/test_util.h"

namespace retrace::presenters {
namespace {

using json::Value;

TEST(ReferencePresentersTest, ParameterSchemasEqualUpstreams) {
  const Value upstream =
      json::Parse(retrace::testing::ReadFile(std::string(RETRACE_SOURCE_DIR) + "/tests/golden/cards/schemas.json"))
          .value();
  std::vector<std::string> names;
  for (const auto& [name, schema] : upstream.as_object()) {
    names.push_back(name);
    Result<Value> ours = schema::CompileParameters(ReferenceParameters(name));
    ASSERT_TRUE(ours.ok()) << name << ": " << ours.status().message();
    EXPECT_EQ(json::Serialize(*ours), json::Serialize(schema)) << name;
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, ReferencePresenters().Names());  // the same tool set, no more, no less
}

TEST(ReferencePresentersTest, EachReferenceToolHasItsPresenterAndOthersAreNotFound) {
  for (const std::string& name : ReferencePresenters().Names()) {
    Result<ToolPresenterPtr> p = ReferencePresenter(name);
    ASSERT_TRUE(p.ok()) << name << ": " << p.status().message();
    EXPECT_EQ(p->get(), ReferencePresenters().Find(name));
  }
  EXPECT_EQ(ReferencePresenters().Names().size(), 11u);
  Result<ToolPresenterPtr> none = ReferencePresenter("no_such_tool");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), Status::Code::kNotFound);
  EXPECT_EQ(none.status().message(), "no reference presenter for tool \"no_such_tool\"");
}

TEST(ReferencePresentersTest, AnExitCodeBeyondTheDoubleRangeIsInfinityAsInJavaScript) {
  // dsh parses the marker with Number(): 400 digits are Infinity, which the
  // card's JSON writes as null. It once threw, and the card became the fallback.
  const ToolPresenter& bash = *ReferencePresenters().Find("bash");
  const Value args = Value::MakeObject({{"command", "true"}, {"description", "d"}});
  for (const auto& [digits, written] : std::vector<std::pair<std::string, std::string>>{
           {std::string(400, '9'), "null"}, {"7", "7"}, {"123456789012345678901", "123456789012345680000"}}) {
    Content content{Value::MakeObject({{"type", "text"}, {"text", "out\n[exit code: " + digits + "]"}})};
    PresentOutcome r = PresentResultOutcome(bash, args, {content, false, nullptr});
    ASSERT_EQ(r.how, Presented::kView) << r.detail;
    EXPECT_EQ(json::Serialize(*r.view), R"({"card":"terminal","output":"out","exitCode":)" + written + "}");
  }
}

// A read card's lines are checked in place when they are known by their
// kept text only (json::Value::UnbuiltArray): every check gives what the
// built lines give.
TEST(ReferencePresentersTest, ReadLinesKeptAsTextAreCheckedAsBuiltLinesAre) {
  const ToolPresenter& read = *ReferencePresenters().Find("read");
  const Value args = Value::MakeObject({{"file_path", "a.ts"}});
  Content content{Value::MakeObject(
      {{"type", "text"}, {"text", "<path>/w/a.ts</path>\n<type>file</type>\n<content>\n1: a\n2: b\n</content>"}})};
  const std::vector<std::pair<std::string, bool>> cases = {
      {R"([{"number":3,"text":"a"},{"number":4,"text":"b"}])", true},
      {R"([{"text":"a","number":3,"more":[1,{"number":0}]},{"number":9,"text":"\"}]\\"}])", true},
      {R"([{"text":"a","number":3},{"number":5,"text":""}])", true},
      {R"([])", true},
      {R"([{"number":2,"text":"a"}])", false},          // before the offset
      {R"([{"number":3,"text":"a"},{"number":3,"text":"b"}])", false},  // not increasing
      {R"([{"number":11,"text":"a"}])", false},         // past the total
      {R"([{"number":3.5,"text":"a"}])", false},
      {R"([{"number":"3","text":"a"}])", false},
      {R"([{"number":3,"text":7}])", false},
      {R"([{"number":3}])", false},
      {R"([{"number":3,"text":null}])", false},
      {R"([[3,"a"]])", false},
      {R"(["3: a"])", false},
      {R"([{"number":1e+21,"text":"a"}])", false},
  };
  for (const auto& [lines_text, valid] : cases) {
    auto meta_with = [&](Value lines) {
      return Value::MakeObject({{"path", "/w/a.ts"}, {"offset", 3}, {"lines", std::move(lines)}, {"totalLines", 10}});
    };
    const Value built = meta_with(json::Parse(lines_text).value());
    auto buffer = std::make_shared<const std::string>(lines_text);
    const Value kept = meta_with(lines_text == "[]" ? Value(Value::Array{}) : Value::UnbuiltArray({buffer, *buffer}));
    const PresentOutcome from_built = PresentResultOutcome(read, args, {content, false, &built});
    const PresentOutcome from_kept = PresentResultOutcome(read, args, {content, false, &kept});
    EXPECT_EQ(from_built.how == Presented::kView, valid) << lines_text;
    EXPECT_EQ(from_kept.how, from_built.how) << lines_text;
    if (from_built.view && from_kept.view) {
      EXPECT_EQ(json::Serialize(*from_kept.view), json::Serialize(*from_built.view)) << lines_text;
    }
  }
}

TEST(ReferencePresentersTest, SoftValidationAndThrowsSelectTheFallback) {
  PresenterSet set;
  ASSERT_TRUE(set.Add(
                     "t", Value::MakeObject({{"n", Value::MakeObject({{"type", "integer"}, {"required", true}})}}),
                     [](const Value& args) -> std::optional<Value> {
                       if (args.Find("n")->as_number() < 0) throw std::runtime_error("negative");
                       return Value("view");
                     },
                     nullptr)
                  .ok());
  const ToolPresenter& p = *set.Find("t");
  EXPECT_EQ(PresentCall(p, Value::MakeObject({{"n", 1}})), Value("view"));
  EXPECT_FALSE(PresentCall(p, Value::MakeObject({{"n", "x"}})).has_value());  // fails the schema
  EXPECT_FALSE(PresentCall(p, Value::MakeObject({{"n", -1}})).has_value());   // the presenter threw
  Content content;
  EXPECT_FALSE(PresentResult(p, Value::MakeObject({{"n", 1}}), {content, false, nullptr}).has_value());  // none
}

// Each reference tool's own presenters, given logged arguments that fail its
// schema (a field of the wrong type, not an object at all), give no view and
// say why, for the call and for the result (where the tool has one) alike.
TEST(ReferencePresentersTest, EveryReferenceToolRefusesArgumentsThatFailItsSchema) {
  Content content{Value::MakeObject({{"type", "text"}, {"text", "ok"}})};
  for (const std::string& name : ReferencePresenters().Names()) {
    const ToolPresenter& p = *ReferencePresenters().Find(name);
    const Value schema = schema::CompileParameters(ReferenceParameters(name)).value();
    std::vector<Value> invalid{Value("not an object"), Value(Value::Array{})};
    for (const auto& [field, spec] : schema.Find("properties")->as_object()) {
      const Value* type = spec.Find("type");
      const bool wants_string = type != nullptr && type->is_string() && type->as_string() == "string";
      invalid.push_back(Value::MakeObject({{field, wants_string ? Value(12345) : Value("wrong type")}}));
    }
    for (const Value& args : invalid) {
      SCOPED_TRACE(name + " " + json::Serialize(args));
      const PresentOutcome call = PresentCallOutcome(p, args);
      EXPECT_EQ(call.how, Presented::kInvalidArguments);
      EXPECT_FALSE(call.view.has_value());
      EXPECT_FALSE(call.detail.empty());
      const PresentOutcome result = PresentResultOutcome(p, args, {content, false, nullptr});
      // The job tools have no result presenter: nothing to refuse there.
      EXPECT_EQ(result.how, p.present_result ? Presented::kInvalidArguments : Presented::kNone);
      EXPECT_FALSE(PresentCall(p, args).has_value());
      EXPECT_FALSE(PresentResult(p, args, {content, false, nullptr}).has_value());
    }
  }
}

TEST(ReferencePresentersTest, FallbackKeepsThePendingTitleAndShowsRawContent) {
  const Value call = FallbackCall("deploy", Value::MakeObject({{"env", "prod"}}));
  EXPECT_EQ(json::Serialize(call), R"({"card":"generic","title":"deploy","rawInput":{"env":"prod"}})");
  Content content;
  content.push_back(Value::MakeObject({{"type", "text"}, {"text", "ok"}}));
  EXPECT_EQ(json::Serialize(FallbackResult(call, content)),
            R"({"card":"generic","title":"deploy","content":[{"type":"text","text":"ok"}]})");
}

}  // namespace
}  // namespace retrace::presenters
