// Appends under load, in one database: W writer processes, each appending B
// durable batches of N events to each of its S sessions (round robin), while
// R reader processes run audits and searches over the same file in a loop,
// as `retrace audit` and `retrace search` do (service/search.h). Reports append latency (p50,
// p99, max), event throughput and reader operations, and checks what the
// store promises under load: no append or read fails (busy included: the
// busy wait absorbs every lock), and every acknowledged event is stored.
//
//   load_bench [--writers 4] [--sessions 8] [--batches 40] [--batch 20] [--readers 2]
//              [--durability full|normal] [--dir DIR]
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "bench/bench_options.h"
#include "bench/log_generator.h"
#include "bench/measure.h"
#include "query/audit.h"
#include "service/search.h"
#include "store/event_store.h"
#include "store/session_writer.h"

namespace retrace::bench {
namespace {

struct Load {
  int writers = 4, sessions = 8, batches = 40, batch = 20, readers = 2;
  std::string durability = "full";
  std::string dir;
  std::string db() const { return dir + "/load.db"; }
};

std::string SessionId(int writer, int session) {
  return "load-w" + std::to_string(writer) + "-s" + std::to_string(session);
}

// One writer process: its sessions, then batches round robin. Writes each
// append's latency (µs) to lat-<w>.txt and the events it had acknowledged.
int Writer(const Load& load, int w, const std::vector<log::EventRecord>& events) {
  store::StoreOptions options;
  options.durability = load.durability == "normal" ? store::Durability::kNormal : store::Durability::kFull;
  auto s = store::EventStore::Open(load.db(), options);
  if (!s.ok()) {
    std::fprintf(stderr, "writer %d: %s\n", w, s.status().message().c_str());
    return 1;
  }
  std::vector<std::unique_ptr<store::SessionWriter>> writers;
  for (int i = 0; i < load.sessions; ++i) {
    const log::SessionHeader h = GeneratedHeader(SessionId(w, i));
    Status created = (*s)->CreateSession(h, log::SerializeHeaderLine(h));
    auto writer = created.ok() ? (*s)->OpenWriter(SessionId(w, i)) : Result<std::unique_ptr<store::SessionWriter>>(created);
    if (!writer.ok()) {
      std::fprintf(stderr, "writer %d: %s\n", w, writer.status().message().c_str());
      return 1;
    }
    writers.push_back(std::move(writer).value());
  }
  std::ofstream lat(load.dir + "/lat-" + std::to_string(w) + ".txt");
  int64_t acknowledged = 0;
  int status = 0;
  for (int b = 0; b < load.batches && status == 0; ++b) {
    for (auto& writer : writers) {
      const auto span = std::span(events).subspan(static_cast<size_t>(b) * load.batch, load.batch);
      const double start = NowSeconds();
      auto r = writer->Append(writer->next_seq(), span);
      if (!r.ok()) {
        std::fprintf(stderr, "writer %d: append failed: %s\n", w, r.status().message().c_str());
        status = 1;
        break;
      }
      lat << static_cast<int64_t>((NowSeconds() - start) * 1e6) << "\n";
      acknowledged += load.batch;
    }
  }
  std::ofstream(load.dir + "/ack-" + std::to_string(w) + ".txt") << acknowledged << "\n";
  return status;
}

std::atomic<bool> stop_readers{false};

// One reader process: audits and searches until SIGTERM; writes how many it ran.
int Reader(const Load& load, int r) {
  std::signal(SIGTERM, [](int) { stop_readers = true; });
  int64_t ops = 0;
  const service::Catalog catalog({.db_path = load.db()});
  const std::vector<std::string>& reports = query::AuditReports();
  while (!stop_readers) {
    auto db = query::ReadOnlyDb::Open(load.db());
    if (!db.ok()) {
      std::fprintf(stderr, "reader %d: %s\n", r, db.status().message().c_str());
      return 1;
    }
    auto audit = query::RunAudit(*db, reports[static_cast<size_t>(ops) % reports.size()], {});
    auto found = service::SearchStored(catalog, {.query = "tool"});
    for (const Status& s : {audit.status(), found.status()}) {
      if (!s.ok()) {
        std::fprintf(stderr, "reader %d: %s\n", r, s.message().c_str());
        return 1;
      }
    }
    ops += 2;
  }
  std::ofstream(load.dir + "/ops-" + std::to_string(r) + ".txt") << ops << "\n";
  return 0;
}

int64_t ReadNumber(const std::string& path) {
  int64_t n = 0;
  std::ifstream(path) >> n;
  return n;
}

int Main(int argc, char** argv) {
  Load load;
  BenchOptions o;
  cli::CommandLine line("retrace store under load: concurrent writer and reader processes on one database");
  cli::Options app = line.options();
  app.Add("--writers", load.writers, "Writer processes");
  app.Add("--sessions", load.sessions, "Sessions per writer");
  app.Add("--batches", load.batches, "Durable appends per session");
  app.Add("--batch", load.batch, "Events per append");
  app.Add("--readers", load.readers, "Reader processes (audits and searches in a loop)");
  app.Add("--durability", load.durability, "full or normal").OneOf({"full", "normal"});
  AddBenchOptions(app, o);
  if (std::optional<int> rc = line.Parse(argc, argv)) return *rc;
  load.dir = o.dir + "/load";
  std::filesystem::remove_all(load.dir);
  std::filesystem::create_directories(load.dir);

  std::vector<log::EventRecord> events;
  const int64_t needed = static_cast<int64_t>(load.batches) * load.batch;
  GenerateLog("load", needed, 42, [&](const std::vector<log::EventRecord>& b) { events.insert(events.end(), b.begin(), b.end()); });
  events.resize(static_cast<size_t>(needed));
  if (!store::EventStore::Open(load.db(), {}).ok()) return 1;  // created once, before the race

  std::vector<pid_t> readers, writers;
  for (int r = 0; r < load.readers; ++r) {
    const pid_t pid = fork();
    if (pid == 0) _exit(Reader(load, r));
    readers.push_back(pid);
  }
  const double start = NowSeconds();
  for (int w = 0; w < load.writers; ++w) {
    const pid_t pid = fork();
    if (pid == 0) _exit(Writer(load, w, events));
    writers.push_back(pid);
  }
  int failures = 0;
  for (pid_t pid : writers) {
    int status = 0;
    waitpid(pid, &status, 0);
    failures += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  const double seconds = NowSeconds() - start;
  int64_t reader_ops = 0;
  for (size_t r = 0; r < readers.size(); ++r) {
    kill(readers[r], SIGTERM);
    int status = 0;
    waitpid(readers[r], &status, 0);
    failures += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    reader_ops += ReadNumber(load.dir + "/ops-" + std::to_string(r) + ".txt");
  }

  std::vector<int64_t> latencies;
  int64_t acknowledged = 0;
  for (int w = 0; w < load.writers; ++w) {
    std::ifstream lat(load.dir + "/lat-" + std::to_string(w) + ".txt");
    for (int64_t us; lat >> us;) latencies.push_back(us);
    acknowledged += ReadNumber(load.dir + "/ack-" + std::to_string(w) + ".txt");
  }
  int64_t stored = 0;
  auto s = store::EventStore::Open(load.db(), {.create = false});
  for (int w = 0; s.ok() && w < load.writers; ++w) {
    for (int i = 0; i < load.sessions; ++i) {
      auto summary = (*s)->Describe(SessionId(w, i));
      if (summary.ok()) stored += summary->events;
    }
  }
  std::sort(latencies.begin(), latencies.end());
  auto pct = [&](double p) {
    return latencies.empty() ? 0.0 : latencies[std::min(latencies.size() - 1, static_cast<size_t>(p * latencies.size()))] / 1e3;
  };
  std::printf("%d writers x %d sessions x %d appends of %d events (%s), %d readers\n", load.writers, load.sessions,
              load.batches, load.batch, load.durability.c_str(), load.readers);
  std::printf("appends            %zu in %.2f s: %.0f appends/s, %.0f events/s\n", latencies.size(), seconds,
              static_cast<double>(latencies.size()) / seconds, static_cast<double>(acknowledged) / seconds);
  std::printf("append latency     p50 %.2f ms, p99 %.2f ms, max %.2f ms\n", pct(0.50), pct(0.99),
              latencies.empty() ? 0.0 : latencies.back() / 1e3);
  std::printf("reader operations  %lld (%.0f/s) audits and searches\n", static_cast<long long>(reader_ops),
              static_cast<double>(reader_ops) / seconds);
  std::printf("acknowledged       %lld events, stored %lld, lost %lld; failed processes %d\n",
              static_cast<long long>(acknowledged), static_cast<long long>(stored),
              static_cast<long long>(acknowledged - std::min(stored, acknowledged)), failures);
  return (failures == 0 && stored >= acknowledged) ? 0 : 1;
}

}  // namespace
}  // namespace retrace::bench

int main(int argc, char** argv) { return retrace::bench::Main(argc, argv); }
