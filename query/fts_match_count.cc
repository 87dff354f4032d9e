#include "query/fts_match_count.h"

#include <sqlite3.h>

#include <algorithm>

namespace retrace::query {
namespace {

// Instances come in position order; a new span starts where an instance begins
// after the current span's last token (highlight()'s merging rule).
void MatchCount(const Fts5ExtensionApi* api, Fts5Context* fts, sqlite3_context* ctx, int, sqlite3_value**) {
  int instances = 0;
  if (api->xInstCount(fts, &instances) != SQLITE_OK) {
    sqlite3_result_error(ctx, "retrace_match_count: cannot read phrase instances", -1);
    return;
  }
  int spans = 0, span_end = -1;
  for (int i = 0; i < instances; ++i) {
    int phrase = 0, column = 0, offset = 0;
    if (api->xInst(fts, i, &phrase, &column, &offset) != SQLITE_OK) continue;
    const int end = offset + api->xPhraseSize(fts, phrase) - 1;
    if (spans == 0 || offset > span_end) {
      ++spans;
      span_end = end;
    } else {
      span_end = std::max(span_end, end);
    }
  }
  sqlite3_result_int(ctx, spans);
}

}  // namespace

Status RegisterMatchCount(store::Db& db) {
  fts5_api* api = nullptr;
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db.get(), "SELECT fts5(?1)", -1, &st, nullptr) != SQLITE_OK) return db.Error("fts5 lookup");
  sqlite3_bind_pointer(st, 1, static_cast<void*>(&api), "fts5_api_ptr", nullptr);
  sqlite3_step(st);
  sqlite3_finalize(st);
  if (api == nullptr) return Status::Unsupported("this SQLite has no FTS5");
  if (api->xCreateFunction(api, "retrace_match_count", nullptr, MatchCount, nullptr) != SQLITE_OK) {
    return db.Error("registering retrace_match_count");
  }
  return Status::Ok();
}

}  // namespace retrace::query
