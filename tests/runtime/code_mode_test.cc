// run_code's contract is dsh-tools' own: tests/golden/code_mode/run_code.json
// was made by running dsh-tools' run_code through its registry with a code
// runtime returning canned outcomes (tests/golden/code_mode/generate.mjs).
#include <gtest/gtest.h>

#include "engine/json/parser.h"
#include "engine/json/writer.h"
#include "engine/runtime/code_mode.h"
#include "presenters/reference_tools.h"
#include "tests/test_util.h"

namespace retrace::runtime {
namespace {

using json::Value;
using schema::SdkLanguage;

const Value& Golden() {
  static const Value kGolden = *json::Parse(
      retrace::testing::ReadFile(std::string(RETRACE_SOURCE_DIR) + "/tests/golden/code_mode/run_code.json"));
  return kGolden;
}

std::string Text(const Value& outcome) { return outcome.Find("content")->as_array()[0].Find("text")->as_string(); }

TEST(CodeModeTest, RunCodeSchemaIsUpstreamsInEachLanguagesFlavor) {
  for (auto [name, language] : {std::pair{"typescript", SdkLanguage::kTypeScript}, {"python", SdkLanguage::kPython}}) {
    const Value& want = *Golden().Find("schemas")->Find(name);
    EXPECT_EQ(RunCodeDescription(language), want.Find("description")->as_string()) << name;
    EXPECT_EQ(json::Serialize(RunCodeParameters(language)), json::Serialize(*want.Find("parameters"))) << name;
  }
  EXPECT_EQ(json::Serialize(RunCodeOutputSchema()), json::Serialize(*Golden().Find("outputSchema")));
}

TEST(CodeModeTest, CompletionsRenderAsUpstreamsIncludingTheIndentationCap) {
  const Value::Array& completions = Golden().Find("completions")->as_array();
  ASSERT_GE(completions.size(), 20u);
  for (const Value& c : completions) {
    Value output = Value::MakeObject({{"logs", *c.Find("logs")}});
    if (const Value* result = c.Find("result")) output.Set("result", *result);
    const Value& outcome = *c.Find("outcome");
    ASSERT_FALSE(outcome.Find("isError")->as_bool());
    EXPECT_EQ(RenderRunCodeOutput(output), Text(outcome)) << json::Serialize(output);
  }
}

TEST(CodeModeTest, FailedRunsGiveCodeRunFailedErrorWithTheCapturedOutput) {
  for (const Value& f : Golden().Find("failures")->as_array()) {
    std::vector<std::string> logs;
    for (const Value& l : f.Find("logs")->as_array()) logs.push_back(l.as_string());
    const Value& error = *f.Find("error");
    const ToolError e = CodeRunFailedError(error.Find("kind")->as_string(), error.Find("message")->as_string(), logs);
    const Value& want = *f.Find("outcome")->Find("error");
    EXPECT_EQ(e.message(), want.Find("message")->as_string());
    EXPECT_EQ(e.info().name, want.Find("info")->Find("name")->as_string());
    EXPECT_EQ(e.info().code, want.Find("info")->Find("code")->as_string());
    EXPECT_EQ("Error: " + e.message(), Text(*f.Find("outcome")));
  }
}

TEST(CodeModeTest, BlankDescriptionAndCollapseRefusalsHaveUpstreamsTexts) {
  EXPECT_EQ(std::string(kBlankRunCodeDescription), Golden().Find("blankDescription")->Find("error")->Find("message")->as_string());
  const Value& collapse = *Golden().Find("collapse")->Find("error");
  const ToolError e = CodeModeCollapseError("echo");
  EXPECT_EQ(e.message(), collapse.Find("message")->as_string());
  EXPECT_EQ(e.info().name, collapse.Find("info")->Find("name")->as_string());
  EXPECT_EQ(e.info().code, collapse.Find("info")->Find("code")->as_string());
}

TEST(CodeModeTest, RunCodeCallCardIsUpstreamsAndOldArgumentsFallBack) {
  const presenters::ToolPresenter& p = *presenters::RunCodePresenter();
  const Value args = Value::MakeObject({{"code", "const x = 1;\nreturn x"}, {"description", "Count TODO markers"}});
  std::optional<Value> card = presenters::PresentCall(p, args);
  ASSERT_TRUE(card.has_value());
  EXPECT_EQ(json::Serialize(*card), json::Serialize(*Golden().Find("card")));
  // A program logged without its description (an older dsh) gets the generic fallback.
  EXPECT_FALSE(presenters::PresentCall(p, Value::MakeObject({{"code", "return 1"}})).has_value());
}

TEST(CodeModeTest, ToolsModesParseByTheirConfigNames) {
  EXPECT_EQ(ParseToolsMode("native"), ToolsMode::kNative);
  EXPECT_EQ(ParseToolsMode("code"), ToolsMode::kCode);
  EXPECT_EQ(ParseToolsMode("both"), ToolsMode::kBoth);
  EXPECT_EQ(ParseToolsMode("Code"), std::nullopt);
}

}  // namespace
}  // namespace retrace::runtime
