// Event: the dsh v0 event envelope (dsh-session-log §2.2).
//
//   {type, seq, time, data, sourceEventSeqs?, surfaceOp?, ignorable?}
//
// Envelope field names are written to disk; never rename.
#ifndef RETRACE_ENGINE_LOG_EVENT_H_
#define RETRACE_ENGINE_LOG_EVENT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <retrace/engine/base/status.h>
#include <retrace/engine/json/value.h>

namespace retrace::log {

struct SurfaceOp {
  enum class Kind { kAppend, kReplace };
  Kind kind = Kind::kAppend;
  int64_t start = 0;  // kReplace only: first and last shadowed surface node (seqs)
  int64_t end = 0;
  bool operator==(const SurfaceOp&) const = default;
};

struct Event {
  std::string type;
  int64_t seq = 0;
  int64_t time = 0;
  json::Value data;
  std::optional<std::vector<int64_t>> source_event_seqs;
  std::optional<SurfaceOp> surface_op;
  bool ignorable = false;
};

// Key order used when serializing an envelope. Live appends write
// `type, seq, time, data, sourceEventSeqs?, surfaceOp?`; dsh's crash-repair
// closers write `type, seq, time, data, surfaceOp, sourceEventSeqs?` (§8.2).
enum class EnvelopeOrder { kLiveAppend, kRepairCloser };

// Reads the structure of an envelope value (§2.2): exactly the seven allowed
// keys, safe-integer seq >= 0 and time, data present, ignorable absent or
// true, a well-formed surfaceOp, sourceEventSeqs an array of integers >= 0.
// Consumes `envelope`. Type-dependent rules are CheckEnvelopeRules' job, since
// legacy import (legacy_import.h) may still change the type.
Result<Event> EventFromJson(json::Value envelope);

// Parses one event line and reads its envelope structure.
Result<Event> ParseEvent(std::string_view text);

// The type-dependent envelope rules: surface metadata only on surface-eligible
// types, a surfaceOp on every surface-eligible type, sourceEventSeqs unique,
// each earlier than the event and non-empty except on assistant/message.
Status CheckEnvelopeRules(const Event& event);

std::string SerializeEvent(const Event& event, EnvelopeOrder order = EnvelopeOrder::kLiveAppend);

}  // namespace retrace::log

#endif  // RETRACE_ENGINE_LOG_EVENT_H_
