#include "check/replay_check.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>

#include "check/argument_fuzz.h"
#include "check/json_diff.h"
#include "engine/json/parser.h"
#include "engine/json/writer.h"
#include "engine/log/event_types.h"
#include "engine/log/tool_events.h"
#include "engine/replay/cards.h"
#include "engine/runtime/session_recorder.h"
#include "engine/schema/validator.h"
#include "format/atomic_file.h"
#include "format/dsh_layout.h"
#include "format/fast_json_parser.h"
#include "presenters/reference_tools.h"
#include "store/event_source.h"

namespace retrace::check {
namespace {

namespace fs = std::filesystem;
using json::Value;

using store::EventSource;

// The name of a session's golden document, `<name>.cards.json`: a log file's
// name without `.jsonl`/`.jsonl.zstd` (a crashed and a repaired log of one
// session are two references); a stored session's id.
std::string ReferenceName(const EventSource& source) {
  if (!source.is_file()) return source.session_id();
  const std::string name = fs::path(source.path()).filename().string();
  return store::LogStem(name).value_or(name);
}

// Every session of the inputs, in order.
Result<std::vector<EventSource>> SourcesOf(const std::vector<std::string>& inputs) {
  std::vector<EventSource> sources;
  for (const std::string& input : inputs) {
    ASSIGN_OR_RETURN(std::vector<EventSource> more, EventSource::Expand(input));
    for (EventSource& s : more) sources.push_back(std::move(s));
  }
  return sources;
}

// What a call's result gave the presenters, kept for fuzzing.
struct LoggedResult {
  Value::Array content;
  bool is_error = false;
  std::optional<Value> meta;
};

struct Replay {
  std::string session_id;
  std::string text;  // the card document, as `retrace replay --format cards` writes it
  Value doc;         // the same, as values: kept from the views, or parsed from `text` when first needed
  std::vector<replay::CardBuilder::Diagnostics> diagnostics;
  std::vector<std::string> unknown;  // required events of types this build does not know
  std::map<std::string, LoggedResult> results;
  Value snapshots = Value::MakeObject({{"calls", Value(Value::Array{})}});  // run-time card snapshots, as a reference
};

void KeepResult(const log::ToolResultView& result, std::map<std::string, LoggedResult>& results) {
  if (result.call_id.empty()) return;
  LoggedResult r;
  if (result.content) r.content = result.content->as_array();
  r.is_error = result.is_error;
  if (result.meta) r.meta = *result.meta;
  results[std::string(result.call_id)] = std::move(r);
}

// With `views` false only the text is kept (Replay::doc stays null): enough
// for the determinism check, which parses the text only if it differs.
Result<Replay> ReplayOnce(const EventSource& source, const presenters::PresenterSet& presenters, bool keep_results,
                          bool views = true) {
  Replay r;
  r.session_id = source.session_id();
  replay::CardBuilder builder(r.session_id, presenters,
                              views ? replay::CardBuilder::Keep::kViews : replay::CardBuilder::Keep::kText);
  auto need = [](std::string_view type) { return replay::CardsNeed(type) || !log::IsKnownEventType(type); };
  RETURN_IF_ERROR(source.Read({need, /*write_again=*/true}, [&](log::Event&& e) {  // the cards are written
    if (!log::IsKnownEventType(e.type)) {
      if (!e.ignorable) r.unknown.push_back(e.type + " at seq " + std::to_string(e.seq));
      if (e.type == log::kCardSnapshot && e.data.is_object()) {
        Value card = e.data;  // {callId, tool, presenterVersion, pending, result}
        r.snapshots.Find("calls")->as_array().push_back(std::move(card));
      }
      if (e.type == log::kToolRevision) builder.Add(std::move(e));  // the calls that follow upcast from it
      return Status::Ok();
    }
    if (keep_results) {
      if (const std::optional<log::ToolResultView> result = log::ReadToolResult(e); result && result->append) {
        KeepResult(*result, r.results);
      }
    }
    builder.Add(std::move(e));
    return Status::Ok();
  }));
  if (views) r.doc = builder.Finish();  // shares its views with the builder: no copy
  r.text = builder.FinishText() + "\n";
  r.diagnostics = builder.CallDiagnostics();
  return r;
}

// The card document as values, parsed from the text if the views were not kept.
const Value& Doc(Replay& r) {
  if (r.doc.is_null()) {
    Result<Value> parsed = format::FastJsonParser().Parse(r.text);
    if (parsed.ok()) r.doc = std::move(parsed).value();  // written by us: always parses
  }
  return r.doc;
}

Divergence About(Finding f, const replay::CardBuilder::Diagnostics& d, std::string detail) {
  Divergence v;
  v.finding = f;
  v.seq = d.seq;
  v.call_id = d.call_id;
  v.tool = d.name;
  v.presenter_version = d.presenter_version;
  v.detail = std::move(detail);
  return v;
}

// Counts the call in its tool's revision tally; true when an upcast step
// failed (a hard finding, added here).
bool TallyRevision(const replay::CardBuilder::Diagnostics& d, SessionCheck& out) {
  if (!d.upcast) return false;
  ToolRevisions& t = out.revisions[d.name];
  ++t.at_revision[d.revision];
  switch (*d.upcast) {
    case presenters::UpcastHow::kCurrent: break;
    case presenters::UpcastHow::kUpcast: ++t.upcast; break;
    case presenters::UpcastHow::kNoRevision: ++t.generic["no revision's schema accepts the arguments"]; break;
    case presenters::UpcastHow::kThrew: ++t.generic["a step threw"]; break;
    case presenters::UpcastHow::kInvalidStep: ++t.generic["a step's output fails the next schema"]; break;
  }
  t.recorded += d.revision_recorded;
  if (*d.upcast != presenters::UpcastHow::kThrew && *d.upcast != presenters::UpcastHow::kInvalidStep) return false;
  out.findings.push_back(About(Finding::kUpcast, d, "upcasting from revision " + std::to_string(d.revision) +
                                                        " failed: " + d.detail + ": the generic card shows"));
  return true;
}

void CheckPresenters(const Replay& r, SessionCheck& out) {
  for (const auto& d : r.diagnostics) {
    if (TallyRevision(d, out)) continue;
    if (!d.upcast && (d.pending == presenters::Presented::kInvalidArguments ||
                      d.result == presenters::Presented::kInvalidArguments)) {
      ++out.revisions[d.name].generic["arguments fail the schema, no upcaster chain"];
    } else if (d.upcast && *d.upcast == presenters::UpcastHow::kCurrent &&
               (d.pending == presenters::Presented::kInvalidArguments ||
                d.result == presenters::Presented::kInvalidArguments)) {
      ++out.revisions[d.name].generic["the arguments fail the current schema"];
    }
    for (presenters::Presented how : {d.pending, d.result}) {
      if (how == presenters::Presented::kThrew) {
        out.findings.push_back(About(Finding::kThrew, d, "the presenter threw: " + d.detail));
        break;
      }
      if (how == presenters::Presented::kInvalidArguments) {
        out.findings.push_back(About(Finding::kFallback, d, "the logged arguments no longer fit the schema (" + d.detail +
                                                                "): the generic card shows"));
        break;
      }
    }
  }
}

// Per call: the card object by callId, and the call's seq and presenter.
std::map<std::string, const Value*> CardsById(const Value& doc) {
  std::map<std::string, const Value*> out;
  const Value* calls = doc.Find("calls");
  if (!calls || !calls->is_array()) return out;
  for (const Value& c : calls->as_array()) {
    const Value* id = c.Find("callId");
    if (id && id->is_string()) out.emplace(id->as_string(), &c);
  }
  return out;
}

// Compares what a reference holds of each card: the whole card (a golden
// document), or the pending and result views (run-time snapshots).
Value Comparable(const Value& card, bool views_only) {
  if (!views_only) return card;
  const Value* pending = card.Find("pending");
  const Value* result = card.Find("result");
  return Value::MakeObject({{"pending", pending ? *pending : Value()}, {"result", result ? *result : Value()}});
}

void CompareWithReference(Replay& r, const Value& reference, SessionCheck& out, bool views_only = false) {
  const auto expected = CardsById(reference);
  const auto actual = CardsById(Doc(r));
  std::map<std::string, const replay::CardBuilder::Diagnostics*> diag;
  for (const auto& d : r.diagnostics) diag.emplace(d.call_id, &d);
  for (const auto& [id, card] : expected) {
    if (actual.count(id)) continue;
    Divergence v;
    v.finding = Finding::kMissing;
    v.call_id = id;
    if (const Value* name = card->Find("name"); name && name->is_string()) v.tool = name->as_string();
    v.detail = "the reference has a card for this call; the replay has none";
    out.findings.push_back(std::move(v));
  }
  for (const auto& d : r.diagnostics) {
    auto it = expected.find(d.call_id);
    if (it == expected.end()) {
      out.findings.push_back(About(Finding::kExtra, d, "the replay has a card for this call; the reference has none"));
      continue;
    }
    if (auto diff = FirstDifference(Comparable(*it->second, views_only), Comparable(*actual.at(d.call_id), views_only))) {
      std::string detail = "the card differs from the reference";
      if (const Value* recorded = it->second->Find("presenterVersion"); recorded && recorded->is_string() &&
                                                                          recorded->as_string() != d.presenter_version) {
        detail += " (recorded by presenter version " + recorded->as_string() + ")";
      }
      Divergence v = About(Finding::kDiffers, d, detail);
      v.path = diff->path;
      v.expected = diff->expected;
      v.actual = diff->actual;
      out.findings.push_back(std::move(v));
    }
  }
}

// What is wrong with presenting `mutated` arguments, or "": a presenter may
// never throw, and arguments the schema refuses may never get a tool view.
std::string FuzzProblem(const presenters::ToolPresenter& p, const Value& mutated, const LoggedResult* logged) {
  const bool valid = schema::ValidateArguments(p.parameters, mutated).empty();
  std::vector<presenters::PresentOutcome> outcomes = {presenters::PresentCallOutcome(p, mutated)};
  if (logged) {
    outcomes.push_back(presenters::PresentResultOutcome(
        p, mutated, {logged->content, logged->is_error, logged->meta ? &*logged->meta : nullptr}));
  }
  for (const auto& o : outcomes) {
    if (o.how == presenters::Presented::kThrew) return "the presenter threw on mutated arguments: " + o.detail;
    if (!valid && o.view) return "a tool view for arguments the schema refuses";
  }
  return "";
}

// `rounds` mutations of each call's logged arguments; one finding per call is enough.
void Fuzz(Replay& r, const presenters::PresenterSet& presenters, int rounds, SessionCheck& out) {
  const auto cards = CardsById(Doc(r));
  for (const auto& d : r.diagnostics) {
    const presenters::ToolPresenter* p = presenters.Find(d.name);
    auto card = cards.find(d.call_id);
    if (!p || card == cards.end()) continue;
    const Value* args = card->second->Find("args");
    auto logged = r.results.find(d.call_id);
    uint64_t seed = 0;
    for (char c : d.call_id) seed = seed * 131 + static_cast<unsigned char>(c);
    for (int i = 0; i < rounds; ++i) {
      const Value mutated = MutateArguments(args ? *args : Value(), seed * 1000003 + static_cast<uint64_t>(i));
      const std::string problem = FuzzProblem(*p, mutated, logged == r.results.end() ? nullptr : &logged->second);
      if (problem.empty()) continue;
      Divergence v = About(Finding::kFuzz, d, problem);
      v.actual = json::Serialize(mutated).substr(0, 200);
      out.findings.push_back(std::move(v));
      break;
    }
  }
}

std::string GoldenPath(const std::string& dir, const EventSource& source) {
  return dir + "/" + format::EncodeSegment(ReferenceName(source)) + ".cards.json";
}

// Whether a snapshot shows a run_code call with a card of its own.
bool RecordedInCodeMode(const Value& snapshots) {
  for (const Value& c : snapshots.Find("calls")->as_array()) {
    const Value* tool = c.Find("tool");
    const Value* pending = c.Find("pending");
    if (tool != nullptr && tool->is_string() && tool->as_string() == "run_code" && pending != nullptr &&
        !pending->is_null()) {
      return true;
    }
  }
  return false;
}

void AddUnreadable(SessionCheck& out, const std::string& detail) {
  Divergence v;
  v.finding = Finding::kUnreadable;
  v.detail = detail;
  out.findings.push_back(std::move(v));
}

// Two replays of one log must give the same text; where they do not, the
// finding points at the first card that differs.
void CheckDeterminism(Replay& first, const Replay& second, SessionCheck& out) {
  if (second.text == first.text) return;
  Divergence v;
  v.finding = Finding::kNondeterministic;
  v.detail = "two replays of the same log gave different cards";
  const Result<Value> second_doc = format::FastJsonParser().Parse(second.text);
  if (auto diff = second_doc.ok() ? FirstDifference(Doc(first), *second_doc) : std::nullopt) {
    v.path = diff->path;
    v.expected = diff->expected;
    v.actual = diff->actual;
  }
  out.findings.push_back(std::move(v));
}

// Writes the session's card document into the golden directory
// (--update-golden), or compares it with the one there. `claimed`: the
// golden documents earlier sessions of this run compared with or wrote, by path.
void CheckAgainstGolden(const EventSource& source, const CheckOptions& o, Replay& first,
                        std::map<std::string, std::string>& claimed, SessionCheck& out) {
  const std::string path = GoldenPath(*o.golden_dir, source);
  if (!claimed.emplace(path, source.label()).second) {
    return AddUnreadable(out, "its reference " + path + " is also " + claimed[path] +
                                  "'s: a golden directory holds one card document per log file name or stored session id");
  }
  if (o.update_golden) {
    std::error_code ec;
    fs::create_directories(*o.golden_dir, ec);
    auto file = format::AtomicFile::Create(path);
    Status st = file.ok() ? file->Append(first.text) : file.status();
    if (st.ok()) st = file->Commit(/*overwrite=*/true);
    if (!st.ok()) return AddUnreadable(out, "cannot write the reference: " + st.message());
    out.reference_written = true;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    for (const auto& d : first.diagnostics) {
      out.findings.push_back(About(Finding::kExtra, d, "no reference for this session (" + path + ")"));
    }
    return;
  }
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text == first.text) {  // the same document: no card can differ
    out.has_reference = true;
    return;
  }
  Result<Value> reference = format::FastJsonParser().Parse(text);
  if (!reference.ok()) return AddUnreadable(out, "the reference " + path + " is not JSON: " + reference.status().message());
  out.has_reference = true;
  CompareWithReference(first, *reference, out);
}

SessionCheck CheckSession(const EventSource& source, const CheckOptions& o, const presenters::PresenterSet& presenters_in,
                          std::map<std::string, std::string>& claimed) {
  SessionCheck out;
  out.source = source.label();
  // Views are kept where they are read for sure (fuzzing reads each card's
  // arguments; run-time snapshots are compared view by view). Against a golden
  // document the text is compared first, and parsed only if it differs.
  const bool views = o.fuzz > 0 || !o.golden_dir;
  Result<Replay> first = ReplayOnce(source, presenters_in, o.fuzz > 0, views);
  // A session recorded in Code Mode says so in its card snapshots: its run_code
  // calls were shown by run_code's own presenter. Unless told which presenters
  // to use, it is replayed as that deployment.
  const presenters::PresenterSet* chosen = &presenters_in;
  if (first.ok() && o.presenters == nullptr && RecordedInCodeMode(first->snapshots)) {
    chosen = &presenters::CodeModePresenters();
    first = ReplayOnce(source, *chosen, o.fuzz > 0, views);
  }
  if (!first.ok()) {
    AddUnreadable(out, first.status().message());
    return out;
  }
  out.session_id = first->session_id;
  out.calls = static_cast<int64_t>(first->diagnostics.size());
  for (const std::string& u : first->unknown) {
    AddUnreadable(out, "unknown event type " + u + " is not marked ignorable: this build cannot replay it");
  }
  Result<Replay> second = ReplayOnce(source, *chosen, false, /*views=*/false);
  if (!second.ok()) {
    AddUnreadable(out, second.status().message());
    return out;
  }
  CheckDeterminism(*first, *second, out);
  CheckPresenters(*first, out);
  if (o.fuzz > 0) Fuzz(*first, *chosen, o.fuzz, out);
  if (o.golden_dir) {
    CheckAgainstGolden(source, o, *first, claimed, out);
  } else if (!first->snapshots.Find("calls")->as_array().empty()) {
    // The reference, if any: the card snapshots recorded at run time.
    out.has_reference = true;
    CompareWithReference(*first, first->snapshots, out, /*views_only=*/true);
  }
  return out;
}

}  // namespace

const char* FindingName(Finding f) {
  switch (f) {
    case Finding::kMissing: return "missing";
    case Finding::kExtra: return "extra";
    case Finding::kDiffers: return "differs";
    case Finding::kFallback: return "fallback";
    case Finding::kThrew: return "threw";
    case Finding::kUnreadable: return "unreadable";
    case Finding::kNondeterministic: return "nondeterministic";
    case Finding::kFuzz: return "fuzz";
    case Finding::kUpcast: return "upcast";
  }
  return "?";
}

bool IsHardFailure(Finding f) {
  return f == Finding::kThrew || f == Finding::kUnreadable || f == Finding::kNondeterministic || f == Finding::kFuzz ||
         f == Finding::kUpcast;
}

bool IsWarning(Finding f) { return f == Finding::kFallback; }

int64_t CheckReport::calls() const {
  int64_t n = 0;
  for (const auto& s : sessions) n += s.calls;
  return n;
}

int64_t CheckReport::Count(bool (*which)(Finding)) const {
  int64_t n = 0;
  for (const auto& s : sessions) {
    for (const auto& f : s.findings) n += which(f.finding);
  }
  return n;
}

bool CheckReport::Clean(bool strict) const {
  for (const auto& s : sessions) {
    for (const auto& f : s.findings) {
      if (strict || !IsWarning(f.finding)) return false;
    }
  }
  return true;
}

Result<CheckReport> CheckInputs(const std::vector<std::string>& inputs, const CheckOptions& options) {
  const presenters::PresenterSet& presenters = options.presenters ? *options.presenters : presenters::ReferencePresenters();
  ASSIGN_OR_RETURN(std::vector<EventSource> sources, SourcesOf(inputs));
  if (sources.empty()) return Status::NotFound("no sessions to check: no .jsonl or .jsonl.zstd logs, and no stored sessions, in the inputs");
  CheckReport report;
  std::map<std::string, std::string> claimed;
  for (const EventSource& s : sources) {
    report.sessions.push_back(CheckSession(s, options, presenters, claimed));
    if (options.progress) options.progress(report.sessions.size(), sources.size());
  }
  return report;
}

Result<std::vector<std::string>> CompareStoreCards(const std::string& before, const std::string& after,
                                                   const presenters::PresenterSet* presenters) {
  const presenters::PresenterSet& set = presenters ? *presenters : presenters::ReferencePresenters();
  ASSIGN_OR_RETURN(std::vector<EventSource> a, SourcesOf({before}));
  ASSIGN_OR_RETURN(std::vector<EventSource> b, SourcesOf({after}));
  std::map<std::string, Replay> replayed;
  for (const EventSource& s : b) {
    ASSIGN_OR_RETURN(Replay r, ReplayOnce(s, set, false));
    std::string id = r.session_id;
    replayed.emplace(std::move(id), std::move(r));
  }
  std::vector<std::string> differences;
  for (const EventSource& s : a) {
    ASSIGN_OR_RETURN(Replay r, ReplayOnce(s, set, false));
    auto it = replayed.find(r.session_id);
    if (it == replayed.end()) {
      differences.push_back("session " + r.session_id + " is missing");
      continue;
    }
    if (it->second.text == r.text) continue;
    const auto was = CardsById(r.doc), is = CardsById(it->second.doc);
    for (const auto& [id, card] : was) {
      auto now = is.find(id);
      if (now == is.end()) {
        differences.push_back("session " + r.session_id + ": call " + id + " has no card any more");
      } else if (auto d = FirstDifference(*card, *now->second)) {
        differences.push_back("session " + r.session_id + ": call " + id + " differs at " + d->path + ": " + d->expected +
                              " became " + d->actual);
      }
    }
    for (const auto& [id, card] : is) {
      if (!was.count(id)) differences.push_back("session " + r.session_id + ": call " + id + " has a new card");
    }
    if (differences.empty()) differences.push_back("session " + r.session_id + ": the card documents differ");
  }
  return differences;
}

std::map<std::string, ToolRevisions> RevisionTotals(const CheckReport& r) {
  std::map<std::string, ToolRevisions> totals;
  for (const auto& s : r.sessions) {
    for (const auto& [tool, t] : s.revisions) {
      ToolRevisions& sum = totals[tool];
      for (const auto& [rev, n] : t.at_revision) sum.at_revision[rev] += n;
      sum.recorded += t.recorded;
      sum.upcast += t.upcast;
      for (const auto& [why, n] : t.generic) sum.generic[why] += n;
    }
  }
  return totals;
}

json::Value ReportJson(const CheckReport& r, bool strict) {
  Value::Array sessions;
  for (const auto& s : r.sessions) {
    Value::Array findings;
    for (const auto& f : s.findings) {
      Value v = Value::MakeObject({{"finding", FindingName(f.finding)},
                                   {"severity", IsHardFailure(f.finding) ? "hard"
                                                : IsWarning(f.finding) && !strict ? "warning"
                                                                                  : "error"}});
      if (f.seq >= 0) v.Set("seq", f.seq);
      if (!f.call_id.empty()) v.Set("callId", f.call_id);
      if (!f.tool.empty()) v.Set("tool", f.tool);
      if (!f.presenter_version.empty()) v.Set("presenterVersion", f.presenter_version);
      if (f.finding == Finding::kDiffers || f.finding == Finding::kNondeterministic) {
        v.Set("path", f.path);
        v.Set("expected", f.expected);
        v.Set("actual", f.actual);
      }
      v.Set("detail", f.detail);
      findings.push_back(std::move(v));
    }
    sessions.push_back(Value::MakeObject({{"sessionId", s.session_id},
                                          {"source", s.source},
                                          {"calls", s.calls},
                                          {"reference", s.reference_written ? "written" : s.has_reference ? "compared" : "none"},
                                          {"findings", Value(std::move(findings))}}));
  }
  Value revisions = Value::MakeObject({});
  for (const auto& [tool, t] : RevisionTotals(r)) {
    Value at = Value::MakeObject({});
    for (const auto& [rev, n] : t.at_revision) at.Set(std::to_string(rev), Value(n));
    Value generic = Value::MakeObject({});
    for (const auto& [why, n] : t.generic) generic.Set(why, Value(n));
    revisions.Set(tool, Value::MakeObject({{"atRevision", std::move(at)},
                                           {"recorded", Value(t.recorded)},
                                           {"upcast", Value(t.upcast)},
                                           {"generic", std::move(generic)}}));
  }
  return Value::MakeObject({{"clean", r.Clean(strict)},
                            {"sessions", Value(std::move(sessions))},
                            {"revisions", std::move(revisions)},
                            {"calls", r.calls()},
                            {"hardFailures", r.Count(IsHardFailure)},
                            {"warnings", r.Count(IsWarning)}});
}

std::string ReportText(const CheckReport& r, bool strict) {
  std::string out;
  for (const auto& s : r.sessions) {
    const std::string id = s.session_id.empty() ? "(unreadable)" : s.session_id;
    out += id + "  " + s.source + "  " + std::to_string(s.calls) + " calls";
    out += s.reference_written ? ", reference written" : s.has_reference ? "" : ", no reference";
    out += s.findings.empty() ? "  ok\n" : "\n";
    for (const auto& f : s.findings) {
      std::string line = "  " + std::string(FindingName(f.finding));
      line += IsHardFailure(f.finding) ? " (hard failure)" : IsWarning(f.finding) && !strict ? " (warning)" : "";
      if (f.seq >= 0) line += "  seq " + std::to_string(f.seq);
      if (!f.call_id.empty()) line += "  " + f.call_id;
      if (!f.tool.empty()) line += "  " + f.tool;
      if (!f.presenter_version.empty()) line += "  presenter " + f.presenter_version.substr(0, 8);
      if (f.finding == Finding::kDiffers || f.finding == Finding::kNondeterministic) {
        line += "  at " + (f.path.empty() ? std::string("/") : f.path) + ": expected " + f.expected + ", got " + f.actual;
      } else {
        line += ": " + f.detail;
      }
      out += line + "\n";
    }
  }
  const int64_t hard = r.Count(IsHardFailure), warnings = r.Count(IsWarning);
  int64_t divergences = 0;
  for (const auto& s : r.sessions) {
    for (const auto& f : s.findings) {
      divergences += f.finding == Finding::kMissing || f.finding == Finding::kExtra || f.finding == Finding::kDiffers;
    }
  }
  for (const auto& [tool, t] : RevisionTotals(r)) {
    out += "tool " + tool + ":";
    for (const auto& [rev, n] : t.at_revision) {
      out += " " + std::to_string(n) + (rev == 0 ? " at no known revision," : " at revision " + std::to_string(rev) + ",");
    }
    std::string sep = " ";
    if (!t.at_revision.empty()) {  // a tool that declares revisions
      out += " " + std::to_string(t.recorded) + " recorded, " + std::to_string(t.upcast) + " upcast";
      sep = ", ";
    }
    for (const auto& [why, n] : t.generic) {
      out += sep + std::to_string(n) + " generic (" + why + ")";
      sep = ", ";
    }
    out += "\n";
  }
  out += "checked " + std::to_string(r.sessions.size()) + " sessions, " + std::to_string(r.calls()) + " calls: " +
         std::to_string(hard) + " hard failures, " + std::to_string(divergences) + " divergences, " +
         std::to_string(warnings) + (strict ? " fallbacks (errors with --strict)" : " warnings") + " — " +
         (r.Clean(strict) ? "clean" : "NOT clean") + "\n";
  return out;
}

}  // namespace retrace::check
