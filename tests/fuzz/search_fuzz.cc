// Full-text search (query/search.h) over a real store built from three
// fixtures: any query text, filters, limit and cursor get a page or one of
// dsh's SESSION_QUERY_ errors — FTS5 syntax in a query is data, never an SQL
// error — and a page's own cursor always opens the next page.
#include <fuzzer/FuzzedDataProvider.h>
#include <stdlib.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "query/search.h"
#include "store/event_store.h"
#include "store/importer.h"

namespace {

using retrace::query::ReadOnlyDb;
using retrace::query::SearchRequest;

std::string BuildStore() {
  char dir[] = "/tmp/retrace-fuzz-search-XXXXXX";
  if (!mkdtemp(dir)) std::abort();
  const std::string path = std::string(dir) + "/s.db";
  auto store = retrace::store::EventStore::Open(path, {});
  if (!store.ok()) std::abort();
  for (const char* f : {"c01-fs-read.jsonl", "c04-bash-jobs.jsonl", "c06-errors-policy.jsonl"}) {
    if (!retrace::store::ImportJsonl(**store, std::string(RETRACE_FIXTURE_DIR) + "/" + f).ok()) std::abort();
  }
  if (!(*store)->CatchUpSearchIndex().ok()) std::abort();
  return path;
}

ReadOnlyDb& Db() {
  static ReadOnlyDb* db = [] {
    auto opened = ReadOnlyDb::Open(BuildStore());
    if (!opened.ok()) std::abort();
    return new ReadOnlyDb(std::move(opened).value());
  }();
  return *db;
}

void CheckError(const retrace::Status& status) {
  if (status.message().rfind("SESSION_QUERY_", 0) != 0) std::abort();  // dsh's codes, not SQLite's
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  SearchRequest request;
  request.limit = in.ConsumeIntegralInRange<int64_t>(-1, 101);
  if (in.ConsumeBool()) request.session = in.PickValueInArray({"c01-fs-read", "no-such-session", ""});
  if (in.ConsumeBool()) request.types.push_back(in.ConsumeRandomLengthString(32));
  if (in.ConsumeBool()) request.surfaces.push_back(in.PickValueInArray({"current", "shadowed", "log-only", "other"}));
  const bool with_cursor = in.ConsumeBool();
  request.query = in.ConsumeRandomLengthString(256);
  if (with_cursor) request.cursor = in.ConsumeRemainingBytesAsString();

  auto page = retrace::query::Search(Db(), request);
  if (!page.ok()) {
    CheckError(page.status());
    return 0;
  }
  if (page->next_cursor) {
    request.cursor = page->next_cursor;
    auto next = retrace::query::Search(Db(), request);
    if (!next.ok()) std::abort();  // a cursor this search issued opens the next page
  }
  return 0;
}
