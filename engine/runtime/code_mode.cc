#include "engine/runtime/code_mode.h"

#include "engine/json/writer.h"
#include "engine/schema/schema_compiler.h"
#include "engine/schema/schema_spec.h"

namespace retrace::runtime {
namespace {

using json::Value;

struct Flavor {
  const char* description;
  const char* code_description;
};

// dsh's texts, byte for byte (tests/golden/code_mode/run_code.json).
constexpr Flavor kTypeScript = {
    "Execute a TypeScript program against the available tools. Takes two required arguments: `code`, the BODY of an "
    "async function (erasable syntax only; top-level `await` and `return` work), and `description`, a short summary "
    "of what the program does. Call tools as `await tools.name(args)` per the declarations in the system prompt. "
    "Only what you print or return is program output \u2014 curate it. Image-bearing subtool results are attached "
    "after the run.",
    "The program: the body of an async TypeScript function."};
constexpr Flavor kPython = {
    "Execute a Python program against the available tools. Takes two required arguments: `code`, the BODY of an "
    "async function (top-level `await` and `return` work), and `description`, a short summary of what the program "
    "does. Call tools as `await tools.name(args)` per the declarations in the system prompt. Use `print(...)` "
    "and/or `return <value>` for program output \u2014 curate it. Image-bearing subtool results are attached after "
    "the run.",
    "The program: the body of an async Python function."};

constexpr char kDescriptionParameter[] =
    "Clear, concise description of what this program does in active voice, 5-10 words (shown in the UI). Examples: "
    "\"Count TODO markers across packages\"; \"Read failing test and its fixture\"; \"Rename config key in every "
    "cordis.yml\".";

const Flavor& FlavorOf(schema::SdkLanguage language) {
  return language == schema::SdkLanguage::kPython ? kPython : kTypeScript;
}

// Total indentation is capped at 10 characters (JSON.stringify's own cap for
// `space`): a container whose children would indent deeper is written compact,
// and so is everything inside it.
constexpr int kMaxIndentChars = 10;

// Iterative, so a deep value cannot exhaust the stack.
void AppendRendered(std::string& out, const Value& root) {
  struct Task {
    const Value* value;  // null: `text` is literal output
    std::string text;
    int depth;
    bool compact;
  };
  std::vector<Task> tasks{{&root, "", 0, false}};
  while (!tasks.empty()) {
    Task task = std::move(tasks.back());
    tasks.pop_back();
    if (task.value == nullptr) {
      out += task.text;
      continue;
    }
    const Value& v = *task.value;
    if (!v.is_array() && !v.is_object()) {
      json::AppendSerialized(out, v);
      continue;
    }
    const bool compact = task.compact || (task.depth + 1) * 2 > kMaxIndentChars;
    const int child = task.depth + 1;
    const std::string indent(static_cast<size_t>(task.depth) * 2, ' ');
    const std::string child_indent(static_cast<size_t>(child) * 2, ' ');
    const size_t n = v.is_array() ? v.as_array().size() : v.as_object().size();
    out += v.is_array() ? '[' : '{';
    const char close = v.is_array() ? ']' : '}';
    if (n == 0) {
      out += close;
      continue;
    }
    tasks.push_back({nullptr, compact ? std::string(1, close) : "\n" + indent + close, 0, false});
    for (size_t i = n; i-- > 0;) {
      const Value* item = v.is_array() ? &v.as_array()[i] : &v.as_object()[i].second;
      tasks.push_back({item, "", child, compact});
      std::string sep = compact ? (i == 0 ? "" : ",") : (i == 0 ? "\n" : ",\n") + child_indent;
      if (v.is_object()) {
        json::AppendQuoted(sep, v.as_object()[i].first);
        sep += compact ? ":" : ": ";
      }
      tasks.push_back({nullptr, std::move(sep), 0, false});
    }
  }
}

}  // namespace

std::optional<ToolsMode> ParseToolsMode(std::string_view name) {
  if (name == "native") return ToolsMode::kNative;
  if (name == "code") return ToolsMode::kCode;
  if (name == "both") return ToolsMode::kBoth;
  return std::nullopt;
}

std::string RunCodeDescription(schema::SdkLanguage language) { return FlavorOf(language).description; }

json::Value RunCodeParametersSpec(schema::SdkLanguage language) {
  using schema::String;
  return schema::Parameters({
      {"code", String().Required().Description(FlavorOf(language).code_description)},
      {"description", String().Required().Description(kDescriptionParameter)},
  });
}

json::Value RunCodeParameters(schema::SdkLanguage language) {
  return *schema::CompileParameters(RunCodeParametersSpec(language));
}

json::Value RunCodeOutputSpec() {
  using namespace schema;  // NOLINT(google-build-using-namespace): the DSL reads as a schema
  return Object(false, {{"logs", Array(String()).Required()}, {"result", Json()}});
}

json::Value RunCodeOutputSchema() { return *schema::CompileValue(RunCodeOutputSpec()); }

std::string RenderRunCodeOutput(const Value& output) {
  std::string text;
  if (const Value* logs = output.Find("logs"); logs != nullptr && logs->is_array()) {
    for (size_t i = 0; i < logs->as_array().size(); ++i) {
      if (i > 0) text += '\n';
      const Value& line = logs->as_array()[i];
      text += line.is_string() ? line.as_string() : json::Serialize(line);
    }
  }
  if (const Value* result = output.Find("result")) {
    std::string rendered;
    if (result->is_string()) {
      rendered = result->as_string();
    } else {
      AppendRendered(rendered, *result);
    }
    if (!rendered.empty()) text += (text.empty() ? "" : "\n") + rendered;
  }
  return text.empty() ? "(run_code completed with no output)" : text;
}

ToolError CodeRunFailedError(std::string_view kind, std::string_view message, const std::vector<std::string>& logs) {
  std::string text = "code run failed (" + std::string(kind) + "): " + std::string(message);
  if (!logs.empty()) {
    text += "\nCaptured output:";
    for (const std::string& line : logs) text += "\n" + line;
  }
  return ToolError(std::move(text), "CodeRunFailedError", "CODE_RUN_FAILED");
}

ToolError CodeModeCollapseError(std::string_view tool) {
  const std::string name(tool);
  return ToolError("unknown tool \"" + name + "\": only `run_code` is callable directly \u2014 call `" + name +
                       "` from inside a `run_code` program instead",
                   "ToolNotFoundError", "UNKNOWN_TOOL");
}

}  // namespace retrace::runtime
