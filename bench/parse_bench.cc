// parse_bench: parsing one JSON object of many keys, with both parsers.
//
// A store that reads untrusted logs must parse any shape in near-linear time.
// Each case parses an object of N keys (one dsh-sized line per N), with and
// without repeated keys (the slow path: JS order and last-value-wins). Time
// per key that stays flat as N grows is linear parsing; quadratic parsing
// quadruples its total time each time N doubles.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "bench/bench_options.h"
#include "bench/measure.h"
#include "engine/json/parser.h"
#include "format/fast_json_parser.h"

namespace retrace::bench {
namespace {

// `{"k0":0,"k1":1,...}`; with `repeats`, every fourth key repeats an earlier one.
std::string WideObject(int keys, bool repeats) {
  std::string text = "{";
  for (int i = 0; i < keys; ++i) {
    if (i) text += ',';
    const int name = repeats && i % 4 == 3 ? i / 2 : i;
    text += "\"k" + std::to_string(name) + "\":" + std::to_string(i);
  }
  return text + "}";
}

double TimeParse(const std::string& text, bool fast, int times) {
  format::FastJsonParser parser;
  const double start = NowSeconds();
  for (int i = 0; i < times; ++i) {
    Result<json::Value> v = fast ? parser.Parse(text) : json::Parse(text);
    if (!v.ok()) return -1;
  }
  return (NowSeconds() - start) / times;
}

}  // namespace
}  // namespace retrace::bench

int main(int argc, char** argv) {
  using namespace retrace::bench;
  retrace::cli::CommandLine line("Parse one wide JSON object with both parsers, at several sizes");
  retrace::cli::Options app = line.options();
  BenchOptions options;
  AddBenchOptions(app, options);
  if (std::optional<int> rc = line.Parse(argc, argv)) return *rc;
  std::printf("%-10s %-8s %-9s %10s %12s %10s\n", "parser", "keys", "repeats", "bytes", "ms", "ns/key");
  for (bool fast : {false, true}) {
    for (bool repeats : {false, true}) {
      for (int keys : {10000, 20000, 40000}) {
        const std::string text = WideObject(keys, repeats);
        const int times = 5;
        Sample s = Best(options.reps, [&] { return RunInChild([&] { return TimeParse(text, fast, times); }); });
        std::printf("%-10s %-8d %-9s %10zu %12.2f %10.1f\n", fast ? "simdjson" : "retrace", keys,
                    repeats ? "yes" : "no", text.size(), s.seconds * 1e3, s.seconds * 1e9 / keys);
      }
    }
  }
  return 0;
}
