// Benchmark harness: runs each case in a child process so its peak memory is
// its own (ru_maxrss from wait4), best of N repetitions.
#ifndef RETRACE_BENCH_MEASURE_H_
#define RETRACE_BENCH_MEASURE_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace retrace::bench {

struct Sample {
  bool ok = false;
  double seconds = 0;     // as measured inside the child (excludes process start)
  double peak_rss_mb = 0;
  std::string output;     // what the child reported (commands: their stdout)
};

// Forks; the child runs `body`, which returns the seconds to report (or < 0 on failure).
Sample RunInChild(const std::function<double()>& body);

// Forks; the child runs `body` and the parent gets what it returned (nullopt
// when the child failed). For a benchmark's set-up: the cases' children are
// forked from the parent, and a heap the parent had grown for the set-up would
// be theirs too, each page copied on its first write (fork's copy-on-write),
// which cost a replay from the store 90 ms on this machine.
std::optional<std::string> OutputOfChild(const std::function<std::string()>& body);

// Runs a command; it must print the seconds it measured as its first stdout token.
Sample RunCommand(const std::vector<std::string>& argv);

// The best (fastest) of `reps` samples, each started after sync(); failures are skipped.
Sample Best(int reps, const std::function<Sample()>& run);
// The same for several cases, run in turn, one sample of each per round, so
// that a slow spell of the machine falls on every case alike, not on the one
// that happened to run then: the ratios between cases stay fair.
std::vector<Sample> BestInRounds(int reps, const std::vector<std::function<Sample()>>& cases);

double NowSeconds();

// Deletes a SQLite database and its -wal, -shm and retrace -lock files.
void RemoveDatabase(const std::string& path);

// A whole file's bytes ("" when it cannot be read), and a file written with
// `text` (the benchmarks' outputs, compared after the timed part).
std::string ReadFileText(const std::string& path);
void WriteFileText(const std::string& path, const std::string& text);

}  // namespace retrace::bench

#endif  // RETRACE_BENCH_MEASURE_H_
