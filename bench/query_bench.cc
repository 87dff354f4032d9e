// Audits, search and index build on a generated multi-session store, side by
// side with the upstream dsh query service (dsh-session-query-sqlite on
// node:sqlite, Node 22) over the same sessions in a dsh root:
//  - index build: deriving the read model (audit tables + FTS5) from stored
//    events, vs upstream's first search (which inspects every log and builds
//    its FTS5 index);
//  - `audit tools` and a filtered failures report;
//  - 20 searches across sessions (limit 20): p50 and p95.
//
//   query_bench [--sessions N] [--events E] [--reps R] [--dir DIR] [--node NODE --upstream DIR]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "bench/bench_options.h"
#include "bench/log_generator.h"
#include "bench/measure.h"
#include "engine/json/parser.h"
#include "engine/json/writer.h"
#include "query/audit.h"
#include "format/dsh_layout.h"
#include "store/importer.h"
#include "query/search.h"

namespace retrace::bench {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string>& Queries() {
  // Common and rarer words of the generated text, phrases, error texts and misses.
  static const std::vector<std::string> q = {
      "error",         "function",          "read",          "file not found", "config value", "import const",
      "async await",   "returns",           "build",         "index path",     "parse string", "Error: file not found",
      "check run",     "module",            "write result",  "array object",   "no such words", "the",
      "test",          "number"};
  return q;
}

double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  const size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
  return v[std::max<size_t>(rank, 1) - 1];
}

template <typename F>
double Best(int reps, F&& f) {
  double best = 1e9;
  for (int i = 0; i < reps; ++i) {
    const double t0 = NowSeconds();
    if (!f()) return -1;
    best = std::min(best, NowSeconds() - t0);
  }
  return best;
}

std::string Slurp(FILE* p) {
  std::string out;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  return out;
}

}  // namespace

int Main(int argc, char** argv) {
  int64_t sessions = 100, events = 10000;
  BenchOptions o;
  cli::CommandLine line("retrace audit and search benchmark");
  cli::Options app = line.options();
  app.Add("--sessions", sessions, "Generated sessions");
  app.Add("--events", events, "Events per session");
  AddBenchOptions(app, o);
  if (std::optional<int> rc = line.Parse(argc, argv)) return *rc;
  const std::string dir = o.dir + "/query", root = dir + "/root", db_path = dir + "/store.db";
  fs::remove_all(dir);
  fs::create_directories(root);

  int64_t total_events = 0, total_calls = 0;
  std::vector<std::string> files;
  for (int64_t i = 0; i < sessions; ++i) {
    const std::string id = "q-" + std::to_string(i), file = dir + "/" + id + ".jsonl";
    const GeneratedLog log = WriteGeneratedLog(file, id, events, static_cast<uint64_t>(i) + 1);
    total_events += log.events;
    total_calls += log.tool_calls;
    const std::string at = root + "/" + format::ProjectKey(*GeneratedHeader(id).cwd) + "/" + format::EncodeSegment(id);
    fs::create_directories(at);
    fs::create_symlink(fs::absolute(file), at + "/session.jsonl");
    files.push_back(file);
  }
  std::printf("%lld sessions, %lld events, %lld tool calls\n", static_cast<long long>(sessions),
              static_cast<long long>(total_events), static_cast<long long>(total_calls));

  // Import (maintaining the model), then time a full rebuild of the model alone.
  RemoveDatabase(db_path);
  double import_seconds = 0, build_seconds = 0;
  {
    auto store = store::EventStore::Open(db_path);
    if (!store.ok()) return std::fprintf(stderr, "open failed\n"), 1;
    const double t0 = NowSeconds();
    for (const std::string& f : files) {
      if (!store::ImportJsonl(**store, f).ok()) return std::fprintf(stderr, "import of %s failed\n", f.c_str()), 1;
    }
    import_seconds = NowSeconds() - t0;
    build_seconds = Best(o.reps, [&] { return (*store)->RebuildReadModel().ok(); });
  }
  auto db = query::ReadOnlyDb::Open(db_path);
  if (!db.ok()) return std::fprintf(stderr, "%s\n", db.status().message().c_str()), 1;

  const double audit_tools = Best(o.reps, [&] { return query::RunAudit(*db, "tools", {}).ok(); });
  query::AuditFilters filtered;
  filtered.tool = "read";
  filtered.outcome = "error";
  size_t failures = 0;
  const double audit_failures = Best(o.reps, [&] {
    auto t = query::RunAudit(*db, "failures", filtered);
    failures = t.ok() ? t->rows.size() : 0;
    return t.ok();
  });

  std::vector<double> ours;
  for (const std::string& q : Queries()) {
    ours.push_back(Best(o.reps, [&] { return query::Search(*db, {.query = q}).ok(); }));
  }

  std::printf("%-52s %9.1f ms  (%.0f events/s, with the model)\n", "retrace import", import_seconds * 1e3,
              static_cast<double>(total_events) / import_seconds);
  std::printf("%-52s %9.1f ms  (%.0f events/s)\n", "retrace index build (read model from the events)",
              build_seconds * 1e3, static_cast<double>(total_events) / build_seconds);
  std::printf("%-52s %9.1f ms\n", "retrace audit tools", audit_tools * 1e3);
  std::printf("%-52s %9.1f ms  (%zu rows)\n", "retrace audit failures --tool read --outcome error", audit_failures * 1e3,
              failures);
  std::printf("%-52s p50 %7.1f ms  p95 %7.1f ms\n", "retrace search (20 queries, across sessions)",
              Percentile(ours, 50) * 1e3, Percentile(ours, 95) * 1e3);

  if (o.node.empty()) return 0;
  // Upstream: a first request builds its index; then the 20 queries, once per rep.
  json::Value::Array requests;
  requests.push_back(json::Value::MakeObject({{"query", "warm up the index"}}));
  for (int r = 0; r < o.reps; ++r)
    for (const std::string& q : Queries()) requests.push_back(json::Value::MakeObject({{"query", q}}));
  {
    FILE* f = std::fopen((dir + "/requests.json").c_str(), "wb");
    const std::string text = json::Serialize(json::Value(std::move(requests)));
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  }
  const std::string cmd = o.node + " " RETRACE_SOURCE_DIR "/bench/upstream/search.mjs " + o.upstream + " " + root + " " +
                          dir + "/upstream-index.db " + dir + "/requests.json 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  const std::string text = Slurp(p);
  pclose(p);
  auto out = json::Parse(text);
  const json::Value* results = out.ok() ? out->Find("results") : nullptr;
  if (!results) {
    return std::fprintf(stderr, "upstream run failed (%s): %.300s\n", out.ok() ? "no results" : out.status().message().c_str(),
                        text.c_str()), 1;
  }
  const auto& rs = results->as_array();
  const double up_build = rs[0].Find("seconds")->as_number();
  std::vector<double> theirs(Queries().size(), 1e9);
  for (size_t i = 1; i < rs.size(); ++i) {
    double& best = theirs[(i - 1) % Queries().size()];
    best = std::min(best, rs[i].Find("seconds")->as_number());
  }
  std::printf("%-52s %9.1f ms  (%.0f events/s)\n", "upstream index build (first search)", up_build * 1e3,
              static_cast<double>(total_events) / up_build);
  std::printf("%-52s p50 %7.1f ms  p95 %7.1f ms\n", "upstream search (20 queries, across sessions)",
              Percentile(theirs, 50) * 1e3, Percentile(theirs, 95) * 1e3);
  std::printf("search p95, upstream / retrace: %.1fx (target >= 10)\n", Percentile(theirs, 95) / Percentile(ours, 95));
  std::printf("index build, retrace / upstream speed: %.2fx (target >= 1)\n", up_build / build_seconds);
  return 0;
}

}  // namespace retrace::bench

int main(int argc, char** argv) { return retrace::bench::Main(argc, argv); }
