// What the two SDK flavors (tools_sdk.h) share: JavaScript's string rules as
// dsh's renderers apply them. Internal to engine/schema.
#ifndef RETRACE_ENGINE_SCHEMA_SDK_TEXT_H_
#define RETRACE_ENGINE_SCHEMA_SDK_TEXT_H_

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <retrace/engine/json/value.h>
#include <retrace/engine/schema/tools_sdk.h>

namespace retrace::schema::sdk {

// The tools by name in UTF-16 code-unit order (JavaScript's `<`), stably.
std::vector<const ToolSdkSchema*> SortedByName(std::span<const ToolSdkSchema> tools);

// s.replace(/\s+/g, " "): every run of JavaScript whitespace becomes one space.
std::string CollapseJsSpace(std::string_view s);

// JSON.stringify of a string (of a value: json::Serialize).
std::string Stringify(std::string_view s);

// Whether the node is inside the supported subset (assertSupportedJsonSchema).
bool Supported(const std::optional<json::Value>& schema);

// `text` repeated `n` times.
std::string Repeat(std::string_view text, int n);

// The two flavors of RenderToolsSdk (sdk_typescript.cc, sdk_python.cc).
std::string RenderTypeScript(std::span<const ToolSdkSchema> tools);
std::string RenderPython(std::span<const ToolSdkSchema> tools);

}  // namespace retrace::schema::sdk

#endif  // RETRACE_ENGINE_SCHEMA_SDK_TEXT_H_
