// GoogleTest assertions for tool authors: a corpus of recorded sessions
// replays stably against the current presenters.
//
//   #include <retrace/testing/replay_stability.h>
//
//   TEST(MyToolReplay, RecordedSessionsStillReplay) {
//     EXPECT_REPLAYS_STABLY("tests/replay/sessions", "tests/replay/golden");
//   }
//
// A tool whose arguments changed (presenters/revisions.h) also checks that
// its upcasters carry a given old value to the expected current one, and that
// its old sessions replay to today's cards through them:
//
//   EXPECT_UPCASTS_TO(MyPresenters(), "forecast", R"({"town":"Lima"})", R"({"city":{"name":"Lima"}})");
//   EXPECT_REPLAYS_THROUGH_UPCASTERS("tests/replay/sessions", "tests/replay/golden", {.presenters = &MyPresenters()});
//
// The corpus is a directory of dsh JSONL logs (or a retrace database); the
// golden directory holds one reference card document per log file (or stored
// session), written by
// `retrace check <corpus> --golden <dir> --update-golden`. On failure the
// message lists every finding, grouped per session (docs/REPLAY-STABILITY.md).
#ifndef RETRACE_TESTING_REPLAY_STABILITY_H_
#define RETRACE_TESTING_REPLAY_STABILITY_H_

#include <gtest/gtest.h>

#include <set>
#include <string>

#include <retrace/check/replay_check.h>
#include <retrace/engine/base/status.h>
#include <retrace/engine/json/parser.h>
#include <retrace/engine/json/writer.h>
#include <retrace/presenters/presenter.h>
#include <retrace/presenters/revisions.h>

namespace retrace::testing {

struct ReplayStabilityOptions {
  const presenters::PresenterSet* presenters = nullptr;  // your tools' presenters; default: the reference ones
  bool strict = false;  // soft-validation fallbacks fail too
  int fuzz = 0;         // argument mutations per call
};

namespace internal {
inline check::CheckOptions CheckOptionsFor(const std::string& golden, const ReplayStabilityOptions& o) {
  check::CheckOptions options;
  options.presenters = o.presenters;
  options.golden_dir = golden;
  options.fuzz = o.fuzz;
  return options;
}
// The check of `corpus`; a corpus without a session is an error too.
inline Result<check::CheckReport> CheckCorpus(const std::string& corpus, const check::CheckOptions& options) {
  auto report = check::CheckInputs({corpus}, options);
  if (report.ok() && report->sessions.empty()) return Status::NotFound("no sessions in " + corpus);
  return report;
}
}  // namespace internal

// Every session of `corpus` replays, twice identically, to its reference in `golden`.
inline ::testing::AssertionResult ReplaysStably(const std::string& corpus, const std::string& golden,
                                                const ReplayStabilityOptions& o = {}) {
  auto report = internal::CheckCorpus(corpus, internal::CheckOptionsFor(golden, o));
  if (!report.ok()) return ::testing::AssertionFailure() << report.status().message();
  if (report->Clean(o.strict)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\n" << check::ReportText(*report, o.strict);
}

// Writes each session's cards, as `presenters` give them, as its reference in
// `golden`: what `retrace check <corpus> --golden <dir> --update-golden` does
// with the built-in presenters, for presenters that live in your C++ code.
// Review the diff of `golden` before committing it.
inline ::testing::AssertionResult WriteGolden(const std::string& corpus, const std::string& golden,
                                              const ReplayStabilityOptions& o = {}) {
  check::CheckOptions options = internal::CheckOptionsFor(golden, o);
  options.update_golden = true;
  auto report = internal::CheckCorpus(corpus, options);
  if (!report.ok()) return ::testing::AssertionFailure() << report.status().message();
  return ::testing::AssertionSuccess() << "wrote " << report->sessions.size() << " references to " << golden;
}

// The kinds of finding ("differs", "fallback", "unreadable", ...) the sessions
// of `input` yield against `golden`: what a deliberately broken session is
// expected to produce.
inline std::set<std::string> ReplayFindings(const std::string& input, const std::string& golden,
                                            const ReplayStabilityOptions& o = {}) {
  const check::CheckOptions options = internal::CheckOptionsFor(golden, o);
  std::set<std::string> kinds;
  auto report = check::CheckInputs({input}, options);
  if (!report.ok()) return {"error: " + report.status().message()};
  for (const auto& s : report->sessions)
    for (const auto& f : s.findings) kinds.insert(check::FindingName(f.finding));
  return kinds;
}

// The arguments `old_arguments` (JSON text) of `tool` upcast to exactly
// `expected` (JSON text, compared as compact JSON) through the tool's chain
// in `presenters`; with `old_meta`, its meta to `expected_meta` too.
inline ::testing::AssertionResult UpcastsTo(const presenters::PresenterSet& presenters, const std::string& tool,
                                            const std::string& old_arguments, const std::string& expected,
                                            const std::string& old_meta = "", const std::string& expected_meta = "") {
  const presenters::ToolPresenter* p = presenters.Find(tool);
  if (p == nullptr) return ::testing::AssertionFailure() << "no presenter for the tool " << tool;
  if (!p->revisions) return ::testing::AssertionFailure() << tool << " declares no revisions";
  auto args = json::Parse(old_arguments);
  auto want = json::Parse(expected);
  if (!args.ok() || !want.ok()) return ::testing::AssertionFailure() << "the old or expected arguments are not JSON";
  std::optional<json::Value> meta;
  if (!old_meta.empty()) {
    auto parsed = json::Parse(old_meta);
    if (!parsed.ok()) return ::testing::AssertionFailure() << "the old meta is not JSON";
    meta = std::move(parsed).value();
  }
  const presenters::Upcasted up = presenters::Upcast(*p->revisions, *args, meta ? &*meta : nullptr, nullptr);
  if (!up.ok()) {
    return ::testing::AssertionFailure() << tool << " " << old_arguments << ": " << presenters::UpcastHowName(up.how)
                                         << (up.detail.empty() ? "" : ": " + up.detail);
  }
  const std::string got = json::Serialize(*up.Arguments(*args));
  if (got != json::Serialize(*want)) {
    return ::testing::AssertionFailure() << tool << " " << old_arguments << " (revision " << up.from
                                         << ") upcast to " << got << ", expected " << json::Serialize(*want);
  }
  if (!expected_meta.empty()) {
    auto want_meta = json::Parse(expected_meta);
    if (!want_meta.ok()) return ::testing::AssertionFailure() << "the expected meta is not JSON";
    const std::string got_meta = up.meta ? json::Serialize(*up.meta) : meta ? json::Serialize(*meta) : "(none)";
    if (got_meta != json::Serialize(*want_meta)) {
      return ::testing::AssertionFailure() << tool << " meta " << old_meta << " upcast to " << got_meta << ", expected "
                                           << json::Serialize(*want_meta);
    }
  }
  return ::testing::AssertionSuccess() << tool << " revision " << up.from << " → " << p->revisions->current;
}

// ReplaysStably, strict (no call of the corpus may end on the generic card),
// and the corpus must hold old calls: at least one call upcast, so that a
// corpus that stopped exercising the chain fails instead of passing vacuously.
inline ::testing::AssertionResult ReplaysThroughUpcasters(const std::string& corpus, const std::string& golden,
                                                          ReplayStabilityOptions o = {}) {
  o.strict = true;
  auto report = internal::CheckCorpus(corpus, internal::CheckOptionsFor(golden, o));
  if (!report.ok()) return ::testing::AssertionFailure() << report.status().message();
  int64_t upcast = 0;
  for (const auto& [tool, t] : check::RevisionTotals(*report)) upcast += t.upcast;
  if (!report->Clean(/*strict=*/true)) return ::testing::AssertionFailure() << "\n" << check::ReportText(*report, true);
  if (upcast == 0) {
    return ::testing::AssertionFailure() << "no call of " << corpus << " was upcast: the corpus holds no old calls\n"
                                         << check::ReportText(*report, true);
  }
  return ::testing::AssertionSuccess() << upcast << " calls upcast";
}

}  // namespace retrace::testing

#define EXPECT_UPCASTS_TO(presenters, tool, old_arguments, ...) \
  EXPECT_TRUE(::retrace::testing::UpcastsTo((presenters), (tool), (old_arguments), __VA_ARGS__))
#define EXPECT_REPLAYS_THROUGH_UPCASTERS(corpus, golden, ...) \
  EXPECT_TRUE(::retrace::testing::ReplaysThroughUpcasters((corpus), (golden) __VA_OPT__(, ) __VA_ARGS__))

#define EXPECT_REPLAYS_STABLY(corpus, golden, ...) \
  EXPECT_TRUE(::retrace::testing::ReplaysStably((corpus), (golden) __VA_OPT__(, ) __VA_ARGS__))
#define ASSERT_REPLAYS_STABLY(corpus, golden, ...) \
  ASSERT_TRUE(::retrace::testing::ReplaysStably((corpus), (golden) __VA_OPT__(, ) __VA_ARGS__))

#endif  // RETRACE_TESTING_REPLAY_STABILITY_H_
