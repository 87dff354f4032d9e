#include "tools/search_tools.h"

#include <map>
#include <regex>

#include "engine/json/parser.h"
#include "engine/json/writer.h"
#include "engine/runtime/tool_error.h"
#include "engine/schema/schema_spec.h"
#include "engine/json/js_text.h"
#include "tools/spill_store.h"
#include "tools/subprocess.h"
#include "tools/reference_tool.h"

namespace retrace::tools {
namespace {

using json::Value;
using namespace schema;

// dsh-tool-fs-search's defaults.
constexpr size_t kGlobMaxResults = 100;
constexpr size_t kGrepMaxMatches = 250;
constexpr size_t kGrepMaxLineBytes = 2000;
constexpr size_t kSearchMetaMaxBytes = 65536;
constexpr size_t kRawOutputMaxBytes = 20000000;
constexpr size_t kStderrMaxBytes = 65536;
constexpr double kSearchTimeoutMs = 30000;
constexpr bool kSampleOverCapGlobResults = true;  // dsh requires the host to choose; we spread across the tree

const char* const kVcsDirs[] = {".git", ".svn", ".hg", ".bzr", ".jj", ".sl"};

runtime::ToolError SearchError(std::string message, std::string code) {
  return runtime::ToolError(std::move(message), "SearchError", std::move(code));
}

runtime::ToolError Aborted(const std::string& tool) {
  return SearchError(tool + " was aborted before completion (tool timeout or caller cancellation)", "SEARCH_ABORTED");
}

struct RipgrepRun {
  std::string stdout_text;
  bool no_matches = false;
};

// dsh's runRipgrep: `rg --no-config …argv` in the workspace, both streams
// collected, every failure classified into the SearchError vocabulary.
RipgrepRun RunRipgrep(const ToolHost& host, const runtime::ToolRunContext& run, const std::string& tool,
                      std::vector<std::string> argv) {
  const runtime::Signal signal = run.signal();
  if (signal.aborted()) throw Aborted(tool);
  SpawnSpec spec;
  spec.argv = {host.ripgrep, "--no-config"};
  spec.argv.insert(spec.argv.end(), argv.begin(), argv.end());
  spec.cwd = host.workspace.Cwd();  // refused when there is no workspace yet
  spec.base_env = host.environment;
  spec.stdout_max_bytes = kRawOutputMaxBytes;
  spec.stderr_max_bytes = kStderrMaxBytes;
  Result<std::shared_ptr<Subprocess>> spawned = Subprocess::Spawn(std::move(spec));
  if (!spawned.ok()) {
    throw SearchError(tool + " could not start its search command (ripgrep launch failed)", "SEARCH_FAILED");
  }
  std::shared_ptr<Subprocess> proc = *spawned;
  runtime::Subscription on_abort = signal.OnAbort([proc](const std::string&) { proc->Terminate(); });
  const ProcessOutcome outcome = proc->Wait();
  on_abort.Reset();
  if (signal.aborted()) throw Aborted(tool);
  if (outcome.signal || !outcome.exit_code) {
    throw SearchError(tool + " search command was killed by signal " + outcome.signal.value_or("(unknown)"),
                      "SEARCH_FAILED");
  }
  if (*outcome.exit_code != 0 && *outcome.exit_code != 1) {
    const CollectedOutput err = proc->FinalStderr();
    std::string stderr_text = json::DecodeUtf8Lossy(err.text);
    const size_t first = stderr_text.find_first_not_of(" \t\r\n"), last = stderr_text.find_last_not_of(" \t\r\n");
    stderr_text = first == std::string::npos ? "" : stderr_text.substr(first, last - first + 1);
    if (!stderr_text.empty() && err.truncated) stderr_text += " [stderr truncated]";
    static const std::regex invalid("regex parse error|error parsing glob", std::regex::icase);
    if (std::regex_search(stderr_text, invalid)) {
      throw SearchError(tool + " pattern rejected by ripgrep: " + stderr_text, "SEARCH_INVALID_PATTERN");
    }
    throw SearchError(tool + " search failed (exit " + std::to_string(*outcome.exit_code) + ")" +
                          (stderr_text.empty() ? "" : ": " + stderr_text),
                      "SEARCH_FAILED");
  }
  const CollectedOutput out = proc->FinalStdout();
  if (out.truncated) {
    throw SearchError(tool + " produced more raw output than the subprocess seam retained within the " +
                          std::to_string(kRawOutputMaxBytes) +
                          "-byte cap; narrow pattern, path, or include and retry",
                      "SEARCH_RAW_OUTPUT_OVERFLOW");
  }
  return {json::DecodeUtf8Lossy(out.text), *outcome.exit_code == 1};
}

// dsh's toWorkdirRelative: an absolute path inside the workspace becomes
// relative to it ("." for the workspace itself); anything else is unchanged.
std::string DisplayPath(const std::string& path, const std::string& workdir) {
  if (path.empty() || path[0] != '/') return path;
  const std::string resolved = ResolveLexically("/", path);
  if (resolved == workdir) return ".";
  const std::string prefix = workdir == "/" ? "/" : workdir + "/";
  return resolved.rfind(prefix, 0) == 0 ? resolved.substr(prefix.size()) : path;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    if (nl > start) lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

// The over-cap spill, as a value field the render reads: {locator, retrievalHint}, or null when unsaved.
Value SpillField(const ToolHost& host, const runtime::ToolRunContext& run, const std::string& name,
                 const std::string& content) {
  std::optional<std::string> session = SessionId(run);
  std::optional<SpillRef> ref = session ? SaveSpill(host.spill_dir, *session, name, content) : std::nullopt;
  if (!ref) return Value();
  return Value::MakeObject({{"locator", ref->locator}, {"retrievalHint", ref->retrieval_hint}});
}

std::string Recovery(const Value* spill, const std::string& stored_what, const std::string& narrow) {
  if (spill && spill->is_object()) {
    return stored_what + " stored at: " + spill->Find("locator")->as_string() + ". " +
           spill->Find("retrievalHint")->as_string();
  }
  return "The complete result could not be saved; " + narrow + " to see more.";
}

// dsh's capMetaBytes: drop trailing items until the serialized meta fits.
Value CapMetaBytes(Value meta, const char* list_key) {
  if (json::Serialize(meta).size() <= kSearchMetaMaxBytes) return meta;
  meta.Set("truncated", true);
  Value::Array& items = meta.Find(list_key)->as_array();
  while (items.size() > 1 && json::Serialize(meta).size() > kSearchMetaMaxBytes) items.pop_back();
  return meta;
}

void CheckPath(const Value& args) {
  if (const Value* p = args.Find("path"); p && json::IsJsBlank(p->as_string())) {
    throw std::runtime_error("path must be a non-empty string when given");
  }
}

// ---------------------------------------------------------------- glob

std::string GroupKey(const std::string& path, const std::string& root) {
  std::string rel = path;
  if (root == ".") {
    if (rel.rfind("./", 0) == 0) rel = rel.substr(2);
  } else {
    std::string trimmed = root;
    while (!trimmed.empty() && trimmed.back() == '/') trimmed.pop_back();
    if (trimmed.empty()) {
      rel = rel.substr(std::min(rel.find_first_not_of('/'), rel.size()));
    } else if (rel == trimmed) {
      rel = "";
    } else if (rel.rfind(trimmed + "/", 0) == 0) {
      rel = rel.substr(trimmed.size() + 1);
    }
  }
  rel = rel.substr(std::min(rel.find_first_not_of('/'), rel.size()));
  return rel.substr(0, rel.find('/'));
}

struct GlobSample {
  std::vector<std::string> items;
  size_t shown = 0, groups = 0;
};

// dsh's sampleAcrossTopLevel: round-robin over top-level groups in first-seen
// order, then output grouped in the order groups were first taken.
GlobSample SampleAcrossTopLevel(const std::vector<std::string>& paths, size_t max_items, const std::string& root) {
  std::vector<std::string> keys;
  std::map<std::string, std::vector<const std::string*>> groups;
  for (const std::string& p : paths) {
    std::string key = GroupKey(p, root);
    auto [it, fresh] = groups.try_emplace(key);
    if (fresh) keys.push_back(key);
    it->second.push_back(&p);
  }
  std::map<std::string, size_t> taken;
  std::vector<std::string> take_order;
  size_t count = 0;
  for (size_t round = 0; count < max_items; ++round) {
    bool any = false;
    for (const std::string& key : keys) {
      if (count >= max_items) break;
      if (groups[key].size() <= round) continue;
      any = true;
      if (taken[key]++ == 0) take_order.push_back(key);
      ++count;
    }
    if (!any) break;
  }
  GlobSample sample;
  for (const std::string& key : take_order) {
    for (size_t i = 0; i < taken[key]; ++i) sample.items.push_back(*groups[key][i]);
  }
  sample.shown = take_order.size();
  sample.groups = keys.size();
  return sample;
}

std::vector<std::string> StringList(const Value& array) {
  std::vector<std::string> out;
  for (const Value& v : array.as_array()) out.push_back(v.as_string());
  return out;
}

std::string Join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

std::string RenderGlob(const Value& v) {
  const std::vector<std::string> paths = StringList(*v.Find("paths"));
  if (paths.empty()) return "No files found";
  if (paths.size() <= kGlobMaxResults) return Join(paths, "\n");
  const std::string recovery = Recovery(v.Find("spill"), "Full sorted result", "narrow pattern or path");
  const std::string total = std::to_string(paths.size());
  if (!kSampleOverCapGlobResults) {
    std::vector<std::string> head(paths.begin(), paths.begin() + kGlobMaxResults);
    return Join(head, "\n") + "\n\n(Showing " + std::to_string(head.size()) + " of " + total + " paths. " + recovery + ")";
  }
  GlobSample sample = SampleAcrossTopLevel(paths, kGlobMaxResults, v.Find("root")->as_string());
  std::string basis = ".";
  if (sample.groups != paths.size()) {
    basis = ", sampled across " + std::to_string(sample.shown) + " of the " + std::to_string(sample.groups) +
            " top-level entries this pattern matched instead of taken in modification-time order.";
    if (sample.shown < sample.groups) basis += " Narrow path to inspect a specific subtree.";
  }
  return Join(sample.items, "\n") + "\n\n(Showing " + std::to_string(sample.items.size()) + " of " + total + " paths" +
         basis + " " + recovery + ")";
}

Value GlobMeta(const Value& v) {
  const std::vector<std::string> paths = StringList(*v.Find("paths"));
  std::vector<std::string> page = paths;
  if (paths.size() > kGlobMaxResults) {
    page = kSampleOverCapGlobResults ? SampleAcrossTopLevel(paths, kGlobMaxResults, v.Find("root")->as_string()).items
                                     : std::vector<std::string>(paths.begin(), paths.begin() + kGlobMaxResults);
  }
  Value::Array items(page.begin(), page.end());
  return CapMetaBytes(Value::MakeObject({{"shape", "paths"},
                                         {"paths", std::move(items)},
                                         {"truncated", paths.size() > kGlobMaxResults},
                                         {"total", static_cast<int64_t>(paths.size())}}),
                      "paths");
}

Value RunGlob(const ToolHost& host, runtime::ToolRunContext& run) {
  const Value& args = run.arguments();
  const std::string& pattern = args.Find("pattern")->as_string();
  if (json::IsJsBlank(pattern)) throw std::runtime_error("pattern must be a non-empty string");
  CheckPath(args);
  std::vector<std::string> argv = {"--files", "--glob=" + pattern, "--sort=modified", "--no-ignore", "--hidden"};
  for (const char* dir : kVcsDirs) {
    argv.push_back(std::string("--glob=!**/") + dir);
    argv.push_back(std::string("--glob=!**/") + dir + "/**");
  }
  const Value* path = args.Find("path");
  if (path) argv.insert(argv.end(), {"--", path->as_string()});
  RipgrepRun rg = RunRipgrep(host, run, "glob", std::move(argv));
  const std::string workdir = host.workspace.root();
  Value root = path ? DisplayPath(path->as_string(), workdir) : ".";
  Value::Array paths;
  if (!rg.no_matches) {
    for (const std::string& line : Lines(rg.stdout_text)) paths.push_back(DisplayPath(line, workdir));
  }
  Value value = Value::MakeObject({{"root", std::move(root)}, {"paths", Value()}});
  if (paths.size() > kGlobMaxResults) {
    std::string all;
    for (size_t i = 0; i < paths.size(); ++i) all += (i ? "\n" : "") + paths[i].as_string();
    value.Set("spill", SpillField(host, run, "glob-results.txt", all));
  }
  value.Set("paths", std::move(paths));
  return value;
}

// ---------------------------------------------------------------- grep

struct GrepMatch {
  std::string path;
  double line_number;
  std::string line;
};

runtime::ToolError Malformed(const std::string& detail) {
  return SearchError("grep received malformed ripgrep --json output (" + detail + ")", "SEARCH_FAILED");
}

std::optional<GrepMatch> ParseRecord(const std::string& line) {
  Result<Value> parsed = json::Parse(line);
  if (!parsed.ok()) throw Malformed("a line is not JSON");
  const Value& record = *parsed;
  if (!record.is_object()) throw Malformed("a record is not an object");
  const Value* type = record.Find("type");
  if (!type || !type->is_string() || type->as_string() != "match") return std::nullopt;
  const Value* data = record.Find("data");
  if (!data || !data->is_object()) throw Malformed("a match record has no data");
  const Value* path = data->Find("path");
  const Value* path_text = path && path->is_object() ? path->Find("text") : nullptr;
  if (!path_text || !path_text->is_string()) throw Malformed("a match record has no path text");
  const Value* number = data->Find("line_number");
  if (!number || !number->is_number()) throw Malformed("a match record has no line number");
  const Value* lines = data->Find("lines");
  if (!lines || !lines->is_object()) throw Malformed("a match record has no line content");
  if (const Value* text = lines->Find("text"); text && text->is_string()) {
    std::string l = text->as_string();
    if (!l.empty() && l.back() == '\n') l.pop_back();
    if (!l.empty() && l.back() == '\r' && text->as_string().back() == '\n') l.pop_back();
    return GrepMatch{path_text->as_string(), number->as_number(), std::move(l)};
  }
  if (const Value* bytes = lines->Find("bytes"); bytes && bytes->is_string()) {
    return GrepMatch{path_text->as_string(), number->as_number(), "(line is not valid UTF-8)"};
  }
  throw Malformed("a match record has neither line text nor bytes");
}

// The first `max` bytes without splitting a UTF-8 sequence, marked when cut.
std::string PreviewLine(const std::string& line) {
  if (line.size() <= kGrepMaxLineBytes) return line;
  size_t cut = kGrepMaxLineBytes;
  while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80) --cut;
  return line.substr(0, cut) + " (line truncated)";
}

struct Retained {
  std::vector<GrepMatch> items;  // previewed, at most the cap
  size_t seen = 0;
  bool truncated() const { return seen > items.size(); }
};

Retained RetainMatches(const Value& matches) {
  Retained r;
  r.seen = matches.as_array().size();
  for (const Value& m : matches.as_array()) {
    if (r.items.size() == kGrepMaxMatches) break;
    r.items.push_back({m.Find("path")->as_string(), m.Find("lineNumber")->as_number(),
                       PreviewLine(m.Find("line")->as_string())});
  }
  return r;
}

// Matches grouped by file, files in first-seen order.
std::vector<std::pair<std::string, std::vector<const GrepMatch*>>> ByFile(const std::vector<GrepMatch>& matches) {
  std::vector<std::pair<std::string, std::vector<const GrepMatch*>>> files;
  std::map<std::string, size_t> index;
  for (const GrepMatch& m : matches) {
    auto [it, fresh] = index.try_emplace(m.path, files.size());
    if (fresh) files.push_back({m.path, {}});
    files[it->second].second.push_back(&m);
  }
  return files;
}

std::string FormatMatches(const std::vector<GrepMatch>& matches) {
  std::string out;
  for (const auto& [path, group] : ByFile(matches)) {
    if (!out.empty()) out += "\n\n";
    out += path;
    for (const GrepMatch* m : group) out += "\nLine " + json::FormatNumber(m->line_number) + ": " + m->line;
  }
  return out;
}

std::string MatchCount(size_t n) { return std::to_string(n) + (n == 1 ? " match" : " matches"); }

std::string RenderGrep(const Value& v) {
  const Retained r = RetainMatches(*v.Find("matches"));
  if (r.seen == 0) return "No matches found";
  if (!r.truncated()) return "Found " + MatchCount(r.seen) + "\n\n" + FormatMatches(r.items);
  return "Found " + std::to_string(r.items.size()) + " of " + std::to_string(r.seen) + " matches\n\n" +
         FormatMatches(r.items) + "\n\n(" +
         Recovery(v.Find("spill"), "Full grep result", "narrow pattern, path, or include") + ")";
}

Value GrepMeta(const Value& v) {
  const Retained r = RetainMatches(*v.Find("matches"));
  Value::Array files;
  for (const auto& [path, group] : ByFile(r.items)) {
    Value::Array matches;
    for (const GrepMatch* m : group) {
      matches.push_back(Value::MakeObject({{"lineNumber", m->line_number}, {"line", m->line}}));
    }
    files.push_back(Value::MakeObject({{"path", path}, {"matches", std::move(matches)}}));
  }
  return CapMetaBytes(Value::MakeObject({{"shape", "matches"},
                                         {"files", std::move(files)},
                                         {"truncated", r.truncated()},
                                         {"total", static_cast<int64_t>(r.seen)}}),
                      "files");
}

void CheckInclude(const std::string& include) {
  if (json::IsJsBlank(include)) throw std::runtime_error("include must be a non-empty glob when given");
  if (include[0] == '!') {
    throw std::runtime_error("include must be a positive glob filter; negated patterns (\"!…\") are not supported");
  }
  int depth = 0;
  for (char c : include) {
    if (c == '{') {
      ++depth;
    } else if (c == '}') {
      depth = std::max(0, depth - 1);
    } else if (c == ',' && depth == 0) {
      throw std::runtime_error("include must be one glob, not a comma-separated list (use {a,b} alternation instead)");
    }
  }
}

Value RunGrep(const ToolHost& host, runtime::ToolRunContext& run) {
  const Value& args = run.arguments();
  const std::string& pattern = args.Find("pattern")->as_string();
  if (pattern.empty()) throw std::runtime_error("pattern must be a non-empty string");
  CheckPath(args);
  const Value* include = args.Find("include");
  if (include) CheckInclude(include->as_string());
  std::vector<std::string> argv = {"--json", "--regexp=" + pattern};
  if (include) argv.push_back("--glob=" + include->as_string());
  const Value* path = args.Find("path");
  if (path) argv.insert(argv.end(), {"--", path->as_string()});
  RipgrepRun rg = RunRipgrep(host, run, "grep", std::move(argv));
  std::vector<GrepMatch> all;
  if (!rg.no_matches) {
    for (const std::string& line : Lines(rg.stdout_text)) {
      if (std::optional<GrepMatch> m = ParseRecord(line)) {
        m->path = DisplayPath(m->path, host.workspace.root());
        all.push_back(std::move(*m));
      }
    }
  }
  Value::Array matches;
  for (const GrepMatch& m : all) {
    matches.push_back(Value::MakeObject({{"path", m.path}, {"lineNumber", m.line_number}, {"line", m.line}}));
  }
  Value value = Value::MakeObject({{"matches", Value()}});
  if (all.size() > kGrepMaxMatches) {
    std::vector<GrepMatch> previewed = all;
    for (GrepMatch& m : previewed) m.line = PreviewLine(m.line);
    value.Set("spill", SpillField(host, run, "grep-results.txt",
                                  "Found " + MatchCount(all.size()) + "\n\n" + FormatMatches(previewed)));
  }
  value.Set("matches", std::move(matches));
  return value;
}

Spec SpillSchema() {
  return OneOf({Object(false, {{"locator", String().Required()}, {"retrievalHint", String().Required()}}), Null()});
}

}  // namespace

Result<runtime::ToolDefinitionPtr> GlobTool(const ToolHost& host) {
  runtime::ToolDefinition spec{
      .name = "glob",
      .description =
          "Find files whose paths match a glob pattern. Returns matching file paths — never directories — including "
          "hidden and ignored files (VCS metadata directories are excluded). Up to 100 paths come back in "
          "modification-time order; a larger result instead returns 100 paths sampled across top-level entries, says "
          "so, and reports where the complete sorted list was saved. This tool does not enumerate directory entries.",
      // `spill` is ours: where the over-cap list went (dsh swaps the content in a post-execute step).
      .output = {.schema = Object(false, {{"root", String().Required()},
                                          {"paths", Array(String()).Required()},
                                          {"spill", SpillSchema()}}),
                 .render = [](const Value&, const Value& v) { return runtime::TextContent(RenderGlob(v)); },
                 .presentation_meta = [](const Value&, const Value& v) { return GlobMeta(v); }},
      .execute = [host](runtime::ToolRunContext& run) { return RunGlob(host, run); },
      .timeout_ms = kSearchTimeoutMs,
  };
  return DefineReferenceTool(std::move(spec));
}

Result<runtime::ToolDefinitionPtr> GrepTool(const ToolHost& host) {
  Spec match = Object(false, {{"path", String().Required()},
                              {"lineNumber", Integer().Required()},
                              {"line", String().Required()}});
  runtime::ToolDefinition spec{
      .name = "grep",
      .description =
          "Search file contents with a ripgrep regular expression. Returns matching lines with line numbers, grouped "
          "by file. Returns the first 250 matches inline; a capped result reports where the complete match list was "
          "saved. Use read on a matched file for surrounding context.",
      .output = {.schema = Object(false, {{"matches", Array(match).Required()}, {"spill", SpillSchema()}}),
                 .render = [](const Value&, const Value& v) { return runtime::TextContent(RenderGrep(v)); },
                 .presentation_meta = [](const Value&, const Value& v) { return GrepMeta(v); }},
      .execute = [host](runtime::ToolRunContext& run) { return RunGrep(host, run); },
      .timeout_ms = kSearchTimeoutMs,
  };
  return DefineReferenceTool(std::move(spec));
}

}  // namespace retrace::tools
