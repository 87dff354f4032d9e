// Packed chunk rows of the dsh JSONL backend (dsh-session-log §7.3):
// one storage line standing for a run of >= 3 assistant/chunk delta events.
//
//   {"type":"text-chunks"|"reasoning-chunks","seq0":S,"time0":T,
//    "data":{"turn","step","index","dt":[...],"texts":[...]}}
//   {"type":"tool-call-chunks","seq0":S,"time0":T,
//    "data":{"turn","step","index","dt":[...],"id","name"?,"args":[...]}}
//
// Member k is {type:'assistant/chunk', seq: seq0+k, time: time0+dt[0]+..+dt[k-1],
// data:{turn, step, chunk}}. Row tags are written to disk; never rename.
#ifndef RETRACE_FORMAT_CHUNK_ROWS_H_
#define RETRACE_FORMAT_CHUNK_ROWS_H_

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <retrace/engine/base/status.h>
#include <retrace/engine/json/value.h>
#include <retrace/engine/log/event_log.h>

namespace retrace::format {

// True when `type` is one of the three row tags.
bool IsChunkRowTag(std::string_view type);

// A run must have at least this many events to be packed. Format constant.
inline constexpr size_t kMinRun = 3;

// Encodes a batch for storage as dsh's packChunkRuns does: each run of >=
// kMinRun consecutive whitelisted same-kind, same-block delta chunks becomes
// one row; every other event keeps its own text. Returns the storage lines.
std::vector<std::string> PackChunkRuns(std::span<const log::EventRecord> batch);

// What a validated row says about its members, without expanding them.
struct PackedRow {
  std::string tag;  // text-chunks | reasoning-chunks | tool-call-chunks
  int64_t seq0 = 0;
  int64_t time0 = 0;
  int64_t count = 0;  // members
  std::vector<int64_t> times;  // each member's time
  json::Value turn;  // data.turn / data.step as written (numbers)
  json::Value step;
};

// Validates a parsed row with dsh's exact checks, in dsh's order, refusing any
// deviation with "malformed <tag> storage row: <why>".
Result<PackedRow> ParsePackedRow(const json::Value& row);

// The member events of a row ParsePackedRow accepted, each with its JSON text
// as dsh's JSON.stringify writes the unpacked event.
std::vector<log::EventRecord> ExpandPackedRow(const json::Value& row, const PackedRow& parsed);

// ParsePackedRow then ExpandPackedRow.
Result<std::vector<log::EventRecord>> DecodeChunkRow(const json::Value& row);

// The same from a row's stored text (Corruption naming the row's first seq).
Result<std::vector<log::EventRecord>> DecodeStoredChunkRow(std::string_view text, int64_t seq0);

}  // namespace retrace::format

#endif  // RETRACE_FORMAT_CHUNK_ROWS_H_
