// Full-text search over the read model's documents, with dsh's query-service
// semantics (dsh-session-log §10.3):
//
// - The query is one literal phrase: trimmed, whitespace runs folded to one
//   space, NUL refused, U+FDD0/U+FDD1 replaced, then quoted for FTS5, so FTS
//   syntax (OR, NEAR, *, quotes) is data. unicode61 tokens, not substrings.
// - Hits rank by match count (phrase occurrences) desc, document length asc,
//   time desc, seq desc; across sessions each session's best hit stands for
//   it, and sessions rank the same way, then by session id.
// - Snippets: at most `snippet_chars` code points around the first match.
// - Pages are OFFSET-based behind an opaque cursor bound to the request and
//   to the index generation: another request's cursor is INVALID_CURSOR, a
//   cursor from before the index changed is STALE_CURSOR.
// Errors carry dsh's codes as a message prefix ("SESSION_QUERY_INVALID_LIMIT: …").
#ifndef RETRACE_QUERY_SEARCH_H_
#define RETRACE_QUERY_SEARCH_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "query/sql_query.h"

namespace retrace::query {

inline constexpr int64_t kSearchDefaultLimit = 20;
inline constexpr int64_t kSearchMaxLimit = 100;
inline constexpr int64_t kSnippetChars = 240;

struct SearchRequest {
  std::string query{};
  std::optional<std::string> session{};  // search within this session; otherwise best hit per session
  std::vector<std::string> types{};      // event types (any of); empty: all
  std::vector<std::string> surfaces{};   // current | shadowed | log-only (any of); empty: all
  std::optional<int64_t> limit{};        // 1..100, default 20
  std::optional<std::string> cursor{};   // from a previous page of the same request
};

struct SearchHit {
  std::string session_id;
  int64_t seq = 0;
  std::string type;
  int64_t time = 0;
  std::string surface;
  int64_t match_count = 0;
  std::string snippet;
};

struct SearchPage {
  std::vector<SearchHit> hits;
  std::optional<std::string> next_cursor;
};

// Whether the index must cover every document of the snapshot searched.
enum class IndexLag {
  kRefused,  // FailedPrecondition when it does not: never a silently partial answer
  // The caller has just caught the index up (service/search.h): documents
  // appended since by other processes are newer than the search, as if
  // they had come a moment later, and their lag is not refused.
  kAfterCatchUp,
};

// REQUIRES: the FTS5 index has caught up (EventStore::CatchUpSearchIndex).
Result<SearchPage> Search(ReadOnlyDb& db, const SearchRequest& request, const std::function<bool()>& interrupt = {},
                          IndexLag lag = IndexLag::kRefused);

// dsh's snippet of a document with highlight markers (U+FDD0 … U+FDD1).
std::string MakeSnippet(std::string_view marked_text, int64_t max_chars);

// dsh's query normalization; an INVALID_QUERY error for blank or NUL queries.
Result<std::string> NormalizeQuery(std::string_view query);

}  // namespace retrace::query

#endif  // RETRACE_QUERY_SEARCH_H_
