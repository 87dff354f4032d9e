// retrace migrate [--status | --dry-run] [--no-backup]
#include <algorithm>
#include <filesystem>

#include "cli/command.h"
#include "cli/exit_codes.h"
#include "cli/format.h"
#include "store/backup.h"
#include "store/migrations.h"

namespace retrace::cli {
namespace {

int Report(const Context& ctx, bool dry_run) {
  auto db = store::Db::Open(ctx.db_path, store::Db::Mode::kReadOnly);
  if (!db.ok()) return ctx.Fail(db.status());
  auto state = store::InspectSchema(*db, store::EmbeddedMigrations());
  if (!state.ok()) return ctx.Fail(state.status());
  std::fprintf(ctx.out, "%s: schema version %d%s; this retrace knows up to version %d\n", ctx.db_path.c_str(),
               state->current_version, state->fresh ? " (not initialized)" : "",
               store::EmbeddedMigrations().back().version);
  if (state->pending.empty()) {
    std::fprintf(ctx.out, "up to date: no pending migrations\n");
    return kExitOk;
  }
  std::fprintf(ctx.out, "%s:\n", dry_run ? "would apply, in order (nothing changed)" : "pending migrations");
  for (const auto& m : state->pending)
    std::fprintf(ctx.out, "  %04d  %.*s  checksum %s\n", m.version, static_cast<int>(m.name.size()), m.name.data(),
                 store::MigrationChecksum(m.sql).c_str());
  return kExitOk;
}

// "<db>.v1-20261130T063400Z.bak": the version it holds and when it was taken.
std::string BackupPath(const Context& ctx, int version) {
  std::string stamp = IsoTime(ctx.NowMs());
  stamp.erase(std::remove_if(stamp.begin(), stamp.end(), [](char c) { return c == '-' || c == ':'; }), stamp.end());
  stamp = stamp.substr(0, stamp.find('.')) + "Z";
  return ctx.db_path + ".v" + std::to_string(version) + "-" + stamp + ".bak";
}

int Run(const Context& ctx, bool status, bool dry_run, bool backup) {
  if (status || dry_run) return Report(ctx, dry_run);
  std::error_code ec;
  if (!std::filesystem::exists(ctx.db_path, ec)) return ctx.Fail(Status::NotFound("no database at " + ctx.db_path));
  {
    // Before changing anything: what would change, and a copy to go back to.
    auto db = store::Db::Open(ctx.db_path, store::Db::Mode::kReadOnly);
    if (!db.ok()) return ctx.Fail(db.status());
    auto state = store::InspectSchema(*db, store::EmbeddedMigrations());
    if (!state.ok()) return ctx.Fail(state.status());
    if (!state->pending.empty() && !state->fresh && backup) {
      const std::string path = BackupPath(ctx, state->current_version);
      Status st = store::BackupDatabase(ctx.db_path, path);
      if (!st.ok()) return ctx.Fail(st.WithContext("backup before migrating (nothing was changed)"));
      std::fprintf(ctx.out, "backup of schema version %d: %s\n", state->current_version, path.c_str());
    }
  }
  auto store = ctx.OpenStore(/*migrate=*/true);
  if (!store.ok()) return ctx.Fail(store.status());
  auto version = (*store)->db().QueryInt("PRAGMA user_version");
  if (!version.ok()) return ctx.Fail(version.status());
  std::fprintf(ctx.out, "%s: at schema version %lld\n", ctx.db_path.c_str(), static_cast<long long>(*version));
  return kExitOk;
}

}  // namespace

Command MigrateCommand() {
  return {"migrate", "Show or apply pending schema migrations of the database",
          [](CLI::App& sub, Context& ctx) -> Handler {
            auto status = std::make_shared<bool>(false);
            auto dry_run = std::make_shared<bool>(false);
            auto no_backup = std::make_shared<bool>(false);
            sub.add_flag("--status", *status, "Show the schema version and pending migrations");
            sub.add_flag("--dry-run", *dry_run, "List the migrations that would be applied, change nothing");
            sub.add_flag("--no-backup", *no_backup, "Do not copy the database before migrating it");
            sub.footer("Before migrating, the database is copied with SQLite's online backup to\n"
                       "<db>.v<version>-<time>.bak. All pending migrations then run in one transaction, each\n"
                       "recorded with a checksum in schema_migrations: a failure or a kill leaves the old\n"
                       "version. See migrations/README.md.\n");
            return [&ctx, status, dry_run, no_backup] { return Run(ctx, *status, *dry_run, !*no_backup); };
          }};
}

}  // namespace retrace::cli
