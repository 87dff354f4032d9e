// Migrate, the use case: a database's schema version and pending migrations,
// applying them behind a backup, and rewriting a copy with every payload
// upcast — kept only when every session replays to the same cards
// (`retrace migrate`; migrations/README.md).
#ifndef RETRACE_SERVICE_MIGRATE_H_
#define RETRACE_SERVICE_MIGRATE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "presenters/presenter.h"
#include "service/catalog.h"

namespace retrace::service {

struct PendingMigration {
  int version = 0;
  std::string name;
  std::string checksum;
};

struct SchemaStatus {
  int current_version = 0;
  bool fresh = false;  // not initialized yet
  int known_version = 0;  // the newest this build knows
  std::vector<PendingMigration> pending;
};

// Reads the schema state without changing anything (the database is opened read-only).
Result<SchemaStatus> InspectSchema(const Catalog& catalog);

struct MigrateOutcome {
  std::optional<std::string> backup;  // where the copy of the old version went, if one was made
  int backup_version = 0;
  int64_t version = 0;                 // the schema version now
};

// Applies every pending migration in one transaction, first copying the
// database to `backup_path(current version)` (SQLite's online backup) when
// there is something to apply and `backup_path` is given.
Result<MigrateOutcome> Migrate(const Catalog& catalog, const std::function<std::string(int version)>& backup_path);

struct RewriteOutcome {
  int64_t sessions = 0;
  int64_t events = 0;
  int64_t upcast = 0;  // events rewritten: payload shapes, and tool calls carried to their current revision
  int64_t calls_upcast = 0;  // of them, tool calls
  std::vector<std::string> differences;  // cards that would change: then nothing was written
};

// Copies the database into `out` (which must not exist) with every event
// upcast to the current payload shapes, and every call of a tool of
// `presenters` that declares revisions carried to its current revision
// (engine/replay/call_upcaster.h); then replays both with `presenters` (null:
// the reference tools') and keeps the copy only if every card is identical.
// Nothing but `out` is ever written, and `out` only when the rewrite is verified.
Result<RewriteOutcome> RewriteVerified(const Catalog& catalog, const std::string& out,
                                       const std::function<void(int64_t done, int64_t total)>& progress,
                                       const presenters::PresenterSet* presenters = nullptr);

}  // namespace retrace::service

#endif  // RETRACE_SERVICE_MIGRATE_H_
