#include "store/backup.h"

#include <sqlite3.h>

#include <cstdio>
#include <filesystem>

#include "store/sqlite.h"

namespace retrace::store {

Status BackupDatabase(const std::string& from, const std::string& to) {
  std::error_code ec;
  if (std::filesystem::exists(to, ec)) return Status::AlreadyExists("backup target " + to + " already exists");
  const std::string partial = to + ".partial";
  std::filesystem::remove(partial, ec);
  ASSIGN_OR_RETURN(Db source, Db::Open(from, Db::Mode::kReadOnly));
  Status st;
  {
    ASSIGN_OR_RETURN(Db target, Db::Open(partial, Db::Mode::kReadWriteCreate));
    sqlite3_backup* b = sqlite3_backup_init(target.get(), "main", source.get(), "main");
    if (b == nullptr) return target.Error("backup of " + from);
    const int rc = sqlite3_backup_step(b, -1);  // every page, in one pass
    sqlite3_backup_finish(b);
    if (rc != SQLITE_DONE) st = target.Error("backup of " + from);
    // The copy is a plain rollback-journal file: readable alone, without a -wal beside it.
    if (st.ok()) st = target.Exec("PRAGMA journal_mode = DELETE");
  }
  if (!st.ok()) {
    std::filesystem::remove(partial, ec);
    return st;
  }
  std::filesystem::rename(partial, to, ec);
  if (ec) return Status::IoError("cannot rename " + partial + " to " + to + ": " + ec.message());
  return Status::Ok();
}

}  // namespace retrace::store
