// Code Mode's `run_code` contract (dsh-tool-contract §7.1–7.2): the texts,
// schemas and renderings that make up the transport tool, in each runtime
// language's flavor. The transport itself (a program run in a code runtime,
// its bindings re-entering the pipeline) builds on these.
#ifndef RETRACE_ENGINE_RUNTIME_CODE_MODE_H_
#define RETRACE_ENGINE_RUNTIME_CODE_MODE_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <retrace/engine/json/value.h>
#include <retrace/engine/runtime/tool_error.h>
#include <retrace/engine/schema/tools_sdk.h>

namespace retrace::runtime {

// How a scope's tools are presented to its model: natively, only through
// run_code, or both (`tools.mode`, an agent's `presentAs`).
enum class ToolsMode { kNative, kCode, kBoth };
std::optional<ToolsMode> ParseToolsMode(std::string_view name);  // "native" | "code" | "both"

// The `tools:code-only` section's text under the effective mode `code`.
inline constexpr char kCodeOnlyInstruction[] =
    "`run_code` is the only tool you can call directly \u2014 a tool call naming any other tool fails. Reach every "
    "tool the SDK declares below from inside the program.";

// run_code's model-facing description, and its parameters' raw JSON Schema
// (`code` and `description`, both required strings), in the flavor of the
// runtime's language.
std::string RunCodeDescription(schema::SdkLanguage language);
json::Value RunCodeParameters(schema::SdkLanguage language);
json::Value RunCodeParametersSpec(schema::SdkLanguage language);  // the same, as the schema DSL

// run_code's canonical output: {logs: string[], result?: any JSON} (raw schema).
json::Value RunCodeOutputSchema();
json::Value RunCodeOutputSpec();  // the same, as the schema DSL

// The model-facing text of a run's output {logs, result?}: the logs joined
// with "\n", then the result (a string raw; anything else two-space JSON whose
// containers from depth 5 down are compact, so indentation stays within 10
// characters), empty parts left out; "(run_code completed with no output)"
// when nothing is left.
std::string RenderRunCodeOutput(const json::Value& output);

// A failed program run: CodeRunFailedError (CODE_RUN_FAILED), "code run failed
// (<kind>): <message>", then "\nCaptured output:\n" and the logs when there are any.
ToolError CodeRunFailedError(std::string_view kind, std::string_view message, const std::vector<std::string>& logs);

// What a blank `description` argument fails with (a plain error, no identity).
inline constexpr char kBlankRunCodeDescription[] = "invalid description: expected a non-empty string";

// Under `code`, a model-direct call to any other visible tool: UNKNOWN_TOOL
// with the way to reach it instead.
ToolError CodeModeCollapseError(std::string_view tool);

}  // namespace retrace::runtime

#endif  // RETRACE_ENGINE_RUNTIME_CODE_MODE_H_
