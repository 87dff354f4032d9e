// The Code Mode SDK texts are upstream's byte for byte: tests/golden/sdk holds
// schema sets and the texts dsh-tools' renderToolsSdk / renderToolsSdkPy give
// for them (tests/golden/sdk/generate.mjs runs the upstream renderers).
#include <gtest/gtest.h>

#include <filesystem>

#include "engine/json/js_text.h"
#include "engine/json/parser.h"
#include "engine/schema/tools_sdk.h"
#include "tests/test_util.h"

namespace retrace::schema {
namespace {

const std::string kDir = std::string(RETRACE_SOURCE_DIR) + "/tests/golden/sdk/";

std::vector<ToolSdkSchema> LoadCase(const std::string& name) {
  auto v = json::Parse(retrace::testing::ReadFile(kDir + name + ".schemas.json"));
  EXPECT_TRUE(v.ok()) << name;
  auto tools = ToolSdkSchemasFromJson(v.ok() ? *v : json::Value());
  EXPECT_TRUE(tools.ok()) << name << ": " << tools.status().message();
  return tools.ok() ? std::move(tools).value() : std::vector<ToolSdkSchema>{};
}

// (The texts are compared as Node writes them: a lone surrogate in a
// description is one U+FFFD in the file.)

// The first line where two texts part, for a readable failure.
std::string FirstDifference(const std::string& want, const std::string& got) {
  size_t line = 1, start = 0;
  for (size_t i = 0; i < std::min(want.size(), got.size()); ++i) {
    if (want[i] != got[i]) break;
    if (want[i] == '\n') ++line, start = i + 1;
  }
  auto line_of = [&](const std::string& s) { return s.substr(start, s.find('\n', start) - start); };
  return "line " + std::to_string(line) + "\n  upstream: " + line_of(want) + "\n  retrace:  " + line_of(got);
}

class SdkGoldenTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SdkGoldenTest, TypeScriptTextIsUpstreams) {
  const std::string want = retrace::testing::ReadFile(kDir + GetParam() + ".ts.txt");
  const std::string got = json::ToWellFormedUtf8(RenderToolsSdk(LoadCase(GetParam()), SdkLanguage::kTypeScript));
  EXPECT_TRUE(want == got) << FirstDifference(want, got);
}

TEST_P(SdkGoldenTest, PythonTextIsUpstreams) {
  const std::string want = retrace::testing::ReadFile(kDir + GetParam() + ".py.txt");
  const std::string got = json::ToWellFormedUtf8(RenderToolsSdk(LoadCase(GetParam()), SdkLanguage::kPython));
  EXPECT_TRUE(want == got) << FirstDifference(want, got);
}

INSTANTIATE_TEST_SUITE_P(Corpus, SdkGoldenTest,
                         ::testing::Values("empty", "reference", "names", "descriptions", "types", "deep", "random"));

TEST(SdkGoldenTest, EveryCaseOfTheCorpusIsTested) {
  size_t cases = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kDir)) {
    cases += entry.path().string().ends_with(".schemas.json") ? 1 : 0;
  }
  EXPECT_EQ(cases, 7u);
}

TEST(ToolsSdkTest, TheSameSetInAnyOrderGivesTheSameBytes) {
  std::vector<ToolSdkSchema> tools = LoadCase("names");
  const std::string ts = RenderToolsSdk(tools, SdkLanguage::kTypeScript);
  const std::string py = RenderToolsSdk(tools, SdkLanguage::kPython);
  std::reverse(tools.begin(), tools.end());
  EXPECT_EQ(RenderToolsSdk(tools, SdkLanguage::kTypeScript), ts);
  EXPECT_EQ(RenderToolsSdk(tools, SdkLanguage::kPython), py);
}

TEST(ToolsSdkTest, ContextFreeTypesDegradeAsUpstreamsDo) {
  auto schema = [](const char* text) { return *json::Parse(text); };
  EXPECT_EQ(JsonSchemaToTs(schema(R"({"type":"array","items":{"oneOf":[{"type":"string"},{"type":"null"}]}})")),
            "(string | null)[]");
  EXPECT_EQ(JsonSchemaToTs(schema(R"({"type":"string","minLength":1})")), "unknown");
  EXPECT_EQ(JsonSchemaToPy(schema(R"({"type":"object","properties":{"a":{"type":"string"}}})")), "dict[str, Any]");
  EXPECT_EQ(JsonSchemaToPy(schema(R"({"type":"integer","enum":[1,2]})")), "Literal[1, 2]");
  EXPECT_EQ(JsonSchemaToPy(schema(R"({"type":["string"]})")), "Any");
}

TEST(ToolsSdkTest, ASchemaSetThatIsNotOneIsRefusedNamingTheEntry) {
  auto refused = [](const char* text) { return ToolSdkSchemasFromJson(*json::Parse(text)).status().message(); };
  EXPECT_EQ(refused(R"({"name":"x"})"), "a schema set is a JSON array of {name, description, parameters, output}");
  EXPECT_EQ(refused(R"([{"name":"a"}, 3])"), "entry 1 is not an object");
  EXPECT_EQ(refused(R"([{"name":7}])"), "entry 0: \"name\" must be a string");
}

}  // namespace
}  // namespace retrace::schema
