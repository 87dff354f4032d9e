// Command-line options every benchmark program shares.
#ifndef RETRACE_BENCH_BENCH_OPTIONS_H_
#define RETRACE_BENCH_BENCH_OPTIONS_H_

#include <string>

#include "frontends/cli/options.h"

namespace retrace::bench {

struct BenchOptions {
  int reps = 3;                   // repetitions per case; the best is reported
  std::string dir = "bench/out";  // work directory
  std::string node;               // Node 22 binary, for the upstream side (bench/setup_upstream.sh)
  std::string upstream;           // directory holding node_modules/@deepseek-ai/...
};

inline void AddBenchOptions(cli::Options app, BenchOptions& o) {
  app.Add("--reps", o.reps, "Repetitions per case (the best is reported)");
  app.Add("--dir", o.dir, "Work directory");
  app.Add("--node", o.node, "Node 22 binary for the upstream comparison (see bench/setup_upstream.sh)");
  app.Add("--upstream", o.upstream, "Directory with node_modules of the dsh packages");
}

}  // namespace retrace::bench

#endif  // RETRACE_BENCH_BENCH_OPTIONS_H_
