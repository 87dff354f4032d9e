// retrace migrate [--status | --dry-run] [--no-backup]
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "cli/command.h"
#include "cli/exit_codes.h"
#include "cli/format.h"
#include "check/replay_check.h"
#include "store/backup.h"
#include "store/migrations.h"
#include "store/rewrite.h"

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
  for (const auto& m : state->pending) {
    std::fprintf(ctx.out, "  %04d  %.*s  checksum %s\n", m.version, static_cast<int>(m.name.size()), m.name.data(),
                 store::MigrationChecksum(m.sql).c_str());
  }
  return kExitOk;
}

// "<db>.v1-20261130T063400Z.bak": the version it holds and when it was taken.
std::string BackupPath(const Context& ctx, int version) {
  std::string stamp = IsoTime(ctx.NowMs());
  stamp.erase(std::remove_if(stamp.begin(), stamp.end(), [](char c) { return c == '-' || c == ':'; }), stamp.end());
  stamp = stamp.substr(0, stamp.find('.')) + "Z";
  return ctx.db_path + ".v" + std::to_string(version) + "-" + stamp + ".bak";
}

// Copies the store into `out` with upcast payloads, and keeps the copy only if
// every session's cards are identical before and after.
int Rewrite(const Context& ctx, const std::string& out) {
  auto store = ctx.OpenStore(false, /*create=*/false);
  if (!store.ok()) return ctx.Fail(store.status());
  std::error_code ec;
  const std::string partial = out + ".partial";
  if (std::filesystem::exists(out, ec)) return ctx.Fail(Status::AlreadyExists(out + " already exists"));
  for (const char* suffix : {"", "-wal", "-shm", "-lock"}) std::filesystem::remove(partial + suffix, ec);
  auto discard = [&] {
    for (const char* suffix : {"", "-wal", "-shm", "-lock"}) std::filesystem::remove(partial + suffix, ec);
  };
  const bool tty = isatty(fileno(ctx.err));
  std::string scratch = std::filesystem::path(partial).parent_path().string();  // beside the copy
  if (scratch.empty()) scratch = ".";
  auto report = store::RewriteStore(**store, partial, scratch, [&](int64_t done, int64_t total) {
    if (tty) std::fprintf(ctx.err, "\rrewriting: %lld/%lld sessions", static_cast<long long>(done), static_cast<long long>(total));
  });
  if (tty) std::fputc('\n', ctx.err);
  if (!report.ok()) {
    discard();
    return ctx.Fail(report.status());
  }
  auto differences = check::CompareStoreCards(ctx.db_path, partial);
  if (!differences.ok() || !differences->empty()) {
    discard();
    if (!differences.ok()) return ctx.Fail(differences.status().WithContext("verifying the rewrite by replay"));
    for (const std::string& d : *differences) std::fprintf(ctx.err, "  %s\n", d.c_str());
    return ctx.Fail(Status::FailedPrecondition("rewrite refused: the cards of " + std::to_string(differences->size()) +
                                               " calls would change (listed above); nothing was written"));
  }
  std::filesystem::rename(partial, out, ec);  // every connection to it is closed: no -wal beside it
  if (ec) {
    discard();
    return ctx.Fail(Status::IoError("cannot rename " + partial + " to " + out + ": " + ec.message()));
  }
  discard();  // the copy's lock file
  std::fprintf(ctx.out, "rewrote %lld sessions (%lld events, %lld upcast to current shapes) into %s; every card verified identical\n",
               static_cast<long long>(report->sessions), static_cast<long long>(report->events),
               static_cast<long long>(report->upcast), out.c_str());
  return kExitOk;
}

int Run(const Context& ctx, bool status, bool dry_run, bool backup, const std::string& rewrite) {
  if (!rewrite.empty()) return Rewrite(ctx, rewrite);
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
  auto version = (*store)->SchemaVersion();
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
            auto rewrite = std::make_shared<std::string>();
            sub.add_flag("--status", *status, "Show the schema version and pending migrations");
            sub.add_flag("--dry-run", *dry_run, "List the migrations that would be applied, change nothing");
            sub.add_flag("--no-backup", *no_backup, "Do not copy the database before migrating it");
            sub.add_option("--rewrite", *rewrite,
                           "Copy the store into this new file with every payload upcast to the current shapes,"
                           " verified by replay");
            sub.footer("Before migrating, the database is copied with SQLite's online backup to\n"
                       "<db>.v<version>-<time>.bak. All pending migrations then run in one transaction, each\n"
                       "recorded with a checksum in schema_migrations: a failure or a kill leaves the old\n"
                       "version. --rewrite leaves the database as it is and writes a copy whose events carry\n"
                       "the current payload shapes; the copy is kept only if every session replays to the same\n"
                       "cards. See migrations/README.md.\n");
            return [&ctx, status, dry_run, no_backup, rewrite] {
              return Run(ctx, *status, *dry_run, !*no_backup, *rewrite);
            };
          }};
}

}  // namespace retrace::cli
