// GoogleTest assertions for tool authors: a corpus of recorded sessions
// replays stably against the current presenters.
//
//   #include <retrace/testing/replay_stability.h>
//
//   TEST(MyToolReplay, RecordedSessionsStillReplay) {
//     EXPECT_REPLAYS_STABLY("tests/replay/sessions", "tests/replay/golden");
//   }
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
#include <retrace/presenters/presenter.h>

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

}  // namespace retrace::testing

#define EXPECT_REPLAYS_STABLY(corpus, golden, ...) \
  EXPECT_TRUE(::retrace::testing::ReplaysStably((corpus), (golden) __VA_OPT__(, ) __VA_ARGS__))
#define ASSERT_REPLAYS_STABLY(corpus, golden, ...) \
  ASSERT_TRUE(::retrace::testing::ReplaysStably((corpus), (golden) __VA_OPT__(, ) __VA_ARGS__))

#endif  // RETRACE_TESTING_REPLAY_STABILITY_H_
