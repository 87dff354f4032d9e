// Replay-stability checking and store rewriting at scale:
//  - `retrace check` on a generated 100k-event session with read cards
//    (each session is replayed twice, plus the golden comparison);
//  - `retrace migrate --rewrite` on a generated multi-session store (copy with
//    upcast payloads through the import path, then the card verification).
//
//   check_bench [--events N] [--sessions S --session-events E] [--reps R] [--dir DIR]
#include <cstdio>
#include <filesystem>
#include <optional>

#include "bench/bench_options.h"
#include "bench/log_generator.h"
#include "bench/measure.h"
#include "check/replay_check.h"
#include "store/importer.h"
#include "store/rewrite.h"

namespace retrace::bench {
namespace {

namespace fs = std::filesystem;

}  // namespace

int Main(int argc, char** argv) {
  int64_t events = 100000, sessions = 100, session_events = 10000;
  BenchOptions o;
  cli::CommandLine line("retrace check and rewrite benchmark");
  cli::Options app = line.options();
  app.Add("--events", events, "Events in the session checked");
  app.Add("--sessions", sessions, "Sessions in the store rewritten");
  app.Add("--session-events", session_events, "Events per session of the store rewritten");
  AddBenchOptions(app, o);
  if (std::optional<int> rc = line.Parse(argc, argv)) return *rc;
  const std::string dir = o.dir + "/check";
  fs::remove_all(dir);
  fs::create_directories(dir + "/golden");

  // check: one session with real read cards, compared with its golden document.
  const std::string file = dir + "/check-bench.jsonl";
  const GeneratedLog log = WriteGeneratedLog(file, "check-bench", events, 42, /*read_cards=*/true);
  check::CheckOptions write;
  write.golden_dir = dir + "/golden";
  write.update_golden = true;
  if (!check::CheckInputs({file}, write).ok()) return std::fprintf(stderr, "golden failed\n"), 1;
  check::CheckOptions compare;
  compare.golden_dir = dir + "/golden";
  const Sample checked = Best(o.reps, [&] {
    return RunInChild([&] {
      const double t0 = NowSeconds();
      auto r = check::CheckInputs({file}, compare);
      return r.ok() && r->Clean(false) ? NowSeconds() - t0 : -1.0;
    });
  });

  // rewrite: a store of generated sessions.
  const std::string db = dir + "/store.db", out = dir + "/rewritten.db";
  int64_t total = 0;
  {
    auto store = store::EventStore::Open(db);
    if (!store.ok()) return 1;
    for (int64_t i = 0; i < sessions; ++i) {
      const std::string f = dir + "/s.jsonl";
      total += WriteGeneratedLog(f, "r-" + std::to_string(i), session_events, static_cast<uint64_t>(i) + 1).events;
      if (!store::ImportJsonl(**store, f).ok()) return std::fprintf(stderr, "import failed\n"), 1;
    }
  }
  double copy_seconds = 0, verify_seconds = 0;
  {
    RemoveDatabase(out);
    auto store = store::EventStore::Open(db);
    const double t0 = NowSeconds();
    auto report = store::RewriteStore(**store, out, dir);
    copy_seconds = NowSeconds() - t0;
    if (!report.ok()) return std::fprintf(stderr, "rewrite failed: %s\n", report.status().message().c_str()), 1;
    const double t1 = NowSeconds();
    auto differences = check::CompareStoreCards(db, out);
    verify_seconds = NowSeconds() - t1;
    if (!differences.ok() || !differences->empty()) return std::fprintf(stderr, "verification failed\n"), 1;
  }

  std::printf("check, %lld events, %lld calls: %.1f ms, %.0f events/s (two replays + golden comparison), %.1f MB peak\n",
              static_cast<long long>(log.events), static_cast<long long>(log.tool_calls), checked.seconds * 1e3,
              static_cast<double>(log.events) / checked.seconds, checked.peak_rss_mb);
  std::printf("migrate --rewrite, %lld sessions, %lld events: copy %.0f ms + verify %.0f ms = %.0f ms, %.0f events/s\n",
              static_cast<long long>(sessions), static_cast<long long>(total), copy_seconds * 1e3, verify_seconds * 1e3,
              (copy_seconds + verify_seconds) * 1e3, static_cast<double>(total) / (copy_seconds + verify_seconds));
  return 0;
}

}  // namespace retrace::bench

int main(int argc, char** argv) { return retrace::bench::Main(argc, argv); }
