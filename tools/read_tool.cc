#include "tools/read_tool.h"

#include <sys/stat.h>

#include <cmath>
#include <cstdint>
#include <map>

#include "engine/json/utf8.h"
#include "engine/json/writer.h"
#include "engine/schema/schema_spec.h"
#include "tools/file_ops.h"
#include "tools/reference_tool.h"
#include "engine/json/js_text.h"

namespace retrace::tools {
namespace {

using json::Value;
using namespace schema;

std::string Num(double d) { return json::FormatNumber(d); }

struct Window {
  Value::Array lines;
  double total = 0;
  bool truncated_by_bytes = false;
};

// dsh-tool-fs's buildWindow over the whole decoded text.
Window BuildWindow(std::string_view text, double offset, double limit, const ReadCaps& caps) {
  Window w;
  size_t used_bytes = 0;
  auto consume = [&](std::string line) {
    // The line buffer keeps max_line_length + 1 units, then loses one trailing \r.
    line = json::Utf16Prefix(line, caps.max_line_length + 1);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    w.total += 1;
    if (w.truncated_by_bytes || w.total < offset || static_cast<double>(w.lines.size()) >= limit) return;
    if (json::Utf16Length(line) > caps.max_line_length) {
      line = json::Utf16Prefix(line, caps.max_line_length) + "... (line truncated to " + std::to_string(caps.max_line_length) +
             " chars)";
    }
    const size_t bytes = line.size() + (w.lines.empty() ? 0 : 1);
    if (used_bytes + bytes > caps.max_bytes) {
      w.truncated_by_bytes = true;
      return;
    }
    used_bytes += bytes;
    w.lines.push_back(Value::MakeObject({{"number", w.total}, {"text", std::move(line)}}));
  };
  size_t start = 0;
  while (true) {
    const size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) break;
    consume(std::string(text.substr(start, nl - start)));
    start = nl + 1;
  }
  if (start < text.size()) consume(std::string(text.substr(start)));
  return w;
}

struct ReadArgs {
  std::string path;
  double offset = 1;
  double limit = 0;
};

// dsh-tool-fs's parseReadArgs: the checks the schema cannot express.
ReadArgs ParseReadArgs(const Value& args, double max_limit) {
  ReadArgs a;
  a.path = args.Find("file_path")->as_string();
  if (json::IsJsBlank(a.path)) {
    throw std::runtime_error("file_path must be a non-empty string");
  }
  auto positive = [](const Value* v, const char* name) {
    const double d = v->as_number();
    if (!std::isfinite(d) || std::trunc(d) != d || d < 1) throw std::runtime_error(std::string(name) + " must be a positive integer");
    return d;
  };
  a.offset = args.Find("offset") ? positive(args.Find("offset"), "offset") : 1;
  a.limit = args.Find("limit") ? positive(args.Find("limit"), "limit") : max_limit;
  if (a.limit > max_limit) throw std::runtime_error("limit must be less than or equal to " + Num(max_limit));
  return a;
}

std::string FormatReadOutput(const std::string& path, double offset, const Value::Array& lines, double total,
                             bool truncated_by_bytes) {
  const double end = lines.empty() ? std::max(0.0, offset - 1) : lines.back().Find("number")->as_number();
  std::string footer;
  if (truncated_by_bytes) {
    footer = "(Output capped. Showing lines " + Num(offset) + "-" + Num(end) + ". Use offset=" + Num(end + 1) + " to continue.)";
  } else if (end < total) {
    footer = "(Showing lines " + Num(offset) + "-" + Num(end) + " of " + Num(total) + ". Use offset=" + Num(end + 1) +
             " to continue.)";
  } else {
    footer = "(End of file - total " + Num(total) + " lines)";
  }
  std::string body;
  for (const Value& line : lines) {
    body += Num(line.Find("number")->as_number()) + ": " + line.Find("text")->as_string() + "\n";
  }
  return "<path>" + path + "</path>\n<type>file</type>\n<content>\n" + (lines.empty() ? footer : body + "\n" + footer) +
         "\n</content>";
}

Value ReadValueSchema() {
  return Object(false, {{"path", String().Required()},
                        {"offset", Integer().Required()},
                        {"lines", Array(Object(false, {{"number", Integer().Required()}, {"text", String().Required()}}))
                                      .Required()},
                        {"totalLines", Integer().Required()}});
}

// Files up to this size are read on the caller's thread (a few hundred
// microseconds at most); larger ones on the blocking pool.
constexpr uint64_t kBriefReadBytes = uint64_t{1} << 20;

// The read, or nullopt for a file over `max_size` bytes (nothing read yet).
std::optional<Value> ReadBody(const Workspace& workspace, const ReadCaps& caps, runtime::ToolRunContext& run,
                              uint64_t max_size) {
  const ReadArgs a = ParseReadArgs(run.arguments(), caps.limit);
  std::string display;
  std::optional<std::string> bytes;
  struct stat st;
  if (std::optional<OpenedFile> file = workspace.OpenToRead(a.path);
      file && ::fstat(file->fd.get(), &st) == 0 && S_ISREG(st.st_mode)) {
    // The common case in three calls: open, fstat, read.
    if (static_cast<uint64_t>(st.st_size) > max_size) return std::nullopt;
    display = std::move(file->display);
    bytes = ReadAll(file->fd.get(), static_cast<uint64_t>(st.st_size));
  } else {
    // Anything else the way that names what is wrong.
    const ResolvedPath target = workspace.Resolve(a.path, "read");
    std::optional<FileInfo> info = Probe(target.real);
    if (!info) throw FsError("cannot read \"" + target.display + "\": not found", "FS_NOT_FOUND");
    if (!info->regular) {
      throw FsError("cannot read \"" + target.display + "\": not a regular file", "FS_NOT_REGULAR_FILE");
    }
    if (info->size > max_size) return std::nullopt;
    display = target.display;
    bytes = ReadBytes(target.real);
  }
  if (!bytes) throw FsError("cannot read \"" + display + "\": I/O error", "FS_IO");
  std::optional<std::string> text = json::DecodeUtf8Strict(std::move(*bytes));
  if (!text) throw FsError("cannot read \"" + display + "\": invalid UTF-8 text", "FS_NOT_TEXT");
  Window w = BuildWindow(*text, a.offset, a.limit, caps);
  if (!w.truncated_by_bytes && a.offset > w.total && !(w.total == 0 && a.offset == 1)) {
    throw FsError("offset " + Num(a.offset) + " is out of range for \"" + display + "\" (" + Num(w.total) + " lines)",
                  "FS_NOT_FOUND");
  }
  return Value::MakeObject(
      {{"path", display}, {"offset", a.offset}, {"lines", Value(std::move(w.lines))}, {"totalLines", w.total}});
}

}  // namespace

std::string LangFromPath(std::string_view path) {
  static const std::map<std::string, std::string, std::less<>> kLang = {
      {"ts", "ts"},     {"tsx", "tsx"},   {"mts", "ts"},       {"cts", "ts"},     {"js", "js"},     {"jsx", "jsx"},
      {"mjs", "js"},    {"cjs", "js"},    {"json", "json"},    {"jsonc", "json"}, {"py", "py"},     {"rb", "rb"},
      {"go", "go"},     {"rs", "rs"},     {"java", "java"},    {"c", "c"},        {"h", "c"},       {"cc", "cpp"},
      {"cpp", "cpp"},   {"hpp", "cpp"},   {"cxx", "cpp"},      {"cs", "cs"},      {"kt", "kotlin"}, {"swift", "swift"},
      {"php", "php"},   {"sh", "sh"},     {"bash", "sh"},      {"zsh", "sh"},     {"yaml", "yaml"}, {"yml", "yaml"},
      {"toml", "toml"}, {"ini", "ini"},   {"md", "md"},        {"markdown", "md"}, {"mdx", "mdx"},  {"html", "html"},
      {"htm", "html"},  {"css", "css"},   {"scss", "scss"},    {"less", "less"},  {"sql", "sql"},   {"xml", "xml"},
      {"lua", "lua"}};
  const size_t slash = path.find_last_of("/\\");
  const std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  const size_t dot = base.rfind('.');
  if (dot == std::string_view::npos || dot == 0) return "";
  std::string ext(base.substr(dot + 1));
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto it = kLang.find(ext);
  return it == kLang.end() ? "" : it->second;
}

Result<runtime::ToolDefinitionPtr> ReadTool(const Workspace& workspace, ReadCaps caps) {
  runtime::ToolDefinition spec{
      .name = "read",
      .description = "Read a UTF-8 text file and return line-numbered content.",
      .output =
          {.schema = ReadValueSchema(),
           .render =
               [caps](const Value& args, const Value& v) {
                 const ReadArgs a = ParseReadArgs(args, caps.limit);
                 const Value::Array& lines = v.Find("lines")->as_array();
                 const double offset = v.Find("offset")->as_number(), total = v.Find("totalLines")->as_number();
                 const double end = lines.empty() ? std::max(0.0, offset - 1) : lines.back().Find("number")->as_number();
                 const bool capped = static_cast<double>(lines.size()) < a.limit && end < total;
                 return runtime::TextContent(FormatReadOutput(v.Find("path")->as_string(), offset, lines, total, capped));
               },
           .presentation_meta =
               [](const Value&, const Value& v) {
                 Value meta = Value::MakeObject({{"path", *v.Find("path")},
                                                 {"offset", *v.Find("offset")},
                                                 {"lines", *v.Find("lines")},
                                                 {"totalLines", *v.Find("totalLines")}});
                 if (std::string lang = LangFromPath(v.Find("path")->as_string()); !lang.empty()) meta.Set("lang", lang);
                 return meta;
               }},
      .execute = [workspace, caps](runtime::ToolRunContext& run) { return *ReadBody(workspace, caps, run, UINT64_MAX); },
      .execute_brief = [workspace, caps](runtime::ToolRunContext& run) {
        return ReadBody(workspace, caps, run, kBriefReadBytes);
      },
      .is_concurrency_safe = [](const Value&) { return true; },
  };
  return DefineReferenceTool(std::move(spec));
}

}  // namespace retrace::tools
