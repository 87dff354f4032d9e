#include "engine/schema/schema_spec.h"

#include <gtest/gtest.h>

#include <cmath>

#include "engine/json/writer.h"
#include "engine/schema/schema_compiler.h"
#include "engine/schema/validator.h"

namespace retrace::schema {
namespace {

TEST(SchemaSpecTest, BuildersProjectLikeTheTypeScriptDsl) {
  // The spec's observed example, written with the C++ builders.
  const json::Value params = Parameters({
      {"path", String().Required().Description("Absolute path")},
      {"limit", Number()},
      {"opts", Object(false, {{"x", Boolean().Required()}})},
      {"u", OneOf({String(), Null()})},
      {"any", Json().Description("anything")},
  });
  auto raw = CompileParameters(params);
  ASSERT_TRUE(raw.ok()) << raw.status().message();
  EXPECT_EQ(json::Serialize(*raw),
            R"({"type":"object","properties":{"path":{"type":"string","description":"Absolute path"},)"
            R"("limit":{"type":"number"},"opts":{"type":"object","additionalProperties":false,)"
            R"("properties":{"x":{"type":"boolean"}},"required":["x"]},"u":{"oneOf":[{"type":"string"},)"
            R"({"type":"null"}]},"any":{"description":"anything"}},"required":["path"]})");
}

TEST(SchemaSpecTest, CompilerStillRefusesWhatTheBuildersAllow) {
  auto raw = CompileValue(String().Enum({1}).dsl());
  ASSERT_FALSE(raw.ok());
  EXPECT_EQ(raw.status().message(), "unsupported JSON schema: schema.enum must be a non-empty array of string values");
}

TEST(ValidatorTest, NonLosslessNumbersAreReported) {
  auto raw = CompileValue(Object(true, {{"a", Number()}}).dsl());
  ASSERT_TRUE(raw.ok());
  json::Value v = json::Value::MakeObject({{"a", std::nan("")}});
  EXPECT_EQ(Validate(*raw, v), std::vector<std::string>{"\"value.a\" must be a finite JSON number"});
  json::Value hidden = json::Value::MakeObject({{"b", -0.0}});  // an undeclared key of an open object
  EXPECT_EQ(Validate(*raw, hidden), std::vector<std::string>{"\"value\" must be a lossless JSON object"});
}

TEST(ValidatorTest, DeepValuesAreWalkedOnlyAsDeepAsTheSchema) {
  auto raw = CompileValue(Array(Json()).dsl());
  ASSERT_TRUE(raw.ok());
  json::Value deep = 1;
  for (int i = 0; i < 100000; ++i) {
    json::Value::Array wrapper;  // (not Array{...}: an initializer_list would copy)
    wrapper.push_back(std::move(deep));
    deep = json::Value(std::move(wrapper));
  }
  EXPECT_TRUE(Validate(*raw, deep).empty());
}

TEST(SchemaCompilerTest, RefusesSchemasNestedTooDeep) {
  Spec s = String();
  for (int i = 0; i < 300; ++i) s = Array(s);
  auto raw = CompileValue(s.dsl());
  ASSERT_FALSE(raw.ok());
  EXPECT_NE(raw.status().message().find("nests deeper than 256 schema levels"), std::string::npos);
}

}  // namespace
}  // namespace retrace::schema
