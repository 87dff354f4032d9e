// retrace migrate [--status | --dry-run] [--no-backup]
#include <unistd.h>

#include <algorithm>
#include <functional>

#include "frontends/cli/command.h"
#include "frontends/cli/exit_codes.h"
#include "frontends/cli/format.h"
#include "frontends/cli/presenters_option.h"
#include "service/migrate.h"

namespace retrace::cli {
namespace {

int Report(const Context& ctx, bool dry_run) {
  Result<service::SchemaStatus> state = service::InspectSchema(ctx.catalog());
  if (!state.ok()) return ctx.Fail(state.status());
  std::fprintf(ctx.out, "%s: schema version %d%s; this retrace knows up to version %d\n", ctx.db_path.c_str(),
               state->current_version, state->fresh ? " (not initialized)" : "", state->known_version);
  if (state->pending.empty()) {
    std::fprintf(ctx.out, "up to date: no pending migrations\n");
    return kExitOk;
  }
  std::fprintf(ctx.out, "%s:\n", dry_run ? "would apply, in order (nothing changed)" : "pending migrations");
  for (const service::PendingMigration& m : state->pending) {
    std::fprintf(ctx.out, "  %04d  %s  checksum %s\n", m.version, m.name.c_str(), m.checksum.c_str());
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

int Rewrite(const Context& ctx, const std::string& out, const PresentersOption& presenters) {
  auto external = StartPresenters(presenters);
  if (!external.ok()) return ctx.Fail(external.status());
  const bool tty = isatty(fileno(ctx.err));
  Result<service::RewriteOutcome> r = service::RewriteVerified(
      ctx.catalog(), out,
      [&](int64_t done, int64_t total) {
        if (tty) std::fprintf(ctx.err, "\rrewriting: %lld/%lld sessions", static_cast<long long>(done), static_cast<long long>(total));
      },
      PresentersFor(presenters, external->get()));
  if (tty) std::fputc('\n', ctx.err);
  if (!r.ok()) return ctx.Fail(r.status());
  if (!r->differences.empty()) {
    for (const std::string& d : r->differences) std::fprintf(ctx.err, "  %s\n", d.c_str());
    return ctx.Fail(Status::FailedPrecondition("rewrite refused: the cards of " + std::to_string(r->differences.size()) +
                                               " calls would change (listed above); nothing was written"));
  }
  std::fprintf(ctx.out,
               "rewrote %lld sessions (%lld events, %lld upcast to current shapes, %lld tool calls to their current "
               "revision) into %s; every card verified identical\n",
               static_cast<long long>(r->sessions), static_cast<long long>(r->events),
               static_cast<long long>(r->upcast), static_cast<long long>(r->calls_upcast), out.c_str());
  return kExitOk;
}

int Run(const Context& ctx, bool status, bool dry_run, bool backup, const std::string& rewrite,
        const PresentersOption& presenters) {
  if (!rewrite.empty()) return Rewrite(ctx, rewrite, presenters);
  if (status || dry_run) return Report(ctx, dry_run);
  Result<service::MigrateOutcome> r = service::Migrate(
      ctx.catalog(), backup ? std::function<std::string(int)>([&](int version) { return BackupPath(ctx, version); })
                            : std::function<std::string(int)>());
  if (!r.ok()) return ctx.Fail(r.status());
  if (r->backup) std::fprintf(ctx.out, "backup of schema version %d: %s\n", r->backup_version, r->backup->c_str());
  std::fprintf(ctx.out, "%s: at schema version %lld\n", ctx.db_path.c_str(), static_cast<long long>(r->version));
  return kExitOk;
}

}  // namespace

Command MigrateCommand() {
  return {"migrate", "Show or apply pending schema migrations of the database",
          [](Options sub, Context& ctx) -> Handler {
            auto status = std::make_shared<bool>(false);
            auto dry_run = std::make_shared<bool>(false);
            auto no_backup = std::make_shared<bool>(false);
            auto rewrite = std::make_shared<std::string>();
            auto presenters = std::make_shared<PresentersOption>();
            sub.Flag("--status", *status, "Show the schema version and pending migrations");
            sub.Flag("--dry-run", *dry_run, "List the migrations that would be applied, change nothing");
            sub.Flag("--no-backup", *no_backup, "Do not copy the database before migrating it");
            sub.Add("--rewrite", *rewrite,
                    "Copy the store into this new file with every payload upcast to the current shapes,"
                    " verified by replay");
            AddPresentersOption(sub, *presenters);
            sub.Footer("Before migrating, the database is copied with SQLite's online backup to\n"
                       "<db>.v<version>-<time>.bak. All pending migrations then run in one transaction, each\n"
                       "recorded with a checksum in schema_migrations: a failure or a kill leaves the old\n"
                       "version. --rewrite leaves the database as it is and writes a copy whose events carry\n"
                       "the current payload shapes; the copy is kept only if every session replays to the same\n"
                       "cards. With --presenters-cmd, the calls of your tools that declare argument\n"
                       "revisions are written at their current revision through the tools' upcasters\n"
                       "(docs/REPLAY-STABILITY.md, \"When a tool changes\"). See migrations/README.md.\n");
            return [&ctx, status, dry_run, no_backup, rewrite, presenters] {
              return Run(ctx, *status, *dry_run, !*no_backup, *rewrite, *presenters);
            };
          }};
}

}  // namespace retrace::cli
