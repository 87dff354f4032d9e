#include "service/migrate.h"

#include <filesystem>
#include <memory>

#include "check/replay_check.h"
#include "engine/replay/call_upcaster.h"
#include "store/backup.h"
#include "store/migrations.h"
#include "store/rewrite.h"

namespace retrace::service {

Result<SchemaStatus> InspectSchema(const Catalog& catalog) {
  ASSIGN_OR_RETURN(store::Db db, store::Db::Open(catalog.db_path(), store::Db::Mode::kReadOnly));
  ASSIGN_OR_RETURN(store::MigrationState state, store::InspectSchema(db, store::EmbeddedMigrations()));
  SchemaStatus s{.current_version = state.current_version,
                 .fresh = state.fresh,
                 .known_version = store::EmbeddedMigrations().back().version,
                 .pending = {}};
  for (const auto& m : state.pending) {
    s.pending.push_back({m.version, std::string(m.name), store::MigrationChecksum(m.sql)});
  }
  return s;
}

Result<MigrateOutcome> Migrate(const Catalog& catalog, const std::function<std::string(int version)>& backup_path) {
  std::error_code ec;
  if (!std::filesystem::exists(catalog.db_path(), ec)) return Status::NotFound("no database at " + catalog.db_path());
  MigrateOutcome outcome;
  // Before changing anything: what would change, and a copy to go back to.
  ASSIGN_OR_RETURN(SchemaStatus before, InspectSchema(catalog));
  if (!before.pending.empty() && !before.fresh && backup_path) {
    const std::string path = backup_path(before.current_version);
    RETURN_IF_ERROR(store::BackupDatabase(catalog.db_path(), path)
                        .WithContext("backup before migrating (nothing was changed)"));
    outcome.backup = path;
    outcome.backup_version = before.current_version;
  }
  ASSIGN_OR_RETURN(std::unique_ptr<store::EventStore> store, catalog.Open(Access::kMigrate));
  ASSIGN_OR_RETURN(outcome.version, store->SchemaVersion());
  return outcome;
}

Result<RewriteOutcome> RewriteVerified(const Catalog& catalog, const std::string& out,
                                       const std::function<void(int64_t, int64_t)>& progress,
                                       const presenters::PresenterSet* presenters) {
  ASSIGN_OR_RETURN(std::unique_ptr<store::EventStore> store, catalog.Open(Access::kExisting));
  std::error_code ec;
  if (std::filesystem::exists(out, ec)) return Status::AlreadyExists(out + " already exists");
  const std::string partial = out + ".partial";
  auto discard = [&] {
    for (const char* suffix : {"", "-wal", "-shm", "-lock"}) std::filesystem::remove(partial + suffix, ec);
  };
  discard();
  std::string scratch = std::filesystem::path(partial).parent_path().string();  // beside the copy
  if (scratch.empty()) scratch = ".";
  // Each session's tool calls through its tools' upcasters; the counts add up over sessions.
  auto calls_upcast = std::make_shared<int64_t>(0);
  store::SessionRewrite tool_calls;
  if (presenters) {
    tool_calls = [presenters, calls_upcast](const std::string&) -> store::EventRewrite {
      auto upcaster = std::make_shared<replay::CallUpcaster>(*presenters);
      return [upcaster, calls_upcast](log::Event& e) -> Result<bool> {
        const int64_t before = upcaster->calls_upcast();
        const bool changed = upcaster->Rewrite(e);
        *calls_upcast += upcaster->calls_upcast() - before;
        return changed;
      };
    };
  }
  Result<store::RewriteReport> report = store::RewriteStore(*store, partial, scratch, progress, tool_calls);
  if (!report.ok()) {
    discard();
    return report.status();
  }
  RewriteOutcome outcome{.sessions = report->sessions,
                         .events = report->events,
                         .upcast = report->upcast,
                         .calls_upcast = *calls_upcast,
                         .differences = {}};
  Result<std::vector<std::string>> differences = check::CompareStoreCards(catalog.db_path(), partial, presenters);
  if (!differences.ok()) {
    discard();
    return differences.status().WithContext("verifying the rewrite by replay");
  }
  if (!differences->empty()) {
    discard();
    outcome.differences = std::move(*differences);
    return outcome;
  }
  std::filesystem::rename(partial, out, ec);  // every connection to it is closed: no -wal beside it
  if (ec) {
    discard();
    return Status::IoError("cannot rename " + partial + " to " + out + ": " + ec.message());
  }
  discard();  // the copy's lock file
  return outcome;
}

}  // namespace retrace::service
