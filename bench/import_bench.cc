// Import throughput: retrace import vs a plain batched SQLite insert of the
// same lines vs the upstream dsh JSONL backend's inspect(), in one run.
//
//   import_bench [--events N] [--reps R] [--dir DIR] [--node NODE --upstream DIR]
//
// See docs/PERFORMANCE.md for the recorded results and how to run the
// upstream side (bench/setup_upstream.sh).
#include <cstdio>
#include <filesystem>
#include <optional>

#include "bench/bench_options.h"
#include "bench/log_generator.h"
#include "bench/measure.h"
#include "store/importer.h"
#include "format/line_source.h"
#include "store/sqlite.h"

namespace retrace::bench {
namespace {

namespace fs = std::filesystem;

// The baseline: every line of the file into (seq, line), one transaction,
// same journal mode and sync policy as the store.
double PlainSqliteInsert(const std::string& file, const std::string& db_path, int page_size) {
  RemoveDatabase(db_path);
  const double start = NowSeconds();
  auto db = store::Db::Open(db_path, store::Db::Mode::kReadWriteCreate);
  if (!db.ok() || !db->Exec("PRAGMA page_size=" + std::to_string(page_size) + "; PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"
                            "CREATE TABLE lines(seq INTEGER PRIMARY KEY, line TEXT NOT NULL)").ok())
    return -1;
  auto source = format::LineSource::Open(file);
  if (!source.ok() || !db->Exec("BEGIN").ok()) return -1;
  auto insert = store::Statement::Prepare(*db, "INSERT INTO lines(seq, line) VALUES(?, ?)");
  int64_t seq = 0;
  while (true) {
    auto line = (*source)->NextLine();
    if (!line.ok() || !line->has_value()) break;
    if (!insert->Bind(1, seq++).Bind(2, **line, true).Run().ok()) return -1;
  }
  if (!db->Exec("COMMIT").ok()) return -1;
  return NowSeconds() - start;
}

double RetraceImport(const std::string& file, const std::string& db_path, bool read_model = true) {
  RemoveDatabase(db_path);
  const double start = NowSeconds();
  store::StoreOptions options;
  options.maintain_read_model = read_model;
  auto store = store::EventStore::Open(db_path, options);
  if (!store.ok()) return -1;
  auto report = store::ImportJsonl(**store, file);
  if (!report.ok()) {
    std::fprintf(stderr, "import failed: %s\n", report.status().message().c_str());
    return -1;
  }
  return NowSeconds() - start;
}

void Row(const char* name, const Sample& s, int64_t events, uint64_t bytes) {
  if (!s.ok) {
    std::printf("%-36s %10s\n", name, "failed/skipped");
    return;
  }
  std::printf("%-36s %9.1f ms %12.0f ev/s %8.1f MB/s %8.1f MB peak\n", name, s.seconds * 1e3,
              static_cast<double>(events) / s.seconds, static_cast<double>(bytes) / 1048576.0 / s.seconds, s.peak_rss_mb);
}

}  // namespace

int Main(int argc, char** argv) {
  int64_t events = 100000;
  BenchOptions o;
  cli::CommandLine line("retrace import benchmark");
  cli::Options app = line.options();
  app.Add("--events", events, "Minimum events in the generated log");
  AddBenchOptions(app, o);
  if (std::optional<int> rc = line.Parse(argc, argv)) return *rc;
  const std::string& dir = o.dir;
  const int reps = o.reps;
  fs::create_directories(dir);
  const std::string file = dir + "/generated.jsonl";
  const std::optional<GeneratedLog> made = WriteGeneratedLogInChild(file, "bench-session", events);
  if (!made) return std::fprintf(stderr, "generating the log failed\n"), 1;
  const GeneratedLog& log = *made;
  std::printf("log: %lld events, %lld tool calls, %.1f MB (%s)\n", static_cast<long long>(log.events),
              static_cast<long long>(log.tool_calls), static_cast<double>(log.bytes) / 1048576.0, file.c_str());

  const Sample plain = Best(reps, [&] { return RunInChild([&] { return PlainSqliteInsert(file, dir + "/plain.db", 4096); }); });
  const Sample plain_same = Best(reps, [&] {
    return RunInChild([&] { return PlainSqliteInsert(file, dir + "/plain.db", store::kPageSize); });
  });
  const Sample ours = Best(reps, [&] { return RunInChild([&] { return RetraceImport(file, dir + "/retrace.db"); }); });
  // The read model's share (audit tables and search index), measured by leaving it out.
  const Sample ours_bare = Best(reps, [&] {
    return RunInChild([&] { return RetraceImport(file, dir + "/retrace.db", /*read_model=*/false); });
  });
  Sample theirs;
  if (!o.node.empty()) {
    theirs = Best(reps, [&] {
      return RunCommand({o.node, RETRACE_SOURCE_DIR "/bench/upstream/inspect.mjs", o.upstream, file, "bench-session", "/home/dev/bench"});
    });
  }
  Row("plain SQLite insert (4 KiB pages)", plain, log.events, log.bytes);
  Row("plain SQLite insert (32 KiB pages)", plain_same, log.events, log.bytes);
  Row("retrace import", ours, log.events, log.bytes);
  Row("retrace import, no read model", ours_bare, log.events, log.bytes);
  Row("upstream JSONL inspect() (Node 22)", theirs, log.events, log.bytes);
  if (plain.ok && ours.ok) std::printf("retrace / plain SQLite (default pages) throughput: %.2f (target >= 0.80)\n", plain.seconds / ours.seconds);
  if (plain.ok && ours_bare.ok)
    std::printf("retrace without read model / plain SQLite (default pages): %.2f\n", plain.seconds / ours_bare.seconds);
  if (plain_same.ok && ours.ok) std::printf("retrace / plain SQLite (same pages) throughput: %.2f\n", plain_same.seconds / ours.seconds);
  if (theirs.ok && ours.ok) std::printf("retrace / upstream inspect throughput: %.2f (target >= 1.00)\n", theirs.seconds / ours.seconds);
  return 0;
}

}  // namespace retrace::bench

int main(int argc, char** argv) { return retrace::bench::Main(argc, argv); }
