// Generates realistic, valid dsh v0 session logs for benchmarks: turns of
// several steps, each with reasoning/text/tool-call delta chunks (written as
// packed rows, one write batch per step as dsh's 200 ms window would), an
// assistant message citing its chunks, and tool calls whose results carry
// several KB of text. Deterministic for a given seed.
#ifndef RETRACE_BENCH_LOG_GENERATOR_H_
#define RETRACE_BENCH_LOG_GENERATOR_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/log/event_log.h"
#include "engine/log/session_header.h"

namespace retrace::bench {

struct GeneratedLog {
  std::string header_line;
  int64_t events = 0;
  int64_t tool_calls = 0;
  uint64_t bytes = 0;  // logical JSONL bytes, header included
};

// The header of every generated log for `session_id`.
log::SessionHeader GeneratedHeader(const std::string& session_id);

// Streams a log of at least `min_events` events: `batch` receives each write
// batch (one step) as events. With `read_cards`, read results are what
// dsh-tool-fs writes (the <path>…</content> envelope, and meta with the lines
// and lang), so replay builds real read cards; without it (the import and
// append benchmarks), results are plain numbered text with a small meta.
GeneratedLog GenerateLog(const std::string& session_id, int64_t min_events, uint64_t seed,
                         const std::function<void(const std::vector<log::EventRecord>&)>& batch,
                         bool read_cards = false);

// Writes the generated log as raw JSONL to `path`.
GeneratedLog WriteGeneratedLog(const std::string& path, const std::string& session_id, int64_t min_events,
                               uint64_t seed = 42, bool read_cards = false);

// WriteGeneratedLog, then `then` (an import, say; false fails), in a child
// process (measure.h, OutputOfChild): the benchmark's own heap stays small, so
// the cases it forks later do not copy it. nullopt when either failed.
std::optional<GeneratedLog> WriteGeneratedLogInChild(const std::string& path, const std::string& session_id,
                                                     int64_t min_events, uint64_t seed = 42, bool read_cards = false,
                                                     const std::function<bool()>& then = {});

}  // namespace retrace::bench

#endif  // RETRACE_BENCH_LOG_GENERATOR_H_
