#include "tools/write_tool.h"

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

// readTextForDiff: the current text, LF-normalized, or null when it is too
// big, binary (a NUL byte) or not UTF-8.
Value DiffBasis(const std::string& real_path) {
  std::optional<FileInfo> info = Probe(real_path);
  if (!info || !info->regular || info->size >= kDiffBasisMaxBytes) return Value();
  std::optional<std::string> bytes = ReadBytes(real_path);
  if (!bytes || bytes->find('\0') != std::string::npos) return Value();
  std::optional<std::string> text = json::DecodeUtf8Strict(std::move(*bytes));
  return text ? Value(NormalizeLineEndings(*text)) : Value();
}

Value WriteBody(const Workspace& workspace, runtime::ToolRunContext& run) {
  const Value& args = run.arguments();
  const std::string& path = args.Find("file_path")->as_string();
  const std::string& content = args.Find("content")->as_string();
  if (json::IsJsBlank(path)) throw std::runtime_error("file_path must be a non-empty string");
  CheckEscalationArgs(args);
  const ResolvedPath target = workspace.Resolve(path, "write");
  std::optional<FileInfo> existing = Probe(target.real);
  if (existing && !existing->regular) {
    throw FsError("cannot write \"" + target.display + "\": not a regular file", "FS_NOT_REGULAR_FILE");
  }
  Value before = existing && content.size() < kDiffBasisMaxBytes ? DiffBasis(target.real) : Value();
  WriteFileAtomic(target.real, content, existing ? std::optional(existing->mode) : std::nullopt, target.display,
                  "write");
  return Value::MakeObject({{"path", target.display},
                            {"operation", existing ? "update" : "create"},
                            {"before", std::move(before)},
                            {"after", NormalizeLineEndings(content)}});
}

}  // namespace

bool BriefWrites::Admit(size_t bytes, Clock::time_point now) const {
  return bytes <= kMaxBytes && now.time_since_epoch().count() >= pool_until_.load(std::memory_order_relaxed);
}

void BriefWrites::Took(Clock::time_point start, Clock::time_point end) {
  if (end - start > kBudget) pool_until_.store((end + kPause).time_since_epoch().count(), std::memory_order_relaxed);
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
      .execute = [workspace](runtime::ToolRunContext& run) { return WriteBody(workspace, run); },
      .execute_brief = [workspace, brief](runtime::ToolRunContext& run) -> std::optional<Value> {
        const BriefWrites::Clock::time_point start = BriefWrites::Clock::now();
        if (!brief->Admit(run.arguments().Find("content")->as_string().size(), start)) return std::nullopt;
        Value written = WriteBody(workspace, run);
        brief->Took(start, BriefWrites::Clock::now());
        return written;
      },
  };
  return DefineReferenceTool(std::move(spec));
}

}  // namespace retrace::tools
