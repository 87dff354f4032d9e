#include "tools/edit_tool.h"

#include "engine/schema/schema_spec.h"
#include "tools/file_ops.h"
#include "engine/json/lenient.h"
#include "engine/json/js_text.h"
#include "tools/line_diff.h"
#include "tools/reference_tool.h"

namespace retrace::tools {
namespace {

using json::Value;
using namespace schema;

// dsh-fs-local's detectLineEndings: CRLF when the first 4096 UTF-16 units
// hold more CRLF than bare LF line ends.
bool UsesCrlf(std::string_view raw) {
  const std::string sample = json::Utf16Prefix(raw, 4096);
  size_t crlf = 0, lf = 0;
  for (size_t i = 0; i < sample.size(); ++i) {
    if (sample[i] != '\n') continue;
    (i > 0 && sample[i - 1] == '\r' ? crlf : lf) += 1;
  }
  return crlf > lf;
}

std::string WithCrlf(std::string_view lf_text) {
  std::string out;
  for (char c : lf_text) {
    if (c == '\n') out += '\r';
    out += c;
  }
  return out;
}

size_t CountOccurrences(std::string_view text, std::string_view needle) {
  size_t count = 0;
  for (size_t at = text.find(needle); at != std::string_view::npos; at = text.find(needle, at + needle.size())) ++count;
  return count;
}

std::string ReplaceAll(std::string_view text, std::string_view needle, std::string_view replacement) {
  std::string out;
  size_t start = 0;
  for (size_t at = text.find(needle); at != std::string_view::npos; at = text.find(needle, start)) {
    out.append(text.substr(start, at - start));
    out.append(replacement);
    start = at + needle.size();
  }
  out.append(text.substr(start));
  return out;
}

// dsh-tool-fs's remediation of a guarded mutation's failure.
runtime::ToolError Stale(const std::string& message) {
  return FsError(message + " \u2014 re-read the file, then retry", "FS_STALE_VERSION");
}

}  // namespace

Result<runtime::ToolDefinitionPtr> EditTool(const Workspace& workspace) {
  runtime::ToolDefinition spec{
      .name = "edit",
      .description = "Edit an existing UTF-8 text file by replacing literal text.",
      .output = {.schema = Object(false, {{"path", String().Required()},
                                          {"before", String().Required()},
                                          {"after", String().Required()}}),
                 .render =
                     [](const Value& args, const Value& v) {
                       const Value* all = args.Find("replace_all");
                       const std::string& path = v.Find("path")->as_string();
                       return runtime::TextContent(
                           json::True(all)
                               ? "The file " + path + " has been updated. All occurrences were successfully replaced."
                               : "The file " + path + " has been updated successfully.");
                     },
                 .presentation_meta =
                     [](const Value& args, const Value& v) {
                       return Value::MakeObject({{"diffs", ComputeHunkDiffs(args.Find("file_path")->as_string(),
                                                                            v.Find("before")->as_string(),
                                                                            v.Find("after")->as_string())}});
                     }},
      .execute =
          [workspace](runtime::ToolRunContext& run) {
            const Value& args = run.arguments();
            const std::string& path = args.Find("file_path")->as_string();
            const std::string& old_string = args.Find("old_string")->as_string();
            const std::string& new_string = args.Find("new_string")->as_string();
            const Value* all = args.Find("replace_all");
            const bool replace_all = all && all->as_bool();
            if (json::IsJsBlank(path)) throw std::runtime_error("file_path must be a non-empty string");
            if (old_string.empty()) throw std::runtime_error("old_string must be a non-empty string");
            if (old_string == new_string) throw std::runtime_error("old_string and new_string must differ");
            CheckEscalationArgs(args);
            const ResolvedPath target = workspace.Resolve(path, "edit");
            const std::string& dp = target.display;
            std::optional<FileInfo> existing = Probe(target.real);
            if (!existing) throw Stale("cannot edit \"" + dp + "\": file changed since it was read");
            if (!existing->regular) throw FsError("cannot edit \"" + dp + "\": not a regular file", "FS_NOT_REGULAR_FILE");
            std::optional<std::string> bytes = ReadBytes(target.real);
            if (!bytes) throw FsError("cannot edit \"" + dp + "\": cannot be read", "FS_IO");
            if (bytes->find('\0') != std::string::npos) throw FsError("cannot edit \"" + dp + "\": binary file", "FS_NOT_TEXT");
            std::optional<std::string> raw = json::DecodeUtf8Strict(std::move(*bytes));
            if (!raw) throw FsError("cannot edit \"" + dp + "\": invalid UTF-8 text", "FS_NOT_TEXT");
            const std::string before = NormalizeLineEndings(*raw);
            const std::string old_norm = NormalizeLineEndings(old_string), new_norm = NormalizeLineEndings(new_string);
            if (old_norm.empty()) throw FsError("old_string must be a non-empty string", "FS_EDIT_NOT_FOUND");
            const size_t matches = CountOccurrences(before, old_norm);
            if (matches == 0) throw FsError("old_string was not found in \"" + dp + "\"", "FS_EDIT_NOT_FOUND");
            if (!replace_all && matches > 1) {
              throw FsError("old_string matched " + std::to_string(matches) + " times in \"" + dp +
                                "\"; provide a more specific old_string or set replace_all to true",
                            "FS_AMBIGUOUS_EDIT");
            }
            std::string after = ReplaceAll(before, old_norm, new_norm);
            WriteFileAtomic(target.real, UsesCrlf(*raw) ? WithCrlf(after) : after, existing->mode, dp, "edit");
            return Value::MakeObject({{"path", dp}, {"before", before}, {"after", std::move(after)}});
          },
  };
  return DefineReferenceTool(std::move(spec));
}

}  // namespace retrace::tools
