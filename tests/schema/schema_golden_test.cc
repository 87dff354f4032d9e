// Compilation, projection and validation match upstream dsh-tools exactly:
// tests/golden/schema/expected.json was produced by running dsh-tools'
// own functions on cases.json (tests/golden/schema/generate.mjs).
#include <gtest/gtest.h>

#include "engine/json/parser.h"
#include "engine/json/writer.h"
#include "engine/schema/schema_compiler.h"
#include "engine/schema/validator.h"
#include "tests/test_util.h"

namespace retrace::schema {
namespace {

json::Value Load(const std::string& name) {
  auto v = json::Parse(retrace::testing::ReadFile(std::string(RETRACE_SOURCE_DIR) + "/tests/golden/schema/" + name));
  EXPECT_TRUE(v.ok()) << name;
  return v.ok() ? std::move(v).value() : json::Value();
}

TEST(SchemaGoldenTest, EveryCaseMatchesUpstream) {
  const json::Value cases = Load("cases.json");
  const json::Value expected = Load("expected.json");
  ASSERT_EQ(cases.as_array().size(), expected.as_array().size());
  for (size_t i = 0; i < cases.as_array().size(); ++i) {
    const json::Value& c = cases.as_array()[i];
    const json::Value& want = expected.as_array()[i];
    const std::string name = c.Find("name")->as_string();
    const bool params = c.Find("kind")->as_string() == "parameters";
    auto compiled = params ? CompileParameters(*c.Find("spec")) : CompileValue(*c.Find("spec"));
    if (const json::Value* error = want.Find("error")) {
      ASSERT_FALSE(compiled.ok()) << name;
      EXPECT_EQ("JsonSchemaError: " + compiled.status().message(), error->as_string()) << name;
      continue;
    }
    ASSERT_TRUE(compiled.ok()) << name << ": " << compiled.status().message();
    EXPECT_EQ(json::Serialize(*compiled), want.Find("projection")->as_string()) << name;
    const json::Value* values = c.Find("values");
    for (size_t k = 0; values != nullptr && k < values->as_array().size(); ++k) {
      const json::Value& v = values->as_array()[k];
      const auto got = params ? ValidateArguments(*compiled, v) : Validate(*compiled, v, "value");
      std::vector<std::string> wanted;
      for (const json::Value& s : want.Find("violations")->as_array()[k].as_array()) wanted.push_back(s.as_string());
      EXPECT_EQ(got, wanted) << name << " value #" << k << ": " << json::Serialize(v);
    }
  }
}

}  // namespace
}  // namespace retrace::schema
