// Append throughput through the store API, side by side with plain SQLite
// and the upstream dsh JSONL backend, in one run:
//  - batched appends (--batch events per durable append);
//  - single-event durable appends (durability full) vs plain SQLite
//    single-row commits in the same mode vs upstream fsync-per-batch appends.
//
//   append_bench [--events N] [--singles N] [--batch B] [--dir DIR] [--node NODE --upstream DIR]
#include <cstdio>
#include <filesystem>
#include <optional>

#include "bench/bench_options.h"
#include "bench/log_generator.h"
#include "bench/measure.h"
#include "store/event_store.h"
#include "store/session_writer.h"

namespace retrace::bench {
namespace {

namespace fs = std::filesystem;

std::vector<log::EventRecord> Events(int64_t n) {
  std::vector<log::EventRecord> all;
  GenerateLog("append-bench", n, 42, [&](const std::vector<log::EventRecord>& batch) {
    all.insert(all.end(), batch.begin(), batch.end());
  });
  all.resize(static_cast<size_t>(n));
  return all;
}

double RetraceAppends(const std::vector<log::EventRecord>& events, size_t batch, store::Durability durability,
                      const std::string& db, bool read_model = true) {
  RemoveDatabase(db);
  store::StoreOptions options;
  options.durability = durability;
  options.maintain_read_model = read_model;
  auto s = store::EventStore::Open(db, options);
  const log::SessionHeader h = GeneratedHeader("append-bench");
  if (!s.ok() || !(*s)->CreateSession(h, log::SerializeHeaderLine(h)).ok()) return -1;
  auto writer = (*s)->OpenWriter("append-bench");
  if (!writer.ok()) return -1;
  const double start = NowSeconds();
  for (size_t i = 0; i < events.size(); i += batch) {
    const size_t n = std::min(batch, events.size() - i);
    auto r = (*writer)->Append(static_cast<int64_t>(i), std::span(events).subspan(i, n));
    if (!r.ok()) {
      std::fprintf(stderr, "append failed: %s\n", r.status().message().c_str());
      return -1;
    }
  }
  return NowSeconds() - start;
}

// One INSERT per event, each its own (autocommit) transaction.
double PlainSingleCommits(const std::vector<log::EventRecord>& events, const std::string& db_path) {
  RemoveDatabase(db_path);
  auto db = store::Db::Open(db_path, store::Db::Mode::kReadWriteCreate);
  if (!db.ok() || !db->Exec("PRAGMA page_size=" + std::to_string(store::kPageSize) +
                            "; PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"
                            "CREATE TABLE lines(seq INTEGER PRIMARY KEY, line TEXT NOT NULL)").ok())
    return -1;
  auto insert = store::Statement::Prepare(*db, "INSERT INTO lines(seq, line) VALUES(?, ?)");
  const double start = NowSeconds();
  for (const auto& e : events)
    if (!insert->Bind(1, e.event.seq).Bind(2, e.text, true).Run().ok()) return -1;
  return NowSeconds() - start;
}

void Row(const char* name, const Sample& s, size_t events) {
  if (!s.ok) {
    std::printf("%-44s %s\n", name, "failed/skipped");
    return;
  }
  std::printf("%-44s %9.1f ms %10.0f ev/s %9.1f us/event %7.1f MB peak\n", name, s.seconds * 1e3,
              static_cast<double>(events) / s.seconds, s.seconds * 1e6 / static_cast<double>(events), s.peak_rss_mb);
}

void Ratio(const char* what, const Sample& ours, const Sample& theirs, const char* target) {
  if (ours.ok && theirs.ok) std::printf("%-44s %.2f (target %s)\n", what, theirs.seconds / ours.seconds, target);
}

}  // namespace

int Main(int argc, char** argv) {
  int64_t events = 20000, singles = 1000;
  size_t batch = 100;
  BenchOptions o;
  cli::CommandLine line("retrace append benchmark");
  cli::Options app = line.options();
  app.Add("--events", events, "Events for the batched appends");
  app.Add("--singles", singles, "Events for the single-event durable appends");
  app.Add("--batch", batch, "Events per batched append");
  AddBenchOptions(app, o);
  if (std::optional<int> rc = line.Parse(argc, argv)) return *rc;
  fs::create_directories(o.dir);
  const std::string& dir = o.dir;
  const int reps = o.reps;

  const auto all = Events(events);
  const std::vector<log::EventRecord> few(all.begin(), all.begin() + std::min<int64_t>(singles, events));
  const std::string jsonl = dir + "/append-events.jsonl";  // for the Node side
  {
    FILE* f = std::fopen(jsonl.c_str(), "wb");
    for (const auto& e : all) std::fprintf(f, "%s\n", e.text.c_str());
    std::fclose(f);
  }
  auto upstream_run = [&](size_t b, size_t n, const char* compression = "none") {
    return RunCommand({o.node, RETRACE_SOURCE_DIR "/bench/upstream/append.mjs", o.upstream, jsonl, std::to_string(b),
                       std::to_string(n), compression});
  };
  const std::string db = dir + "/append.db";

  std::printf("batched: %zu events in batches of %zu; single: %zu events, one durable append each\n", all.size(), batch, few.size());
  const Sample ours_batched = Best(reps, [&] { return RunInChild([&] { return RetraceAppends(all, batch, store::Durability::kFull, db); }); });
  const Sample ours_batched_normal = Best(reps, [&] { return RunInChild([&] { return RetraceAppends(all, batch, store::Durability::kNormal, db); }); });
  // The read model's cost: the same appends without the audit tables and search index.
  const Sample ours_no_model = Best(reps, [&] {
    return RunInChild([&] { return RetraceAppends(all, batch, store::Durability::kFull, db, /*read_model=*/false); });
  });
  const Sample ours_no_model_normal = Best(reps, [&] {
    return RunInChild([&] { return RetraceAppends(all, batch, store::Durability::kNormal, db, /*read_model=*/false); });
  });
  const Sample up_batched = o.node.empty() ? Sample{} : Best(reps, [&] { return upstream_run(batch, all.size()); });
  const Sample up_batched_zstd =
      o.node.empty() ? Sample{} : Best(reps, [&] { return upstream_run(batch, all.size(), "zstd"); });
  const Sample ours_single = Best(reps, [&] { return RunInChild([&] { return RetraceAppends(few, 1, store::Durability::kFull, db); }); });
  const Sample plain_single = Best(reps, [&] { return RunInChild([&] { return PlainSingleCommits(few, dir + "/plain-single.db"); }); });
  const Sample up_single = o.node.empty() ? Sample{} : Best(reps, [&] { return upstream_run(1, few.size()); });

  Row("retrace batched append (full)", ours_batched, all.size());
  Row("retrace batched append (normal)", ours_batched_normal, all.size());
  Row("retrace batched append (full), no read model", ours_no_model, all.size());
  Row("retrace batched append (normal), no read model", ours_no_model_normal, all.size());
  Row("upstream batched append, raw JSONL", up_batched, all.size());
  Row("upstream batched append, zstd (its default)", up_batched_zstd, all.size());
  Row("retrace single-event append (full)", ours_single, few.size());
  Row("plain SQLite single-row commit (FULL)", plain_single, few.size());
  Row("upstream single-event append, raw JSONL", up_single, few.size());
  Ratio("batched: retrace / upstream raw JSONL", ours_batched, up_batched, ">= 3.0");
  Ratio("batched: retrace / upstream zstd (default)", ours_batched, up_batched_zstd, ">= 3.0");
  Ratio("single: retrace / plain SQLite", ours_single, plain_single, ">= 0.70");
  Ratio("read model kept: full, with / without", ours_batched, ours_no_model, ">= 0.50");
  Ratio("read model kept: normal, with / without", ours_batched_normal, ours_no_model_normal, ">= 0.50");
  Ratio("single: retrace / upstream", ours_single, up_single, ">= 1.5");
  return 0;
}

}  // namespace retrace::bench

int main(int argc, char** argv) { return retrace::bench::Main(argc, argv); }
