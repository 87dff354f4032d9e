#include "tools/write_tool.h"

#include <sys/stat.h>

#include <chrono>
#include <memory>
#include <optional>

#include "engine/schema/schema_spec.h"
#include "tools/file_ops.h"
#include "engine/json/js_text.h"
#include "tools/line_diff.h"
#include "tools/reference_tool.h"

namespace retrace::tools {
namespace {

using json::Value;
using namespace schema;

// dsh-fs-local's diff basis: files at or above this size get no before-text.
constexpr uint64_t kDiffBasisMaxBytes = uint64_t{10} * 1024 * 1024;

// readTextForDiff: the text of `bytes`, LF-normalized, or null when it could
// not be read, is binary (a NUL byte) or is not UTF-8.
Value TextForDiff(std::optional<std::string> bytes) {
  if (!bytes || bytes->find('\0') != std::string::npos) return Value();
  std::optional<std::string> text = json::DecodeUtf8Strict(std::move(*bytes));
  return text ? Value(NormalizeLineEndings(*text)) : Value();
}

// What a write replaces: where it really is, whether and what is there, and
// the diff basis (null for a new file, or a file or content too big).
struct Target {
  std::string display;
  std::string real;
  std::optional<FileInfo> existing;
  Value before;
};

Target Locate(const Workspace& workspace, const std::string& path, size_t content_size) {
  const bool wants_basis = content_size < kDiffBasisMaxBytes;
  struct stat st;
  if (std::optional<OpenedFile> file = workspace.OpenPlainToRead(path);
      file && ::fstat(file->fd.get(), &st) == 0 && S_ISREG(st.st_mode)) {
    // The common case, a plain file replaced, in three calls: open, fstat,
    // read. No symlink on its way: its display path is its real path.
    Target t{file->display, file->display,
             FileInfo{true, static_cast<unsigned>(st.st_mode & 07777), static_cast<uint64_t>(st.st_size)}, Value()};
    if (wants_basis && t.existing->size < kDiffBasisMaxBytes) t.before = TextForDiff(ReadAll(file->fd.get(), t.existing->size));
    return t;
  }
  // Anything else (a new file, a symlink, not a file) the way that names what is wrong.
  ResolvedPath resolved = workspace.Resolve(path, "write");
  Target t{std::move(resolved.display), std::move(resolved.real), std::nullopt, Value()};
  t.existing = Probe(t.real);
  if (t.existing && !t.existing->regular) {
    throw FsError("cannot write \"" + t.display + "\": not a regular file", "FS_NOT_REGULAR_FILE");
  }
  if (t.existing && wants_basis && t.existing->size < kDiffBasisMaxBytes) t.before = TextForDiff(ReadBytes(t.real));
  return t;
}

Value WriteBody(const Workspace& workspace, runtime::ToolRunContext& run) {
  const Value& args = run.arguments();
  const std::string& path = args.Find("file_path")->as_string();
  const std::string& content = args.Find("content")->as_string();
  if (json::IsJsBlank(path)) throw std::runtime_error("file_path must be a non-empty string");
  CheckEscalationArgs(args);
  Target target = Locate(workspace, path, content.size());
  WriteFileAtomic(target.real, content, target.existing ? std::optional(target.existing->mode) : std::nullopt,
                  target.display, "write");
  return Value::MakeObject({{"path", target.display},
                            {"operation", target.existing ? "update" : "create"},
                            {"before", std::move(target.before)},
                            {"after", NormalizeLineEndings(content)}});
}

// Runs WriteBody; the time of a write of content that may be brief feeds
// `brief`'s average (a large write's time tells of its size, not the disk).
Value TimedWriteBody(const Workspace& workspace, runtime::ToolRunContext& run, BriefWrites& brief) {
  if (run.arguments().Find("content")->as_string().size() > BriefWrites::kMaxBytes) return WriteBody(workspace, run);
  const auto start = std::chrono::steady_clock::now();
  Value written = WriteBody(workspace, run);
  brief.Took(std::chrono::steady_clock::now() - start);
  return written;
}

}  // namespace

bool BriefWrites::Admit(size_t bytes) const { return bytes <= kMaxBytes && average() <= kBudget; }

void BriefWrites::Took(Duration took) {
  Duration::rep average = average_.load(std::memory_order_relaxed);
  while (!average_.compare_exchange_weak(average, average + (took.count() - average) / 8,
                                         std::memory_order_relaxed)) {
  }
}

Result<runtime::ToolDefinitionPtr> WriteTool(const Workspace& workspace) {
  auto brief = std::make_shared<BriefWrites>();
  runtime::ToolDefinition spec{
      .name = "write",
      .description = "Create or fully replace a UTF-8 text file.",
      .output = {.schema = Object(false, {{"path", String().Required()},
                                          {"operation", String().Enum({"create", "update"}).Required()},
                                          {"before", OneOf({String(), Null()}).Required()},
                                          {"after", String().Required()}}),
                 .render =
                     [](const Value&, const Value& v) {
                       return runtime::TextContent("<path>" + v.Find("path")->as_string() +
                                                   "</path>\n<type>file</type>\n<content>\n" +
                                                   (v.Find("operation")->as_string() == "create" ? "Created" : "Updated") +
                                                   " file\n</content>");
                     },
                 .presentation_meta =
                     [](const Value& args, const Value& v) {
                       const Value& before = *v.Find("before");
                       return Value::MakeObject(
                           {{"diffs", before.is_null() ? Value(Value::Array{})
                                                       : ComputeHunkDiffs(args.Find("file_path")->as_string(),
                                                                          before.as_string(), v.Find("after")->as_string())}});
                     }},
      .execute = [workspace, brief](runtime::ToolRunContext& run) { return TimedWriteBody(workspace, run, *brief); },
      .execute_brief = [workspace, brief](runtime::ToolRunContext& run) -> std::optional<Value> {
        if (!brief->Admit(run.arguments().Find("content")->as_string().size())) return std::nullopt;
        return TimedWriteBody(workspace, run, *brief);
      },
  };
  return DefineReferenceTool(std::move(spec));
}

}  // namespace retrace::tools
