#include "presenters/reference_tools.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <map>

#include "engine/json/kept_reader.h"
#include "engine/json/lenient.h"
#include "engine/json/writer.h"
#include "engine/schema/schema_compiler.h"
#include "engine/schema/schema_spec.h"
#include "presenters/views.h"

namespace retrace::presenters {
namespace {

using json::Value;
using namespace schema;

// --- argument and meta access (arguments already passed soft validation) ---

std::string Str(const Value& obj, std::string_view key) { return json::Str(json::Get(obj, key)); }
bool IsStr(const Value* v) { return v && v->is_string(); }
bool IsNum(const Value* v) { return v && v->is_number(); }
bool IsBool(const Value* v) { return v && v->is_bool(); }
bool IsIntNumber(double d) { return std::isfinite(d) && std::trunc(d) == d; }
bool IsInt(const Value* v) { return IsNum(v) && IsIntNumber(v->as_number()); }
std::string Num(double d) { return json::FormatNumber(d); }

// The single text block of a content, or null.
const std::string* SingleText(const Content& content) {
  if (content.size() != 1) return nullptr;
  const Value* type = content[0].Find("type");
  const Value* text = content[0].Find("text");
  if (!IsStr(type) || type->as_string() != "text" || !IsStr(text)) return nullptr;
  return &text->as_string();
}

Value Texts(std::string text) {
  Value::Array blocks;
  blocks.push_back(TextBlock(std::move(text)));
  return Value(std::move(blocks));
}

Value One(Value item) {
  Value::Array a;
  a.push_back(std::move(item));
  return Value(std::move(a));
}

// [{path:string, oldText:string|null, newText:string}], non-empty.
bool IsDiffList(const Value* v) {
  if (!v || !v->is_array() || v->as_array().empty()) return false;
  for (const Value& d : v->as_array()) {
    const Value* old_text = d.Find("oldText");
    if (!d.is_object() || !IsStr(d.Find("path")) || !old_text || !(old_text->is_string() || old_text->is_null()) ||
        !IsStr(d.Find("newText"))) {
      return false;
    }
  }
  return true;
}

// --- read ---

Value ReadParameters() {
  return Parameters({
      {"file_path", String().Required().Description("Path to read, resolved by the filesystem backend.")},
      {"offset", Number().Description("1-based first line to return. Defaults to 1.")},
      {"limit", Number().Description("Maximum number of lines to return. Defaults to 2000.")},
  });
}

std::optional<Value> ReadCall(const Value& args) {
  const std::string path = Str(args, "file_path");
  const Value* offset = json::Get(args, "offset");
  const Value* limit = json::Get(args, "limit");
  std::string window;
  const double o = offset ? offset->as_number() : 1;
  if (limit && limit->as_number() > 0) {
    window = " (" + Num(o) + " - " + Num(o + limit->as_number() - 1) + ")";
  } else if (offset) {
    window = " (from line " + Num(offset->as_number()) + ")";
  }
  return Card("generic")
      .Set("title", "Read " + path + window)
      .Set("kind", "read")
      .Set("locations", One(Location(path, offset ? *offset : Value(1))))
      .Build();
}

// One line of a read card's meta, checked in order: an object whose
// "number" (null: absent or not a number) is an integer above the previous
// line's and at most the total, and whose "text" is a string.
bool LineValid(bool is_object, const double* number, bool text_is_string, double total, double& previous) {
  if (!is_object || !number || !IsIntNumber(*number) || *number < 1 || !text_is_string) return false;
  if (*number <= previous || *number > total) return false;
  previous = *number;
  return true;
}

bool LinesValid(const Value& lines, double offset, double total) {
  double previous = offset - 1;
  if (const std::string_view kept = lines.kept_text(); !kept.empty()) {
    // Read in place: the lines are written again as they are, so their
    // items need not be built (json::Value::UnbuiltArray).
    return json::kept::ForEachItem(kept, [&](std::string_view line, std::span<const json::kept::Member> members) {
      using json::kept::KindOf;
      const std::string_view number = json::kept::Find(members, "number"), text = json::kept::Find(members, "text");
      const bool is_number = KindOf(number) == Value::Kind::kNumber;
      const double n = is_number ? json::kept::NumberOf(number) : 0;
      return LineValid(KindOf(line) == Value::Kind::kObject, is_number ? &n : nullptr,
                       KindOf(text) == Value::Kind::kString, total, previous);
    });
  }
  for (const Value& line : lines.as_array()) {
    const Value* number = line.Find("number");
    const double n = IsNum(number) ? number->as_number() : 0;
    if (!LineValid(line.is_object(), IsNum(number) ? &n : nullptr, IsStr(line.Find("text")), total, previous)) {
      return false;
    }
  }
  return true;
}

// dsh's readMetaFromMeta: the read card's meta, checked.
bool ReadMetaValid(const Value* meta) {
  if (!meta || !meta->is_object()) return false;
  const Value* offset = meta->Find("offset");
  const Value* total = meta->Find("totalLines");
  const Value* lines = meta->Find("lines");
  const Value* lang = meta->Find("lang");
  if (!IsStr(meta->Find("path")) || !IsInt(offset) || offset->as_number() < 1 || !IsInt(total) ||
      total->as_number() < 0 || !lines || !lines->is_array() || (lang && !lang->is_string())) {
    return false;
  }
  return LinesValid(*lines, offset->as_number(), total->as_number());
}

// The body of a read envelope:
//   ^<path>[^\n]*</path>\n<type>file</type>\n<content>\n([\s\S]*)\n</content>$
std::optional<std::string> ReadEnvelopeBody(const std::string& text) {
  const size_t first_nl = text.find('\n');
  if (first_nl == std::string::npos || text.rfind("<path>", 0) != 0) return std::nullopt;
  const std::string_view first(text.data(), first_nl);
  if (first.size() < 13 || first.substr(first.size() - 7) != "</path>") return std::nullopt;
  constexpr std::string_view kHead = "<type>file</type>\n<content>\n";
  constexpr std::string_view kTail = "\n</content>";
  const std::string_view rest = std::string_view(text).substr(first_nl + 1);
  if (rest.substr(0, kHead.size()) != kHead || rest.size() < kHead.size() + kTail.size() ||
      rest.substr(rest.size() - kTail.size()) != kTail) {
    return std::nullopt;
  }
  return std::string(rest.substr(kHead.size(), rest.size() - kHead.size() - kTail.size()));
}

std::optional<Value> ReadResult(const Value&, const DurableResult& r) {
  if (r.is_error || !ReadMetaValid(r.meta)) return std::nullopt;
  const std::string* text = SingleText(r.content);
  if (!text) return std::nullopt;
  std::optional<std::string> body = ReadEnvelopeBody(*text);
  if (!body) return std::nullopt;
  Card card("read");
  card.Set("path", *r.meta->Find("path"))
      .Set("offset", *r.meta->Find("offset"))
      .Set("lines", *r.meta->Find("lines"))
      .Set("totalLines", *r.meta->Find("totalLines"));
  if (const Value* lang = r.meta->Find("lang")) card.Set("lang", *lang);
  return card.Set("content", Texts(std::move(*body))).Build();
}

// --- write / edit ---

Value WriteParameters() {
  return Parameters({
      {"file_path", String().Required().Description("Path to write, resolved by the filesystem backend.")},
      {"content", String().Required().Description("Full UTF-8 text content to write.")},
  });
}

std::optional<Value> WriteCall(const Value& args) {
  const std::string path = Str(args, "file_path");
  return Card("diff")
      .Set("title", "Write " + path)
      .Set("diffs", One(FileDiff(path, std::nullopt, Str(args, "content"))))
      .Set("locations", One(Location(path)))
      .Build();
}

std::optional<Value> WriteResult(const Value& args, const DurableResult& r) {
  if (r.is_error) return std::nullopt;
  const std::string path = Str(args, "file_path");
  const Value* diffs = r.meta && r.meta->is_object() ? r.meta->Find("diffs") : nullptr;
  return Card("diff")
      .Set("title", "Write " + path)
      .Set("diffs", IsDiffList(diffs) ? *diffs : One(FileDiff(path, std::nullopt, Str(args, "content"))))
      .Build();
}

Value EditParameters() {
  return Parameters({
      {"file_path", String().Required().Description("Path to edit, resolved by the filesystem backend.")},
      {"old_string", String().Required().Description("Literal text to replace. Must match exactly.")},
      {"new_string",
       String().Required().Description("Literal replacement text. Use an empty string to delete the match.")},
      {"replace_all",
       Boolean().Description(
           "Replace all matches. Defaults to false; when false, old_string must appear exactly once.")},
  });
}

std::optional<Value> EditCall(const Value& args) {
  const std::string path = Str(args, "file_path");
  const std::string old_text = Str(args, "old_string");
  return Card("diff")
      .Set("title", "Edit " + path)
      .Set("diffs", One(FileDiff(path, old_text.empty() ? std::nullopt : std::optional(old_text),
                                 Str(args, "new_string"))))
      .Set("locations", One(Location(path)))
      .Build();
}

std::optional<Value> EditResult(const Value& args, const DurableResult& r) {
  const Value* diffs = r.meta && r.meta->is_object() ? r.meta->Find("diffs") : nullptr;
  if (r.is_error || !IsDiffList(diffs)) return std::nullopt;
  return Card("diff").Set("title", "Edit " + Str(args, "file_path")).Set("diffs", *diffs).Build();
}

// --- glob / grep ---

Value GlobParameters() {
  return Parameters({
      {"pattern",
       String().Required().Description(
           "Glob pattern to match file paths against (e.g. \"**/*.ts\", \"src/**/*.test.js\"). A pattern with no "
           "\"/\" matches the basename at any depth, so \"*\" and \"*.ts\" both search the whole tree; include a "
           "separator to anchor the depth.")},
      {"path", String().Description(
                   "Directory to search in. Defaults to the session workspace; a relative path resolves against it.")},
  });
}

std::optional<Value> GlobCall(const Value& args) {
  const std::string pattern = Str(args, "pattern");
  const Value* path = json::Get(args, "path");
  return Card("generic")
      .Set("title", "Glob " + pattern + (path ? " in " + path->as_string() : ""))
      .Set("kind", "search")
      .Set("rawInput", pattern)
      .Build();
}

// The search meta's common checks: an object with the shape, a boolean
// `truncated` and a numeric `total`.
bool SearchMetaValid(const Value* meta, std::string_view shape) {
  if (!meta || !meta->is_object() || !IsBool(meta->Find("truncated")) || !IsNum(meta->Find("total"))) return false;
  const Value* s = meta->Find("shape");
  return IsStr(s) && s->as_string() == shape;
}

std::optional<Value> GlobResult(const Value&, const DurableResult& r) {
  if (r.is_error || !SearchMetaValid(r.meta, "paths")) return std::nullopt;
  const Value* paths = r.meta->Find("paths");
  if (!paths || !paths->is_array()) return std::nullopt;
  for (const Value& p : paths->as_array()) {
    if (!p.is_string()) return std::nullopt;
  }
  return Card("search")
      .Set("shape", "paths")
      .Set("paths", *paths)
      .Set("truncated", *r.meta->Find("truncated"))
      .Set("total", *r.meta->Find("total"))
      .Build();
}

Value GrepParameters() {
  return Parameters({
      {"pattern", String().Required().Description("Regular expression to search for (ripgrep syntax).")},
      {"path", String().Description("File or directory to search. Defaults to the session workspace; a relative "
                                    "path resolves against it.")},
      {"include", String().Description("One glob filter for which files to search (e.g. \"*.ts\", \"*.{js,jsx}\"). "
                                       "Not a list; negation is not supported.")},
  });
}

std::optional<Value> GrepCall(const Value& args) {
  const std::string pattern = Str(args, "pattern");
  const Value* path = json::Get(args, "path");
  const Value* include = json::Get(args, "include");
  return Card("generic")
      .Set("title", "Grep " + pattern + (path ? " in " + path->as_string() : "") +
                        (include ? " (" + include->as_string() + ")" : ""))
      .Set("kind", "search")
      .Set("rawInput", pattern)
      .Build();
}

std::optional<Value> GrepResult(const Value&, const DurableResult& r) {
  if (r.is_error || !SearchMetaValid(r.meta, "matches")) return std::nullopt;
  const Value* files = r.meta->Find("files");
  if (!files || !files->is_array()) return std::nullopt;
  for (const Value& f : files->as_array()) {
    const Value* matches = f.Find("matches");
    if (!f.is_object() || !IsStr(f.Find("path")) || !matches || !matches->is_array()) return std::nullopt;
    for (const Value& m : matches->as_array()) {
      if (!m.is_object() || !IsNum(m.Find("lineNumber")) || !IsStr(m.Find("line"))) return std::nullopt;
    }
  }
  return Card("search")
      .Set("shape", "matches")
      .Set("files", *files)
      .Set("truncated", *r.meta->Find("truncated"))
      .Set("total", *r.meta->Find("total"))
      .Build();
}

// --- bash ---

Value BashParameters() {
  return Parameters({
      {"command", String().Required().Description("The bash command to execute.")},
      {"description",
       String().Required().Description(
           "Clear, concise description of what this command does in active voice, 5-10 words (shown in the UI). "
           "Examples: \"ls\" \u2192 \"List files in current directory\"; \"git status\" \u2192 \"Show working tree "
           "status\"; \"npm install\" \u2192 \"Install package dependencies\".")},
      {"timeoutMs", Number().Description("Timeout in milliseconds. The executor applies its configured default and "
                                         "cap, and kills the command on expiry.")},
      {"workdir", String().Description("Working directory for this command. Defaults to the session workspace; a "
                                       "relative path is resolved against it.")},
      {"run_in_background",
       Boolean().Description("Run in the background and return a job id immediately (collect with job_output, stop "
                             "with job_kill). No timeout applies.")},
  });
}

bool InBackground(const Value& args) {
  const Value* bg = json::Get(args, "run_in_background");
  return IsBool(bg) && bg->as_bool();
}

std::optional<Value> BashCall(const Value& args) {
  const std::string command = Str(args, "command");
  if (InBackground(args)) {
    return Card("generic")
        .Set("title", command)
        .Set("kind", "execute")
        .Set("rawInput", command)
        .Set("content", Texts(Str(args, "description")))
        .Build();
  }
  Card card("terminal");
  card.Set("title", command).Set("description", Str(args, "description"));
  if (const Value* workdir = json::Get(args, "workdir")) card.Set("cwd", *workdir);
  return card.Build();
}

// dsh-shell's parseExitStatus: a trailing "\n[killed by signal: S]" or
// "\n[exit code: N]" marker, else exit 0.
struct ExitStatus {
  std::string output;
  std::optional<std::string> signal;
  double exit_code = 0;
};

// JavaScript's Number() of a run of decimal digits: correctly rounded, and
// Infinity past the double range (which a card then writes as null, as
// JSON.stringify does).
double DigitsToNumber(std::string_view digits) {
  double d = 0;
  const auto [end, err] = std::from_chars(digits.data(), digits.data() + digits.size(), d);
  if (err == std::errc::result_out_of_range) return std::numeric_limits<double>::infinity();
  return end == digits.data() + digits.size() ? d : 0;
}

ExitStatus ParseExitStatus(const std::string& raw) {
  const size_t open = raw.rfind("\n[");
  if (open != std::string::npos && !raw.empty() && raw.back() == ']') {
    const std::string_view marker = std::string_view(raw).substr(open + 2, raw.size() - open - 3);
    constexpr std::string_view kSignal = "killed by signal: ";
    constexpr std::string_view kExit = "exit code: ";
    if (marker.substr(0, kSignal.size()) == kSignal) {
      const std::string_view name = marker.substr(kSignal.size());
      if (!name.empty() && name.find_first_of("]\n") == std::string_view::npos) {
        return {raw.substr(0, open), std::string(name), 0};
      }
    } else if (marker.substr(0, kExit.size()) == kExit) {
      const std::string_view digits = marker.substr(kExit.size());
      if (!digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos) {
        return {raw.substr(0, open), std::nullopt, DigitsToNumber(digits)};
      }
    }
  }
  return {raw, std::nullopt, 0};
}

std::optional<Value> BashResult(const Value& args, const DurableResult& r) {
  const std::string* raw = SingleText(r.content);
  if (!raw) return std::nullopt;
  if (InBackground(args) || r.is_error) {
    std::string trimmed = *raw;
    while (!trimmed.empty() && trimmed.back() == '\n') trimmed.pop_back();
    return Card("generic").Set("content", Texts("```console\n" + trimmed + "\n```")).Build();
  }
  ExitStatus status = ParseExitStatus(*raw);
  Card card("terminal");
  card.Set("output", std::move(status.output));
  if (status.signal) {
    card.Set("signal", *status.signal);
  } else {
    card.Set("exitCode", status.exit_code);
  }
  return card.Build();
}

// --- web ---

Value WebSearchParameters() {
  return Parameters({
      {"queries", Array(String())
                      .Required()
                      .Description("Required search queries; accepts 1\u20134 items and merges their results.")},
  });
}

std::string JoinedQueries(const Value& args) {
  std::string joined;
  const Value* queries = json::Get(args, "queries");
  for (const Value& q : queries->as_array()) joined += (joined.empty() ? "" : ", ") + q.as_string();
  return joined;
}

std::optional<Value> WebSearchCall(const Value& args) {
  const std::string title = JoinedQueries(args);
  return Card("generic").Set("title", title).Set("kind", "search").Set("rawInput", title).Build();
}

std::optional<Value> WebSearchResult(const Value& args, const DurableResult& r) {
  if (r.is_error || !r.meta || !r.meta->is_object()) return std::nullopt;
  const Value* sources = r.meta->Find("sources");
  const Value* truncated = r.meta->Find("truncated");
  const Value* answer = r.meta->Find("answer");
  if (!sources || !sources->is_array() || !IsBool(truncated) || (answer && !answer->is_string())) return std::nullopt;
  for (const Value& s : sources->as_array()) {
    if (!s.is_object() || !IsStr(s.Find("url"))) return std::nullopt;
    for (const char* key : {"title", "snippet", "publishedAt"}) {
      if (const Value* v = s.Find(key); v && !v->is_string()) return std::nullopt;
    }
  }
  Card card("web");
  card.Set("kind", "search").Set("title", JoinedQueries(args)).Set("sources", *sources).Set("truncated", *truncated);
  if (answer) card.Set("answer", *answer);
  return card.Build();
}

Value WebFetchParameters() {
  return Parameters({{"url", String().Required().Description("The HTTP(S) URL to fetch.")}});
}

std::optional<Value> WebFetchCall(const Value& args) {
  const std::string url = Str(args, "url");
  return Card("generic").Set("title", url).Set("kind", "fetch").Set("rawInput", url).Build();
}

std::optional<Value> WebFetchResult(const Value& args, const DurableResult& r) {
  if (r.is_error || !r.meta || !r.meta->is_object()) return std::nullopt;
  const Value* url = r.meta->Find("url");
  const Value* status = r.meta->Find("statusCode");
  const Value* truncated = r.meta->Find("truncated");
  if (!IsStr(url) || !IsNum(status) || !IsBool(truncated)) return std::nullopt;
  return Card("web")
      .Set("kind", "fetch")
      .Set("title", Str(args, "url"))
      .Set("url", *url)
      .Set("statusCode", *status)
      .Set("truncated", *truncated)
      .Build();
}

// --- job control ---

constexpr char kJobIdDescription[] = "Job id returned by the tool that started the background work.";

Value JobOutputParameters() {
  return Parameters({
      {"job_id", String().Required().Description(kJobIdDescription)},
      {"wait", Boolean().Description("Block until the job reaches a terminal status or the timeout expires. A "
                                     "timed-out wait returns [status: running] and leaves the job alive.")},
      {"timeout_ms", Number().Description("Max wait in milliseconds (only meaningful with wait: true). Defaults to "
                                          "the configured wait timeout; capped by the configured maximum.")},
  });
}

Value JobKillParameters() {
  return Parameters({
      {"job_id", String().Required().Description(kJobIdDescription)},
      {"reason", String().Description("Optional short reason, recorded in the log and forwarded to the job.")},
  });
}

PresentCallFn JobCall(const std::string& prefix, const std::string& kind) {
  return [prefix, kind](const Value& args) -> std::optional<Value> {
    const std::string id = Str(args, "job_id");
    return Card("generic").Set("title", prefix + id).Set("kind", kind).Set("rawInput", id).Build();
  };
}

std::optional<Value> JobListCall(const Value&) {
  return Card("generic").Set("title", "List background jobs").Set("kind", "read").Build();
}

// --- run_code (dsh-tools' Code Mode transport) ---

Value RunCodeParameters() {
  // The TypeScript flavor's texts; soft validation reads only the types, which
  // both flavors share (engine/runtime/code_mode.h has both).
  return Parameters({
      {"code", String().Required().Description("The program: the body of an async TypeScript function.")},
      {"description",
       String().Required().Description(
           "Clear, concise description of what this program does in active voice, 5-10 words (shown in the UI). "
           "Examples: \"Count TODO markers across packages\"; \"Read failing test and its fixture\"; \"Rename config "
           "key in every cordis.yml\".")},
  });
}

std::optional<Value> RunCodeCall(const Value& args) {
  return Card("generic")
      .Set("title", Str(args, "description"))
      .Set("kind", "execute")
      .Set("rawInput", Str(args, "code"))
      .Build();
}

struct Entry {
  const char* name;
  Value (*parameters)();
  PresentCallFn call;
  PresentResultFn result;
};

std::vector<Entry> Entries() {
  return {
      {"read", ReadParameters, ReadCall, ReadResult},
      {"write", WriteParameters, WriteCall, WriteResult},
      {"edit", EditParameters, EditCall, EditResult},
      {"glob", GlobParameters, GlobCall, GlobResult},
      {"grep", GrepParameters, GrepCall, GrepResult},
      {"bash", BashParameters, BashCall, BashResult},
      {"web_search", WebSearchParameters, WebSearchCall, WebSearchResult},
      {"web_fetch", WebFetchParameters, WebFetchCall, WebFetchResult},
      {"job_output", JobOutputParameters, JobCall("Read output from background job ", "read"), nullptr},
      {"job_list", [] { return Parameters({}); }, JobListCall, nullptr},
      {"job_kill", JobKillParameters, JobCall("Kill background job ", "execute"), nullptr},
  };
}

// The set, and why any entry could not be added (a bug: the schemas are fixed,
// and tests/presenters pins them against upstream).
struct ReferenceSet {
  PresenterSet set;
  std::map<std::string, Status, std::less<>> failed;
};

ReferenceSet Build() {
  ReferenceSet r;
  for (Entry& e : Entries()) {
    Status st = r.set.Add(e.name, e.parameters(), std::move(e.call), std::move(e.result));
    if (!st.ok()) r.failed.emplace(e.name, std::move(st));
  }
  return r;
}

const ReferenceSet& Reference() {
  static const ReferenceSet kSet = Build();
  return kSet;
}

}  // namespace

json::Value ReferenceParameters(std::string_view tool) {
  for (const Entry& e : Entries()) {
    if (tool == e.name) return e.parameters();
  }
  return json::Value();
}

const PresenterSet& ReferencePresenters() { return Reference().set; }

ToolPresenterPtr RunCodePresenter() {
  static const ToolPresenterPtr kPresenter =
      MakeToolPresenter("run_code", *schema::CompileParameters(RunCodeParameters()), RunCodeCall, nullptr);
  return kPresenter;
}

const PresenterSet& CodeModePresenters() {
  static const PresenterSet kSet = [] {
    PresenterSet set = ReferencePresenters();
    set.Add(RunCodePresenter());
    return set;
  }();
  return kSet;
}

Result<ToolPresenterPtr> ReferencePresenter(std::string_view tool) {
  const ReferenceSet& r = Reference();
  if (auto f = r.failed.find(tool); f != r.failed.end()) {
    return f->second.WithContext("the reference presenter of \"" + std::string(tool) + "\" did not build");
  }
  ToolPresenterPtr p = r.set.Share(tool);
  if (p == nullptr) return Status::NotFound("no reference presenter for tool \"" + std::string(tool) + "\"");
  return p;
}

}  // namespace retrace::presenters
