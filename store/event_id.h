// The events table's primary key: event_id = (sessions.id << 32) | seq, so
// the table is clustered by (session, seq); search_docs ids use the same key.
// Written to disk; never change. This header is the only place that knows
// the layout: C++ builds keys with EventId, SQL text with the *Sql helpers.
#ifndef RETRACE_STORE_EVENT_ID_H_
#define RETRACE_STORE_EVENT_ID_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace retrace::store {

inline constexpr int kSeqBits = 32;
inline constexpr int64_t kMaxSeq = (int64_t{1} << kSeqBits) - 1;

constexpr int64_t EventId(int64_t session_key, int64_t seq) { return (session_key << kSeqBits) | seq; }

// The key of (`key`, `seq`), two SQL expressions.
inline std::string EventIdSql(std::string_view key, std::string_view seq) {
  return "((" + std::string(key) + ") << " + std::to_string(kSeqBits) + " | (" + std::string(seq) + "))";
}

// "`column` BETWEEN first AND last key of session `key`": the session's rows
// as one range of the clustered key.
inline std::string SessionRangeSql(std::string_view column, std::string_view key) {
  return std::string(column) + " BETWEEN " + EventIdSql(key, "0") + " AND " + EventIdSql(key, std::to_string(kMaxSeq));
}

// The seq part of the key `column`.
inline std::string SeqOfSql(std::string_view column) {
  return "(" + std::string(column) + " & " + std::to_string(kMaxSeq) + ")";
}

}  // namespace retrace::store

#endif  // RETRACE_STORE_EVENT_ID_H_
