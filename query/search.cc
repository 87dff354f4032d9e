#include "query/search.h"

#include <algorithm>
#include <cstring>

#include "engine/json/js_text.h"
#include "engine/json/parser.h"
#include "engine/json/writer.h"
#include "store/event_id.h"
#include "store/read_model.h"

namespace retrace::query {
namespace {

using json::Value;

constexpr std::string_view kOpen = "\xEF\xB7\x90";   // U+FDD0, highlight() start marker
constexpr std::string_view kClose = "\xEF\xB7\x91";  // U+FDD1, end marker
constexpr size_t kMaxBindings = 32766;               // SQLite's portable binding limit

Status QueryError(const char* code, const std::string& message) {
  return Status::InvalidArgument(std::string("SESSION_QUERY_") + code + ": " + message);
}

// --- base64url ------------------------------------------------------------------

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string Base64Url(std::string_view in) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (unsigned char c : in) {
    acc = (acc << 8) | c;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out += kAlphabet[(acc >> bits) & 63];
    }
  }
  if (bits > 0) out += kAlphabet[(acc << (6 - bits)) & 63];
  return out;
}

std::optional<std::string> FromBase64Url(std::string_view in) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    const char* p = std::strchr(kAlphabet, c);
    if (!p || c == '\0') return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(p - kAlphabet);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xFF);
    }
  }
  return out;
}

// --- request identity ------------------------------------------------------------

std::vector<std::string> Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

Value Strings(const std::vector<std::string>& v) {
  Value::Array a;
  for (const std::string& s : v) a.emplace_back(s);
  return Value(std::move(a));
}

std::string Fingerprint(const SearchRequest& r, const std::string& query, int64_t limit) {
  Value v = Value::MakeObject({{"scope", r.session ? "events" : "sessions"}});
  if (r.session) v.Set("sessionId", *r.session);
  v.Set("query", query);
  v.Set("types", Strings(Sorted(r.types)));
  v.Set("surfaces", Strings(Sorted(r.surfaces)));
  v.Set("limit", limit);
  return json::Serialize(v);
}

std::string EncodeCursor(const std::string& scope, const std::string& fingerprint, const std::string& generation,
                         int64_t offset) {
  return Base64Url(json::Serialize(Value::MakeObject({{"version", 1},
                                                      {"scope", scope},
                                                      {"fingerprint", fingerprint},
                                                      {"generation", generation},
                                                      {"offset", offset}})));
}

// The offset a cursor stands for, after checking it belongs to this request and index state.
Result<int64_t> DecodeCursor(const std::string& cursor, const std::string& scope, const std::string& fingerprint,
                             const std::string& generation) {
  const Status invalid = QueryError("INVALID_CURSOR", "the cursor is not one this search issued");
  std::optional<std::string> text = FromBase64Url(cursor);
  if (!text) return invalid;
  Result<Value> v = json::Parse(*text);
  if (!v.ok() || !v->is_object()) return invalid;
  const Value* version = v->Find("version");
  const Value* s = v->Find("scope");
  const Value* f = v->Find("fingerprint");
  const Value* g = v->Find("generation");
  const Value* o = v->Find("offset");
  if (!version || !version->is_number() || version->as_number() != 1 || !s || !s->is_string() || !f || !f->is_string() ||
      !g || !g->is_string() || !o || !o->is_safe_integer() || o->as_number() < 0) {
    return invalid;
  }
  if (s->as_string() != scope || f->as_string() != fingerprint) {
    return QueryError("INVALID_CURSOR", "the cursor belongs to a different search (query, filters or limit changed)");
  }
  if (g->as_string() != generation) {
    return Status::Conflict("SESSION_QUERY_STALE_CURSOR: the index changed since this cursor was issued; search again");
  }
  return static_cast<int64_t>(o->as_number());
}

// --- SQL ---------------------------------------------------------------------------

int64_t IntCell(const SqlCell& c) {
  const auto* i = std::get_if<int64_t>(&c);
  return i ? *i : 0;
}
std::string TextCell(const SqlCell& c) {
  const auto* s = std::get_if<std::string>(&c);
  return s ? *s : std::string();
}

Result<std::string> Generation(ReadOnlyDb& db, std::optional<int64_t> session_key) {
  std::vector<store::SqlValue> p;
  if (session_key) p.push_back(*session_key);
  // What is indexed (the index has caught up) and how much was shadowed: both
  // only grow, so any change to the searchable state changes the generation.
  const std::string sql =
      session_key ? "SELECT (SELECT COALESCE(MAX(indexed_through), 0) FROM search_progress WHERE session = ?1),"
                    " (SELECT COUNT(*) FROM replacements WHERE session = ?1)"
                  : "SELECT (SELECT COALESCE(SUM(" + store::SeqOfSql("indexed_through") + "), 0) FROM search_progress),"
                    " (SELECT COUNT(*) FROM replacements)";
  ASSIGN_OR_RETURN(QueryTable t, db.Run(sql, p));
  return "docs:" + std::to_string(IntCell(t.rows[0][0])) + ";replacements:" + std::to_string(IntCell(t.rows[0][1]));
}

// "col IN (?, ?)" for a list filter.
std::string InList(const char* column, const std::vector<std::string>& values, std::vector<store::SqlValue>& params) {
  std::string sql = std::string(" AND ") + column + " IN (";
  for (size_t i = 0; i < values.size(); ++i) {
    sql += i ? ", ?" : "?";
    params.push_back(values[i]);
  }
  return sql + ")";
}

}  // namespace

Result<std::string> NormalizeQuery(std::string_view raw) {
  const std::string_view trimmed = json::JsTrim(raw);
  std::string query;
  bool space = false;
  for (size_t i = 0; i < trimmed.size();) {
    auto [cp, len] = json::CodePointAt(trimmed, i);
    if (json::IsJsSpace(cp)) {
      space = true;
    } else {
      if (space) query += ' ';
      space = false;
      query.append(trimmed.substr(i, len));
    }
    i += len;
  }
  if (query.empty()) return QueryError("INVALID_QUERY", "the query must contain non-whitespace text");
  if (query.find('\0') != std::string::npos) return QueryError("INVALID_QUERY", "the query must not contain NUL");
  return store::SanitizeSearchText(std::move(query));
}

std::string MakeSnippet(std::string_view marked, int64_t max_chars) {
  // Code points with markers dropped and whitespace runs folded to one space.
  std::vector<std::string_view> chars;
  std::optional<size_t> match_start;
  for (size_t i = 0; i < marked.size();) {
    auto [cp, len] = json::CodePointAt(marked, i);
    const std::string_view c = marked.substr(i, len);
    i += len;
    if (c == kOpen) {
      if (!match_start) match_start = chars.size();
      continue;
    }
    if (c == kClose) continue;
    if (json::IsJsSpace(cp)) {
      if (!chars.empty() && chars.back() != " ") chars.push_back(" ");
    } else {
      chars.push_back(c);
    }
  }
  if (!chars.empty() && chars.back() == " ") chars.pop_back();
  auto join = [&](size_t from, size_t to) {
    std::string out;
    for (size_t k = from; k < to; ++k) out += chars[k];
    return out;
  };
  const auto len = static_cast<int64_t>(chars.size());
  if (len <= max_chars) return join(0, chars.size());
  if (max_chars == 1) return "…";
  const int64_t m = std::min<int64_t>(static_cast<int64_t>(match_start.value_or(0)), len - 1);
  int64_t start = std::max<int64_t>(0, m - max_chars / 3);
  const std::string prefix = start > 0 ? "…" : "";
  std::string suffix = "…";
  int64_t room = max_chars - (prefix.empty() ? 0 : 1) - 1;
  if (room < 1) {
    start = m;
    suffix.clear();
    room = max_chars - (prefix.empty() ? 0 : 1);
  } else if (m >= start + room) {
    start = m - room + 1;
  }
  if (std::min(len, start + room) == len) {
    suffix.clear();
    room = max_chars - (prefix.empty() ? 0 : 1);
    start = std::max<int64_t>(0, len - room);
  }
  const int64_t end = std::min(len, start + room);
  return prefix + join(static_cast<size_t>(start), static_cast<size_t>(end)) + suffix;
}

Result<SearchPage> Search(ReadOnlyDb& db, const SearchRequest& r, const std::function<bool()>& interrupt,
                          IndexLag lag) {
  ASSIGN_OR_RETURN(std::string query, NormalizeQuery(r.query));
  const int64_t limit = r.limit.value_or(kSearchDefaultLimit);
  if (limit < 1 || limit > kSearchMaxLimit) {
    return QueryError("INVALID_LIMIT", "limit must be an integer between 1 and " + std::to_string(kSearchMaxLimit));
  }
  for (const std::string& s : r.surfaces) {
    if (s != "current" && s != "shadowed" && s != "log-only") {
      return QueryError("INVALID_FILTER", "unknown surface \"" + s + "\" (current, shadowed or log-only)");
    }
  }
  if (r.types.size() + r.surfaces.size() + 4 > kMaxBindings) {
    return QueryError("INVALID_FILTER", "too many filter values (SQLite binds at most " + std::to_string(kMaxBindings) + ")");
  }
  ASSIGN_OR_RETURN(bool behind, store::SearchIndexBehind(db.db()));
  if (behind && lag == IndexLag::kRefused) {
    return Status::FailedPrecondition("the search index is behind its documents: bring it up to date first"
                                      " (EventStore::CatchUpSearchIndex, or `retrace index`)");
  }
  std::optional<int64_t> session_key;
  if (r.session) {
    const store::SqlValue id[] = {*r.session};
    ASSIGN_OR_RETURN(QueryTable t, db.Run("SELECT id FROM sessions WHERE session_id = ?", id));
    if (t.rows.empty()) return Status::NotFound("SESSION_QUERY_SESSION_NOT_FOUND: session \"" + *r.session + "\" not found");
    session_key = IntCell(t.rows[0][0]);
  }
  const std::string scope = r.session ? "events" : "sessions";
  const std::string fingerprint = Fingerprint(r, query, limit);
  ASSIGN_OR_RETURN(std::string generation, Generation(db, session_key));
  int64_t offset = 0;
  if (r.cursor) {
    ASSIGN_OR_RETURN(offset, DecodeCursor(*r.cursor, scope, fingerprint, generation));
  }

  // FTS syntax in the query is data: one quoted phrase, quotes doubled.
  std::string phrase = "\"";
  for (char c : query) phrase += c == '"' ? std::string("\"\"") : std::string(1, c);
  phrase += '"';
  std::vector<store::SqlValue> params = {phrase};
  std::string where;
  if (session_key) {
    where += " AND d.session = ?";
    params.push_back(*session_key);
  }
  if (!r.types.empty()) where += InList("d.type", r.types, params);
  if (!r.surfaces.empty()) where += InList("d.surface", r.surfaces, params);
  // Rank every match by retrace_match_count (positions only); build the
  // highlighted text for the rows of this page alone.
  std::string sql =
      "WITH counted AS (SELECT d.id AS id, s.session_id AS session_id, d.seq AS seq, d.type AS type, d.time AS time,"
      " d.surface AS surface, d.codepoint_length AS document_length, retrace_match_count(search_fts) AS match_count"
      " FROM search_fts JOIN search_docs d ON d.id = search_fts.rowid JOIN sessions s ON s.id = d.session"
      " WHERE search_fts MATCH ?" + where + ")";
  if (session_key) {
    sql += " SELECT id, session_id, seq, type, time, surface, match_count FROM counted"
           " ORDER BY match_count DESC, document_length ASC, time DESC, seq DESC LIMIT ? OFFSET ?";
  } else {
    sql += ", ranked AS (SELECT *, ROW_NUMBER() OVER (PARTITION BY session_id"
           " ORDER BY match_count DESC, document_length ASC, time DESC, seq DESC) AS event_rank FROM counted)"
           " SELECT id, session_id, seq, type, time, surface, match_count FROM ranked WHERE event_rank = 1"
           " ORDER BY match_count DESC, document_length ASC, time DESC, session_id ASC, seq DESC LIMIT ? OFFSET ?";
  }
  params.push_back(limit + 1);  // one more than a page tells whether another page exists
  params.push_back(offset);
  ASSIGN_OR_RETURN(QueryTable t, db.Run(sql, params, interrupt));
  SearchPage page;
  for (size_t i = 0; i < t.rows.size() && static_cast<int64_t>(i) < limit; ++i) {
    const auto& row = t.rows[i];
    const store::SqlValue at[] = {phrase, IntCell(row[0])};
    ASSIGN_OR_RETURN(QueryTable marked, db.Run("SELECT highlight(search_fts, 0, char(64976), char(64977)) FROM search_fts"
                                               " WHERE search_fts MATCH ? AND rowid = ?", at, interrupt));
    page.hits.push_back({TextCell(row[1]), IntCell(row[2]), TextCell(row[3]), IntCell(row[4]), TextCell(row[5]),
                         IntCell(row[6]), MakeSnippet(marked.rows.empty() ? "" : TextCell(marked.rows[0][0]), kSnippetChars)});
  }
  if (static_cast<int64_t>(t.rows.size()) > limit) page.next_cursor = EncodeCursor(scope, fingerprint, generation, offset + limit);
  return page;
}

}  // namespace retrace::query
