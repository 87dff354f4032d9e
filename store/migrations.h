// Schema migrations: numbered SQL files from migrations/, embedded into the
// binary at build time, applied forward-only, each in one transaction, and
// recorded in a checksummed ledger (table schema_migrations). PRAGMA
// user_version mirrors the newest applied version; PRAGMA application_id
// marks the file as a retrace database. See migrations/README.md.
#ifndef RETRACE_STORE_MIGRATIONS_H_
#define RETRACE_STORE_MIGRATIONS_H_

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <retrace/engine/base/status.h>
#include <retrace/store/sqlite.h>

namespace retrace::store {

// 'RTRC'. Written to disk; never change.
inline constexpr int64_t kApplicationId = 0x52545243;

struct Migration {
  int version;
  std::string_view name;  // file name, e.g. "0001_initial.sql"
  std::string_view sql;
};

// The migrations compiled into this binary, in version order.
std::span<const Migration> EmbeddedMigrations();

// Hex FNV-1a 64 of the SQL text: detects a migration edited after release.
std::string MigrationChecksum(std::string_view sql);

struct MigrationState {
  bool fresh = false;            // no retrace schema yet (new or empty file)
  int current_version = 0;       // user_version
  std::vector<Migration> pending;
};

// Inspects `db` without modifying it. Refuses a file that is not a retrace
// database (foreign application_id, or user tables without our id), a
// database newer than `known`, and a ledger whose checksum differs from the
// embedded migration of the same version.
Result<MigrationState> InspectSchema(Db& db, std::span<const Migration> known);

// Unsupported: the database at `path` is older than this retrace and waits
// for `retrace migrate` (state.pending is not empty).
Status NeedsMigration(const std::string& path, const MigrationState& state);

// The migration that adds the read model: applying it derives the model's rows.
inline constexpr std::string_view kReadModelMigration = "0002_read_model.sql";
// Migrations whose rows for stored events are derived again when they apply:
// the read model itself, and Code Mode's sub-calls in it.
inline constexpr std::string_view kCodeDispatchMigration = "0004_code_dispatch_calls.sql";
// The migration that adds the sessions' chains: applying it links the rows stored.
inline constexpr std::string_view kChainMigration = "0005_event_chain.sql";

// Work migrations need beyond their SQL (deriving rows from the events), run
// after the SQL of every migration applied, in the same transaction.
using MigrationBackfill = std::function<Status(std::span<const Migration> applied)>;

// Applies `pending` in order, all in one transaction (the database is at its
// old version or at the newest, never between); `now_ms` stamps the ledger.
Status ApplyMigrations(Db& db, std::span<const Migration> pending, int64_t now_ms,
                       const MigrationBackfill& backfill = {});

}  // namespace retrace::store

#endif  // RETRACE_STORE_MIGRATIONS_H_
