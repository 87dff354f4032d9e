// retrace migrate [--status | --dry-run]
#include "cli/command.h"
#include "cli/exit_codes.h"
#include "cli/format.h"
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

int Run(const Context& ctx, bool status, bool dry_run) {
  if (status || dry_run) return Report(ctx, dry_run);
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
            sub.add_flag("--status", *status, "Show the schema version and pending migrations");
            sub.add_flag("--dry-run", *dry_run, "List the migrations that would be applied, change nothing");
            sub.footer("Each migration runs in its own transaction and is recorded with a checksum in\n"
                       "the schema_migrations table. See migrations/README.md.\n");
            return [&ctx, status, dry_run] { return Run(ctx, *status, *dry_run); };
          }};
}

}  // namespace retrace::cli
