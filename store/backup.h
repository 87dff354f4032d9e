// A consistent copy of a live SQLite database through SQLite's online backup
// API: the copy is a snapshot as of one transaction, taken while other
// connections may read or write, written to a temporary name and renamed into
// place only when complete (never a half-written backup under the final name).
#ifndef RETRACE_STORE_BACKUP_H_
#define RETRACE_STORE_BACKUP_H_

#include <string>

#include <retrace/engine/base/status.h>

namespace retrace::store {

// Copies the database at `from` to the new file `to` (refused if it exists).
Status BackupDatabase(const std::string& from, const std::string& to);

}  // namespace retrace::store

#endif  // RETRACE_STORE_BACKUP_H_
