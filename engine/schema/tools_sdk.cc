#include "engine/schema/tools_sdk.h"

#include "engine/schema/sdk_text.h"

namespace retrace::schema {

std::optional<SdkLanguage> ParseSdkLanguage(std::string_view name) {
  if (name == "typescript") return SdkLanguage::kTypeScript;
  if (name == "python") return SdkLanguage::kPython;
  return std::nullopt;
}

std::string RenderToolsSdk(std::span<const ToolSdkSchema> tools, SdkLanguage language) {
  return language == SdkLanguage::kPython ? sdk::RenderPython(tools) : sdk::RenderTypeScript(tools);
}

Result<std::vector<ToolSdkSchema>> ToolSdkSchemasFromJson(const json::Value& array) {
  if (!array.is_array()) {
    return Status::InvalidArgument("a schema set is a JSON array of {name, description, parameters, output}");
  }
  std::vector<ToolSdkSchema> out;
  for (size_t i = 0; i < array.as_array().size(); ++i) {
    const json::Value& entry = array.as_array()[i];
    const std::string where = "entry " + std::to_string(i);
    if (!entry.is_object()) return Status::InvalidArgument(where + " is not an object");
    const json::Value* name = entry.Find("name");
    if (name == nullptr || !name->is_string()) return Status::InvalidArgument(where + ": \"name\" must be a string");
    ToolSdkSchema tool{.name = name->as_string(), .description = std::nullopt, .parameters = std::nullopt,
                       .output = std::nullopt};
    if (const json::Value* d = entry.Find("description"); d != nullptr && d->is_string()) tool.description = d->as_string();
    if (const json::Value* p = entry.Find("parameters")) tool.parameters = *p;
    if (const json::Value* o = entry.Find("output")) tool.output = *o;
    out.push_back(std::move(tool));
  }
  return out;
}

}  // namespace retrace::schema
