// The Python flavor of the Code Mode SDK (renderToolsSdkPy, jsonSchemaToPy):
// one TypedDict per object shape, declared before whatever refers to it, and
// a `Tools` protocol with one async method per tool.
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>

#include "engine/json/js_text.h"
#include "engine/json/unicode.h"
#include "engine/json/utf8.h"
#include "engine/json/writer.h"
#include "engine/schema/sdk_text.h"
#include "engine/schema/tools_sdk.h"

namespace retrace::schema {
namespace {

using json::Value;

// dsh's Python instructions, byte for byte (see sdk_typescript.cc).
constexpr char kInstructions[] =
    "## Writing code for run_code\n"
    "\n"
    "`run_code` takes two required arguments: `code` \u2014 the body of an async Python function (top-level "
    "`await` and `return` both work) \u2014 and `description`, a short summary of what the program does. At run "
    "time exactly two of the names declared below are bound: `tools` and `ToolCallError`. Everything else is a "
    "STATIC STUB describing argument and return types \u2014 in particular the `TypedDict` classes do NOT exist "
    "at run time, so build arguments as plain `dict`/`list` JSON values: `await tools.name({\"field\": 1})`, "
    "never `FooArgs(field=1)`, which raises `NameError`. Inside the program:\n"
    "\n"
    "- Call tools as `await tools.name(args)` \u2014 subscript access for exotic, reserved, or underscore-leading "
    "names: `await tools[\"my-tool\"](args)`. Every call resolves to the tool's typed canonical JSON value (each "
    "method's return type below). Tool arguments must be lossless JSON.\n"
    "- A FAILED tool call raises `ToolCallError`, whose `toolName` identifies the failed tool and whose message "
    "is human-readable \u2014 wrap in `try/except` to handle and continue.\n"
    "- Independent read-only calls MAY overlap under `asyncio.gather` (safe calls run concurrently; mutating "
    "calls run alone, in submission order). Sequence dependent work with `await`.\n"
    "- Emit the run's answer with `print(...)` and/or a top-level `return <value>`; the returned value must be "
    "lossless JSON. Only what you print and return is program output. A successful tool result containing an "
    "image is attached after the run so you can inspect it on the next step; every other intermediate result "
    "stays out of the conversation, so extract just what you need.\n"
    "\n"
    "The available tools:";

// Hard keywords, and __debug__ (CPython refuses to assign it): legal on the
// wire, not as an attribute or a TypedDict field. Soft keywords are fine.
const std::set<std::string, std::less<>> kReserved = {
    "False", "None",     "True",     "and",    "as",   "assert", "async",  "await",    "break",
    "class", "continue", "def",      "del",    "elif", "else",   "except", "finally",  "for",
    "from",  "global",   "if",       "import", "in",   "is",     "lambda", "nonlocal", "not",
    "or",    "pass",     "raise",    "return", "try",  "while",  "with",   "yield",    "__debug__"};

constexpr const char* kTypingOrder[] = {"Any", "Literal", "NotRequired", "Protocol", "TypedDict"};

// Past this many open `list[` brackets CPython's tokenizer refuses the line
// (200, less what an annotation adds around the chain): the item degrades to Any.
constexpr int kMaxListNesting = 180;
// Class-name bases are capped (UTF-16 units) so names stay linear in depth.
constexpr size_t kMaxClassNameBase = 120;

std::string Pad(int indent) { return sdk::Repeat("    ", indent); }

bool IsSurrogate(uint32_t cp) { return cp >= 0xD800 && cp <= 0xDFFF; }

// A name CPython takes bare and keeps as written: `xid_start xid_continue*`
// and NFKC-stable (CPython normalizes identifiers; JSON keys are compared as written).
bool IsBareIdentifier(std::string_view name) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size();) {
    const auto [cp, len] = json::CodePointAt(name, i);
    if (!(i == 0 ? json::IsXidStart(cp) || cp == '_' : json::IsXidContinue(cp))) return false;
    i += len;
  }
  return json::NormalizeNfkc(name) == name;
}

bool IsFieldName(std::string_view name) {
  const bool mangled = name.starts_with("__") && !name.ends_with("__");  // `__x` name-mangles in a class body
  return IsBareIdentifier(name) && !kReserved.contains(name) && !mangled;
}

// A description on one line: whitespace runs collapse, the C0/C1 controls
// become \xNN and lone surrogates \uNNNN (CPython refuses NUL and surrogates
// in source); nullopt for none or for one that collapses to nothing.
std::optional<std::string> Describe(const std::string* description) {
  if (description == nullptr) return std::nullopt;
  const std::string collapsed = sdk::CollapseJsSpace(*description);
  std::string escaped;
  for (size_t i = 0; i < collapsed.size();) {
    const auto [cp, len] = json::CodePointAt(collapsed, i);
    char buf[8];
    if (cp <= 0x08 || (cp >= 0x0E && cp <= 0x1F) || (cp >= 0x7F && cp <= 0x9F)) {
      std::snprintf(buf, sizeof buf, "\\x%02x", cp);
      escaped += buf;
    } else if (IsSurrogate(cp)) {
      std::snprintf(buf, sizeof buf, "\\u%04x", cp);
      escaped += buf;
    } else {
      escaped.append(collapsed, i, len);
    }
    i += len;
  }
  std::string trimmed(json::JsTrim(escaped));
  if (trimmed.empty()) return std::nullopt;
  return trimmed;
}

// A one-line docstring: backslashes doubled and quotes escaped, so it cannot
// merge with or escape its closing quotes.
std::optional<std::string> DocLine(const std::string* description, int indent) {
  std::optional<std::string> d = Describe(description);
  if (!d) return std::nullopt;
  std::string escaped;
  for (char c : *d) {
    if (c == '\\' || c == '"') escaped += '\\';
    escaped += c;
  }
  return Pad(indent) + "\"\"\"" + escaped + "\"\"\"";
}

// A name segment as a class-name part: words split at `_` and at whatever is
// not XID_Continue, each word's first UTF-16 unit upper-cased (so an astral
// head stays as it is), NFKC; `Tool` in front of a head that cannot start one.
std::string CamelCase(std::string_view raw) {
  std::string joined;
  bool word_start = true;
  for (size_t i = 0; i < raw.size();) {
    const auto [cp, len] = json::CodePointAt(raw, i);
    if (cp == '_' || !json::IsXidContinue(cp)) {
      word_start = true;
    } else {
      joined += word_start && cp < 0x10000 ? json::ToUpperFull(cp) : std::string(raw.substr(i, len));
      word_start = false;
    }
    i += len;
  }
  joined = json::NormalizeNfkc(joined);
  const bool starts = !joined.empty() && json::IsXidStart(json::CodePointAt(joined, 0).first);
  return json::NormalizeNfkc(starts ? joined : "Tool" + joined);
}

// The first 120 UTF-16 units, less a high surrogate the cut left alone.
std::string CapClassNameBase(const std::string& base) {
  if (json::Utf16Length(base) <= kMaxClassNameBase) return base;
  std::string capped = json::Utf16Prefix(base, kMaxClassNameBase);
  size_t last = capped.size();
  while (last > 0 && (static_cast<unsigned char>(capped[last - 1]) & 0xC0) == 0x80) --last;
  if (last > 0) --last;
  const uint32_t cp = json::CodePointAt(capped, last).first;
  if (cp >= 0xD800 && cp <= 0xDBFF) capped.resize(last);
  return capped;
}

std::string ChildClassName(const std::string& base, const std::string& segment) {
  return CapClassNameBase(json::NormalizeNfkc(base + segment));
}

// Python literal text of a scalar: True/False, JSON strings, numbers as
// JavaScript prints them, but an integer beyond 2^53 with its exact digits.
std::string PyScalar(const Value& v) {
  if (v.is_bool()) return v.as_bool() ? "True" : "False";
  if (v.is_number()) {
    const double d = v.as_number();
    if (std::trunc(d) == d && std::fabs(d) > 9007199254740991.0) {
      char buf[400];
      std::snprintf(buf, sizeof buf, "%.0f", d);  // glibc prints a double's exact integer value
      return buf;
    }
  }
  return json::Serialize(v);
}

// One walk of a schema set: the classes declared so far, their names, and
// the typing symbols used.
class PyRenderer {
 public:
  PyRenderer() { typing_.insert("Protocol"); }

  // `class_name` names an object with properties ("" for the context-free form,
  // where objects degrade to dict[str, Any]).
  std::string Type(const std::optional<Value>& schema, const std::string& class_name) {
    if (!sdk::Supported(schema)) return Any("Any");
    context_free_ = class_name.empty();
    return Walk(*schema, class_name, 0);
  }

  const std::vector<std::string>& classes() const { return classes_; }
  void Use(const char* symbol) { typing_.insert(symbol); }
  std::string Imports() const {
    std::string out;
    for (const char* symbol : kTypingOrder) {
      if (typing_.contains(symbol)) out += (out.empty() ? "" : ", ") + std::string(symbol);
    }
    return out;
  }

 private:
  std::string Any(const char* text) {
    typing_.insert("Any");
    return text;
  }

  std::string Walk(const Value& node, const std::string& class_name, int list_depth) {
    if (const Value* one_of = node.Find("oneOf")) {
      std::string out;
      const Value::Array& branches = one_of->as_array();
      for (size_t i = 0; i < branches.size(); ++i) {
        // Unions open no bracket: the branches keep the enclosing list depth.
        std::string t = Walk(branches[i], ChildClassName(class_name, std::to_string(i + 1)), list_depth);
        out += (i == 0 ? "" : " | ") + t;
      }
      return out;
    }
    const Value* type = node.Find("type");
    if (type == nullptr) return Any("Any");
    const std::string& t = type->as_string();
    if (t == "string") return Constrained(node, "str");
    if (t == "number") return Constrained(node, "float");
    if (t == "integer") return Constrained(node, "int");
    if (t == "boolean") return Constrained(node, "bool");
    if (t == "null") return "None";
    if (t == "array") {
      const Value* items = node.Find("items");
      if (items == nullptr) return Any("list[Any]");
      if (list_depth >= kMaxListNesting) return Any("Any");
      return "list[" + Walk(*items, class_name, list_depth + 1) + "]";  // items are named after the array
    }
    return Object(node, class_name);
  }

  std::string Constrained(const Value& node, const char* broad) {
    if (const Value* c = node.Find("const")) {
      Use("Literal");
      return "Literal[" + PyScalar(*c) + "]";
    }
    if (const Value* e = node.Find("enum")) {
      Use("Literal");
      std::string out;
      for (const Value& v : e->as_array()) out += (out.empty() ? "" : ", ") + PyScalar(v);
      return "Literal[" + out + "]";
    }
    return broad;
  }

  std::string Object(const Value& node, const std::string& class_name) {
    static const Value::Object kNone;
    const Value* props = node.Find("properties");
    const Value::Object& entries = props != nullptr ? props->as_object() : kNone;
    bool expressible = !context_free_;
    for (const auto& [field, child] : entries) expressible = expressible && IsFieldName(field);
    const Value* ap = node.Find("additionalProperties");
    const bool open = !(ap != nullptr && *ap == Value(false));
    // A field that is no Python attribute degrades the whole object; so does an
    // open empty one (any dict). A closed empty one keeps its class: "no keys".
    if (!expressible || (entries.empty() && open)) return Any("dict[str, Any]");
    std::string name = Allocate(class_name);
    Use("TypedDict");
    std::vector<std::string> field_types;
    for (const auto& [field, child] : entries) {
      // A field's annotation is its own line: list nesting restarts at 1 (NotRequired[ is one).
      field_types.push_back(Walk(child, ChildClassName(name, CamelCase(field)), 1));
    }
    const Value* required = node.Find("required");
    auto is_required = [&](const std::string& field) {
      if (required == nullptr) return false;
      for (const Value& r : required->as_array()) {
        if (r.as_string() == field) return true;
      }
      return false;
    };
    std::string text = "class " + name + "(TypedDict):";
    size_t lines = 1;
    for (size_t i = 0; i < entries.size(); ++i) {
      const auto& [field, child] = entries[i];
      const Value* d = child.Find("description");
      if (auto doc = Describe(d != nullptr && d->is_string() ? &d->as_string() : nullptr)) {
        text += "\n" + Pad(1) + "# " + *doc;
        ++lines;
      }
      if (is_required(field)) {
        text += "\n" + Pad(1) + field + ": " + field_types[i];
      } else {
        Use("NotRequired");
        text += "\n" + Pad(1) + field + ": NotRequired[" + field_types[i] + "]";
      }
      ++lines;
    }
    if (open) {
      text += "\n" + Pad(1) + "# Additional keys beyond those declared are allowed.";
      ++lines;
    }
    if (lines == 1) text += "\n" + Pad(1) + "pass";
    classes_.push_back(std::move(text));
    return name;
  }

  // A unique class name: the capped base, else the base with 2, 3, ... (the
  // counter per base resumes where it stopped, so a long chain stays linear).
  std::string Allocate(const std::string& base) {
    const std::string capped = CapClassNameBase(base);
    std::string name = capped;
    if (used_.contains(name)) {
      auto it = next_.find(capped);
      int n = it == next_.end() ? 2 : it->second;
      while (used_.contains(capped + std::to_string(n))) ++n;
      name = capped + std::to_string(n);
      next_[capped] = n + 1;
    }
    used_.insert(name);
    return name;
  }

  std::vector<std::string> classes_;
  std::set<std::string> used_;
  std::map<std::string, int> next_;
  std::set<std::string> typing_;
  bool context_free_ = false;
};

}  // namespace

std::string JsonSchemaToPy(const Value& schema) {
  PyRenderer r;
  return r.Type(schema, "");
}

std::string sdk::RenderPython(std::span<const ToolSdkSchema> tools) {
  PyRenderer r;
  std::vector<std::string> members;
  int statements = 0;
  for (const ToolSdkSchema* tool : sdk::SortedByName(tools)) {
    const std::string camel = CamelCase(tool->name);
    const std::string args = r.Type(tool->parameters, camel + "Args");
    const std::string output = r.Type(tool->output, camel + "Output");
    const std::string* description = tool->description ? &*tool->description : nullptr;
    if (IsBareIdentifier(tool->name) && !kReserved.contains(tool->name) && !tool->name.starts_with("_")) {
      // The docstring must be the method body's first statement to document it.
      std::optional<std::string> doc = DocLine(description, 2);
      members.push_back(Pad(1) + "async def " + tool->name + "(self, args: " + args + ") -> " + output + ":" +
                        (doc ? "" : " ..."));
      if (doc) members.push_back(std::move(*doc));
      ++statements;
    } else {
      // Reached as tools["name"]: listed as a comment (a comment is no statement).
      members.push_back(Pad(1) + "# tools[" + sdk::Stringify(tool->name) + "](args: " + args + ") -> " + output);
      if (auto d = Describe(description)) members.push_back(Pad(1) + "#   " + *d);
    }
  }
  std::string body = statements > 0 ? "" : Pad(1) + "pass";
  for (const std::string& m : members) body += (body.empty() ? "" : "\n") + m;
  std::string classes;
  for (const std::string& c : r.classes()) classes += c + "\n\n";
  return std::string(kInstructions) + "\n\n```python\nfrom typing import " + r.Imports() +
         "\n\nclass ToolCallError(Exception):\n    toolName: str\n\n" + classes + "class Tools(Protocol):\n" + body +
         "\n\ntools: Tools\n```";
}

}  // namespace retrace::schema
