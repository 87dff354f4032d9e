// Replay-stability checking (`retrace check`, testing/replay_stability.h):
// replays sessions through the current presenters and compares the cards
// with a reference, reporting every divergence, not just the first.
//
// The reference is a golden directory: one card document per log file,
// `<golden>/<file name without .jsonl or .jsonl.zstd>.cards.json`, and per
// stored session, `<golden>/<session id>.cards.json`, exactly what `retrace
// replay --format cards` writes (`--update-golden` writes them). Two inputs
// of one run that name the same document are a finding, not an overwrite. Without one, the reference
// is the card snapshots the recorder wrote at run time (`retrace/cards`
// events: each call's pending and result views, with the presenter version);
// a log without either gets the presenters' health and determinism checked.
//
// Findings, per call:
// - missing / extra / differs: the reference has a card the replay lacks, the
//   replay one the reference lacks, or both and they differ (at a JSON path);
// - fallback: logged arguments no longer fit the tool's schema, so the
//   generic card shows (a warning; an error with `strict`);
// and per session, hard failures always:
// - threw: a presenter threw;
// - unreadable: the log cannot be read, or holds an event type this build
//   does not know that is not marked ignorable;
// - nondeterministic: two replays of the same log gave different bytes;
// - fuzz: a mutated argument (options.fuzz mutations per call) made a
//   presenter throw, or gave a tool view for arguments the schema refuses;
// - upcast: a step of the tool's upcaster chain (presenters/revisions.h)
//   threw, or gave arguments that fail the next revision's schema, so the
//   call shows the generic card.
//
// Per tool, a session also tallies its calls' revisions (ToolRevisions):
// where the calls sit, how many were upcast, and why any fall back.
#ifndef RETRACE_CHECK_REPLAY_CHECK_H_
#define RETRACE_CHECK_REPLAY_CHECK_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <retrace/engine/base/status.h>
#include <retrace/engine/json/value.h>
#include <retrace/presenters/presenter.h>

namespace retrace::check {

enum class Finding { kMissing, kExtra, kDiffers, kFallback, kThrew, kUnreadable, kNondeterministic, kFuzz, kUpcast };

const char* FindingName(Finding f);
bool IsHardFailure(Finding f);  // threw, unreadable, nondeterministic, fuzz, upcast
bool IsWarning(Finding f);      // fallback (an error under `strict`)

struct Divergence {
  Finding finding = Finding::kDiffers;
  int64_t seq = -1;  // the call's tool/call (or result) seq; -1 when only the reference has it
  std::string call_id{}, tool{}, presenter_version{};
  std::string path{};              // where the cards first differ (kDiffers)
  std::string expected{}, actual{};  // the values there
  std::string detail{};            // what went wrong, in words
};

// One tool's calls in a session, by revision (tools that declare revisions,
// and any tool whose old calls fall back to the generic card).
struct ToolRevisions {
  std::map<int, int64_t> at_revision{};  // the calls' revisions (0: none could be told)
  int64_t recorded = 0;                   // of them, told by the session's record rather than inferred
  int64_t upcast = 0;                     // carried to the current revision
  std::map<std::string, int64_t> generic{};  // why calls show the generic card: no chain, a step threw, ...
};

struct SessionCheck {
  std::string session_id{}, source{};
  int64_t calls = 0;
  std::map<std::string, ToolRevisions> revisions{};  // by tool
  bool has_reference = false;
  bool reference_written = false;  // update_golden wrote it
  std::vector<Divergence> findings{};
};

struct CheckOptions {
  const presenters::PresenterSet* presenters = nullptr;  // default: the reference presenters
  std::optional<std::string> golden_dir{};
  bool update_golden = false;  // write each session's cards as its reference instead of comparing
  int fuzz = 0;                // argument mutations per call
  // Called after each session with (sessions done, sessions), for progress.
  std::function<void(size_t, size_t)> progress{};
};

struct CheckReport {
  std::vector<SessionCheck> sessions;
  int64_t calls() const;
  int64_t Count(bool (*which)(Finding)) const;
  // No finding, except warnings when not strict.
  bool Clean(bool strict) const;
};

// Checks every session of each input: a retrace database (all its sessions),
// a dsh JSONL log (.jsonl or .jsonl.zstd), or a directory (every log in it,
// recursively). A missing input is an error; a log that cannot be read is a
// finding of its session.
Result<CheckReport> CheckInputs(const std::vector<std::string>& inputs, const CheckOptions& options);

// The cards of every session of the database `before`, compared with the same
// session's in `after` (what `retrace migrate --rewrite` verifies): one line
// per difference ("session s: call c differs at /result/...", "session s is
// missing"), none when every card document is identical.
Result<std::vector<std::string>> CompareStoreCards(const std::string& before, const std::string& after,
                                                   const presenters::PresenterSet* presenters = nullptr);

// Each tool's revision tally over every session of the report.
std::map<std::string, ToolRevisions> RevisionTotals(const CheckReport& report);

json::Value ReportJson(const CheckReport& report, bool strict);
std::string ReportText(const CheckReport& report, bool strict);

}  // namespace retrace::check

#endif  // RETRACE_CHECK_REPLAY_CHECK_H_
