// Catalog: a retrace database and the sessions in it, as every front end
// (cli, mcp, acp) opens and names them. The front ends hand it what only they
// may read — the database's location from their flags or environment, the
// wall clock — and call the use cases of service/ with it instead of
// composing the store themselves. Open() is the one place a location becomes
// a store: a second backend plugs in there.
#ifndef RETRACE_SERVICE_CATALOG_H_
#define RETRACE_SERVICE_CATALOG_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "engine/json/value.h"
#include "query/sql_query.h"
#include "store/event_source.h"
#include "store/event_store.h"

namespace retrace::service {

struct CatalogOptions {
  std::string db_path;
  store::Durability durability = store::Durability::kFull;
  // Stamps the migration ledger (Unix ms): the front end's clock.
  std::function<int64_t()> now_ms = [] { return int64_t{0}; };
};

// How a use case opens the database.
enum class Access {
  kCreate,    // an existing database, or a new one made when there is none (writers)
  kExisting,  // an existing database at this binary's schema version; NotFound when there is none
  kMigrate,   // as kCreate, with pending migrations applied to an existing one first
};

struct SessionQuery {
  std::optional<std::string> cwd;    // only sessions recorded there (trailing slashes aside)
  std::optional<std::string> after;  // continue after this session id
  size_t limit = 100;
};

struct SessionListing {
  store::SessionSummary summary;
  std::optional<std::string> title;  // engine/log/session_title.h; nullopt while it has none
};

struct SessionPage {
  std::vector<SessionListing> sessions;
  bool more = false;  // sessions follow the last one listed
};

class Catalog {
 public:
  explicit Catalog(CatalogOptions options) : options_(std::move(options)) {}

  const std::string& db_path() const { return options_.db_path; }
  store::Durability durability() const { return options_.durability; }

  // Opens the database for `access`. A database that needs migrating is
  // refused with the hint to run `retrace migrate` (Unsupported), one from a
  // newer retrace too.
  Result<std::unique_ptr<store::EventStore>> Open(Access access) const;
  // Opens an existing database read-only, for SQL over its views (queries,
  // audits, search): SQLite refuses writes, and query/sql_query.h refuses
  // them by name first.
  Result<query::ReadOnlyDb> OpenReadOnly() const;

  // What a replay names (store::EventSource::Resolve): a log file, or a
  // session of this database (opened only then, never created).
  Result<store::EventSource> Resolve(const std::string& name) const;

  // The sessions, newest first. NotFound when there is no database.
  Result<std::vector<store::SessionSummary>> Sessions() const;

  // A page of the sessions a picker lists (ACP's session/list, the web
  // viewer's index), newest first, each with its title. InvalidArgument when
  // `after` names no session listed. No database is an empty list: a
  // picker has nothing to show yet.
  Result<SessionPage> List(const SessionQuery& query) const;

  // One session's summary; NotFound when there is none (or no database).
  Result<store::SessionSummary> Describe(const std::string& session_id) const;

  // A stored session of this database by id — never a file, whatever the id
  // looks like (a front end's peer names it). NotFound when there is none.
  Result<store::EventSource> Stored(const std::string& session_id) const;

 private:
  CatalogOptions options_;
};

// A session summary as JSON: {id, createdAt, cwd, parentSession?, events,
// turns, toolCalls} (what `retrace sessions --json` prints).
json::Value SessionJson(const store::SessionSummary& s);
// The same, with "title" (null while it has none).
json::Value SessionJson(const SessionListing& s);

}  // namespace retrace::service

#endif  // RETRACE_SERVICE_CATALOG_H_
