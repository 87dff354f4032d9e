// The Code Mode SDK (dsh-tool-contract §7.3): the text a model programs
// against under `run_code`, generated from the same schemas the tools are
// registered with. Two flavors, byte for byte as dsh's renderers write them:
//  - TypeScript (`renderToolsSdk`): `interface ToolArgsMap`/`ToolOutputMap`
//    and `declare const tools`;
//  - Python (`renderToolsSdkPy`): one TypedDict per object shape and a
//    `Tools` protocol with an async method per tool.
// Pure and total: a schema outside the supported subset degrades to
// `unknown` / `Any` instead of failing, as upstream's do. The same tool set
// gives the same bytes (the prompt cache depends on it).
#ifndef RETRACE_ENGINE_SCHEMA_TOOLS_SDK_H_
#define RETRACE_ENGINE_SCHEMA_TOOLS_SDK_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <retrace/engine/base/status.h>
#include <retrace/engine/json/value.h>

namespace retrace::schema {

// One tool as the SDK declares it: the input `renderToolsSdk` takes.
// An absent schema renders as unknown/Any; a non-string description as none.
struct ToolSdkSchema {
  std::string name;
  std::optional<std::string> description;
  std::optional<json::Value> parameters;
  std::optional<json::Value> output;
};

enum class SdkLanguage { kTypeScript, kPython };

// "typescript" / "python" (the code runtime's language names); nullopt otherwise.
std::optional<SdkLanguage> ParseSdkLanguage(std::string_view name);

// The whole `tools:sdk` section: instructions, then the fenced declarations.
// Tools are sorted by name in UTF-16 code-unit order, as JavaScript sorts.
std::string RenderToolsSdk(std::span<const ToolSdkSchema> tools, SdkLanguage language);

// One schema node as a TypeScript type (`jsonSchemaToTs`), members indented
// two spaces per level from `indent`; "unknown" outside the subset.
std::string JsonSchemaToTs(const json::Value& schema, int indent = 0);

// One schema node as a context-free Python type (`jsonSchemaToPy`): objects
// with properties degrade to dict[str, Any]; "Any" outside the subset.
std::string JsonSchemaToPy(const json::Value& schema);

// A schema set as `retrace sdk --schemas` reads it: a JSON array of
// {name, description?, parameters, output} objects. Errors name the entry.
Result<std::vector<ToolSdkSchema>> ToolSdkSchemasFromJson(const json::Value& array);

}  // namespace retrace::schema

#endif  // RETRACE_ENGINE_SCHEMA_TOOLS_SDK_H_
