// Catalog: a retrace database and the sessions in it, as every front end
// (the CLI and MCP now; ACP and the web viewer next) opens and names them. The
// front ends hand it what only they may read — the database path from their
// flags or environment, the wall clock — and call the use cases below it
// (service/replay.h) instead of composing the store themselves.
#ifndef RETRACE_SERVICE_CATALOG_H_
#define RETRACE_SERVICE_CATALOG_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "engine/json/value.h"
#include "store/event_source.h"
#include "store/event_store.h"

namespace retrace::service {

struct CatalogOptions {
  std::string db_path;
  store::Durability durability = store::Durability::kFull;
  // Stamps the migration ledger (Unix ms): the front end's clock.
  std::function<int64_t()> now_ms = [] { return int64_t{0}; };
};

class Catalog {
 public:
  explicit Catalog(CatalogOptions options) : options_(std::move(options)) {}

  const std::string& db_path() const { return options_.db_path; }

  // Opens the database: `create` makes a new one when there is none,
  // `migrate` applies pending migrations to an existing one.
  Result<std::unique_ptr<store::EventStore>> Open(bool create = true, bool migrate = false) const;

  // What a replay names (store::EventSource::Resolve): a log file, or a
  // session of this database (opened only then, never created).
  Result<store::EventSource> Resolve(const std::string& name) const;

  // The sessions, newest first. NotFound when there is no database.
  Result<std::vector<store::SessionSummary>> Sessions() const;

 private:
  CatalogOptions options_;
};

// A session summary as JSON: {id, createdAt, cwd, parentSession?, events,
// turns, toolCalls} (what `retrace sessions --json` prints).
json::Value SessionJson(const store::SessionSummary& s);

}  // namespace retrace::service

#endif  // RETRACE_SERVICE_CATALOG_H_
