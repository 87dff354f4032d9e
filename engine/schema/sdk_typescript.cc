// The TypeScript flavor of the Code Mode SDK (renderToolsSdk, jsonSchemaToTs).
#include <string>

#include "engine/json/js_text.h"
#include "engine/json/writer.h"
#include "engine/schema/sdk_text.h"
#include "engine/schema/tools_sdk.h"

namespace retrace::schema {
namespace {

using json::Value;

// The model-facing usage contract above the declarations: dsh's text, which
// the prompt cache and the goldens hold byte for byte.
constexpr char kInstructions[] =
    "## Writing code for run_code\n"
    "\n"
    "`run_code` takes two required arguments: `code` \u2014 the body of an async TypeScript function (erasable "
    "syntax only \u2014 no `enum` or namespaces; type annotations are advisory, the code runs type-stripped) "
    "\u2014 and `description`, a short summary of what the program does. Inside the program:\n"
    "\n"
    "- Call tools as `await tools.name(args)` \u2014 quoted access for exotic names: `tools[\"my-tool\"](args)`. "
    "Every call resolves to the tool's typed canonical JSON value. Tool arguments must be lossless JSON.\n"
    "- A FAILED tool call rejects with `ToolCallError`, whose `toolName` identifies the failed tool and whose "
    "`message` is human-readable \u2014 `try/catch` it to handle and continue.\n"
    "- Independent read-only calls MAY overlap under `Promise.all` (safe calls run concurrently; mutating calls "
    "run alone, in submission order). Sequence dependent work with `await`.\n"
    "- Emit results with `return` and/or `console.log(...)`. Only what you print or return is program output. A "
    "successful tool result containing an image is attached after the run so you can inspect it on the next "
    "step; every other intermediate result stays out of the conversation, so extract just what you need.\n"
    "\n"
    "The available tools:";

constexpr char kDeclarationsTail[] =
    "type ToolName = keyof ToolOutputMap\n"
    "\n"
    "declare class ToolCallError extends Error {\n"
    "  readonly name: \"ToolCallError\";\n"
    "  readonly toolName: ToolName;\n"
    "}\n"
    "\n"
    "declare const tools: {\n"
    "  [K in ToolName]: (args: ToolArgsMap[K]) => Promise<ToolOutputMap[K]>;\n"
    "}";

std::string Pad(int indent) { return sdk::Repeat("  ", indent); }

bool IsBareKey(std::string_view name) {
  if (name.empty()) return false;
  auto start = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == '$'; };
  if (!start(name[0])) return false;
  for (char c : name.substr(1)) {
    if (!start(c) && !(c >= '0' && c <= '9')) return false;
  }
  return true;
}

std::string Key(std::string_view name) { return IsBareKey(name) ? std::string(name) : sdk::Stringify(name); }

// A one-line JSDoc of a description, or "" for none. Whitespace collapses and
// `*/` is escaped, so a description cannot end the comment.
std::string DocLine(const std::string* description, int indent) {
  if (description == nullptr || description->empty()) return "";
  std::string collapsed(json::JsTrim(sdk::CollapseJsSpace(*description)));
  std::string escaped;
  for (size_t i = 0; i < collapsed.size(); ++i) {
    if (collapsed[i] == '*' && i + 1 < collapsed.size() && collapsed[i + 1] == '/') {
      escaped += "*\\/";
      ++i;
    } else {
      escaped += collapsed[i];
    }
  }
  return Pad(indent) + "/** " + escaped + " */";
}

const std::string* StringMember(const Value& node, std::string_view key) {
  const Value* v = node.Find(key);
  return v != nullptr && v->is_string() ? &v->as_string() : nullptr;
}

std::string Scalar(const Value& node, const std::string& type) {
  if (const Value* c = node.Find("const")) return json::Serialize(*c);
  if (const Value* e = node.Find("enum")) {
    std::string out;
    for (const Value& v : e->as_array()) out += (out.empty() ? "" : " | ") + json::Serialize(v);
    return out;
  }
  return type == "integer" ? "number" : type;
}

// One supported node. Recursion is bounded: the subset check caps the depth.
std::string Render(const Value& node, int indent);

std::string RenderObject(const Value& node, int indent) {
  const Value* props = node.Find("properties");
  const bool open = !(node.Find("additionalProperties") != nullptr && *node.Find("additionalProperties") == Value(false));
  if (props == nullptr || props->as_object().empty()) return open ? "Record<string, JsonValue>" : "Record<string, never>";
  const Value* required = node.Find("required");
  auto is_required = [&](const std::string& name) {
    if (required == nullptr) return false;
    for (const Value& r : required->as_array()) {
      if (r.as_string() == name) return true;
    }
    return false;
  };
  std::string out = "{";
  for (const auto& [name, prop] : props->as_object()) {
    if (std::string doc = DocLine(StringMember(prop, "description"), indent + 1); !doc.empty()) out += "\n" + doc;
    out += "\n" + Pad(indent + 1) + Key(name) + (is_required(name) ? "" : "?") + ": " + Render(prop, indent + 1) + ";";
  }
  out += "\n" + Pad(indent) + "}";
  return open ? out + " & Record<string, JsonValue>" : out;
}

std::string Render(const Value& node, int indent) {
  if (const Value* one_of = node.Find("oneOf")) {
    std::string out;
    for (const Value& branch : one_of->as_array()) out += (out.empty() ? "" : " | ") + Render(branch, indent);
    return out;
  }
  const Value* type = node.Find("type");
  if (type == nullptr) return "JsonValue";
  const std::string& t = type->as_string();
  if (t == "array") {
    const Value* items = node.Find("items");
    if (items == nullptr) return "JsonValue[]";
    std::string item = Render(*items, indent);
    // dsh parenthesizes on a text test: any `|` or `&` anywhere in the item's text.
    return item.find_first_of("|&") != std::string::npos ? "(" + item + ")[]" : item + "[]";
  }
  if (t == "object") return RenderObject(node, indent);
  return Scalar(node, t);
}

std::string TypeOf(const std::optional<Value>& schema, int indent) {
  return sdk::Supported(schema) ? Render(*schema, indent) : "unknown";
}

std::string Map(std::string_view name, const std::vector<std::string>& members) {
  std::string out = "interface " + std::string(name) + " {";
  if (!members.empty()) {
    out += "\n";
    for (const std::string& m : members) out += m + "\n";
  }
  return out + "}";
}

}  // namespace

std::string JsonSchemaToTs(const Value& schema, int indent) { return TypeOf(schema, indent); }

std::string sdk::RenderTypeScript(std::span<const ToolSdkSchema> tools) {
  std::vector<std::string> args, outputs;
  for (const ToolSdkSchema* tool : sdk::SortedByName(tools)) {
    const std::string key = Key(tool->name);
    if (std::string doc = DocLine(tool->description ? &*tool->description : nullptr, 1); !doc.empty()) {
      args.push_back(std::move(doc));
    }
    args.push_back(Pad(1) + key + ": " + TypeOf(tool->parameters, 1) + ";");
    outputs.push_back(Pad(1) + key + ": " + TypeOf(tool->output, 1) + ";");
  }
  return std::string(kInstructions) + "\n\n```ts\n" +
         "type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue }\n\n" +
         Map("ToolArgsMap", args) + "\n\n" + Map("ToolOutputMap", outputs) + "\n\n" + kDeclarationsTail + "\n```";
}

}  // namespace retrace::schema
