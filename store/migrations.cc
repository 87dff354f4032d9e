#include "store/migrations.h"

#include <cstdio>

namespace retrace::store {
namespace {

constexpr std::string_view kLedgerDdl =
    "CREATE TABLE IF NOT EXISTS schema_migrations ("
    " version INTEGER PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT";

Result<bool> HasUserTables(Db& db) {
  ASSIGN_OR_RETURN(int64_t n, db.QueryInt("SELECT count(*) FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'"));
  return n > 0;
}

Status VerifyLedger(Db& db, std::span<const Migration> known) {
  ASSIGN_OR_RETURN(Statement st, Statement::Prepare(db, "SELECT version, name, checksum FROM schema_migrations ORDER BY version"));
  while (true) {
    ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) return Status::Ok();
    const int64_t version = st.Int(0);
    const std::string name(st.Text(1));
    const std::string stored(st.Text(2));
    for (const Migration& m : known) {
      if (m.version != version) continue;
      if (MigrationChecksum(m.sql) != stored) {
        return Status::Corruption(db.path() + ": migration " + name + " was applied with checksum " + stored +
                                  ", but this retrace's copy has checksum " + MigrationChecksum(m.sql) +
                                  "; the migration was changed after it was applied — refusing to open");
      }
    }
  }
}

}  // namespace

std::string MigrationChecksum(std::string_view sql) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : sql) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

Result<MigrationState> InspectSchema(Db& db, std::span<const Migration> known) {
  auto app_id = db.QueryInt("PRAGMA application_id");
  if (!app_id.ok()) {
    // SQLITE_CORRUPT (a truncated or overwritten file) is not SQLITE_NOTADB (another kind of file):
    // neither is opened, and nothing in either is changed.
    const bool damaged = app_id.status().message().find("malformed") != std::string::npos;
    return Status::Corruption(db.path() + (damaged ? " is a damaged SQLite file, truncated or overwritten (" : " is not a retrace database (not an SQLite file: ") +
                              app_id.status().message() + "); it was not changed");
  }
  ASSIGN_OR_RETURN(bool has_tables, HasUserTables(db));
  MigrationState state;
  if (*app_id != kApplicationId) {
    if (*app_id != 0 || has_tables) {
      char id[24];
      std::snprintf(id, sizeof id, "0x%08llx", static_cast<unsigned long long>(*app_id));
      return Status::Corruption(db.path() + " is not a retrace database (application_id " + id +
                                     (has_tables ? ", holds other tables" : "") + "); refusing to touch it");
    }
    state.fresh = true;
  }
  ASSIGN_OR_RETURN(state.current_version, db.QueryInt("PRAGMA user_version"));
  const int newest = known.empty() ? 0 : known.back().version;
  if (state.current_version > newest) {
    return Status::Unsupported(db.path() + " has schema version " + std::to_string(state.current_version) +
                               ", newer than this retrace supports (" + std::to_string(newest) +
                               "); it was written by a newer retrace — upgrade retrace to open it");
  }
  if (!state.fresh) RETURN_IF_ERROR(VerifyLedger(db, known));
  for (const Migration& m : known) {
    if (m.version > state.current_version) state.pending.push_back(m);
  }
  return state;
}

Status NeedsMigration(const std::string& path, const MigrationState& state) {
  return Status::Unsupported(path + " has schema version " + std::to_string(state.current_version) +
                             "; this retrace needs version " + std::to_string(state.pending.back().version) +
                             ": run `retrace migrate`");
}

Status ApplyMigrations(Db& db, std::span<const Migration> pending, int64_t now_ms, const MigrationBackfill& backfill) {
  if (pending.empty()) return Status::Ok();
  // One transaction for the whole chain: a failure or a kill anywhere leaves
  // the database at its old version, never part of the way.
  ASSIGN_OR_RETURN(Transaction tx, Transaction::Begin(db));
  RETURN_IF_ERROR(db.Exec(kLedgerDdl));
  for (const Migration& m : pending) {
    Status st = db.Exec(m.sql);
    if (st.ok()) {
      auto ins = Statement::Prepare(db, "INSERT INTO schema_migrations(version, name, checksum, applied_at) VALUES(?,?,?,?)");
      st = ins.ok() ? ins->Bind(1, int64_t{m.version}).Bind(2, m.name).Bind(3, MigrationChecksum(m.sql)).Bind(4, now_ms).Run()
                    : ins.status();
    }
    // Both pragmas are part of the transaction (they live in the database header).
    if (st.ok()) st = db.Exec("PRAGMA application_id = " + std::to_string(kApplicationId));
    if (st.ok()) st = db.Exec("PRAGMA user_version = " + std::to_string(m.version));
    if (!st.ok()) return st.WithContext("migration " + std::string(m.name));
  }
  if (backfill) RETURN_IF_ERROR(backfill(pending).WithContext("migration backfill"));
  return tx.Commit();
}

}  // namespace retrace::store
