// The events table's primary key: event_id = (sessions.id << 32) | seq, so
// the table is clustered by (session, seq). Written to disk; never change.
#ifndef RETRACE_STORE_EVENT_ID_H_
#define RETRACE_STORE_EVENT_ID_H_

#include <cstdint>

namespace retrace::store {

inline constexpr int kSeqBits = 32;
inline constexpr int64_t kMaxSeq = (int64_t{1} << kSeqBits) - 1;

constexpr int64_t EventId(int64_t session_key, int64_t seq) { return (session_key << kSeqBits) | seq; }

}  // namespace retrace::store

#endif  // RETRACE_STORE_EVENT_ID_H_
