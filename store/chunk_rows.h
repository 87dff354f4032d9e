// Packed chunk rows of the dsh JSONL backend (spec/dsh-session-log.md §7.3):
// one storage line standing for a run of >= 3 assistant/chunk delta events.
//
//   {"type":"text-chunks"|"reasoning-chunks","seq0":S,"time0":T,
//    "data":{"turn","step","index","dt":[...],"texts":[...]}}
//   {"type":"tool-call-chunks","seq0":S,"time0":T,
//    "data":{"turn","step","index","dt":[...],"id","name"?,"args":[...]}}
//
// Member k is {type:'assistant/chunk', seq: seq0+k, time: time0+dt[0]+..+dt[k-1],
// data:{turn, step, chunk}}. Row tags are written to disk; never rename.
#ifndef RETRACE_STORE_CHUNK_ROWS_H_
#define RETRACE_STORE_CHUNK_ROWS_H_

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"
#include "engine/json/value.h"
#include "engine/log/event_log.h"

namespace retrace::store {

// True when `type` is one of the three row tags.
bool IsChunkRowTag(std::string_view type);

// A run must have at least this many events to be packed. Format constant.
inline constexpr size_t kMinRun = 3;

// Encodes a batch for storage as dsh's packChunkRuns does: each run of >=
// kMinRun consecutive whitelisted same-kind, same-block delta chunks becomes
// one row; every other event keeps its own text. Returns the storage lines.
std::vector<std::string> PackChunkRuns(std::span<const log::EventRecord> batch);

// Decodes a parsed row into its member events, each with its JSON text as
// dsh's JSON.stringify would write the unpacked event (left empty when
// `with_text` is false: the row is the members' stored truth). Refuses any
// deviation from the exact row shape with "malformed <tag> storage row: <why>".
Result<std::vector<log::EventRecord>> DecodeChunkRow(const json::Value& row, bool with_text = true);

}  // namespace retrace::store

#endif  // RETRACE_STORE_CHUNK_ROWS_H_
