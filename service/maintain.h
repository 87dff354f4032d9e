// Maintain: the repairs and rebuilds an operator runs on a database —
// closing a turn a crash left open (`retrace repair`), the search index and
// read model (`retrace index`), and deleting sessions (`retrace delete`,
// `retrace retain`), and checking their tamper-evident chains (`retrace verify`).
#ifndef RETRACE_SERVICE_MAINTAIN_H_
#define RETRACE_SERVICE_MAINTAIN_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "service/catalog.h"
#include "store/event_store.h"

namespace retrace::service {

struct RepairOutcome {
  int64_t first_seq = 0;  // the seq of the first event added
  int64_t added = 0;      // 0: the last turn was closed already
};

// Appends dsh's interrupted-turn closers to `session_id`, in one transaction,
// as this process's writer of it (Busy while another process writes it).
Result<RepairOutcome> RepairSession(const Catalog& catalog, const std::string& session_id);

// Brings the full-text index up to date with the appended documents.
Status CatchUpSearchIndex(const Catalog& catalog);

// Drops every derived row (audit tables, search documents and index) and
// derives them again from the events, in one transaction; `progress` gets
// (sessions done, sessions in all).
Status RebuildReadModel(const Catalog& catalog, const std::function<void(int64_t, int64_t)>& progress);

struct DeleteOptions {
  bool vacuum = true;  // give the space back to the file system afterwards
  // Called after each session with (sessions deleted, sessions to delete),
  // and once before the vacuum with (n, n).
  std::function<void(int64_t, int64_t)> progress{};
};

struct DeleteOutcome {
  std::vector<store::SessionSummary> deleted;  // as they were, in the order asked
  int64_t bytes_before = 0, bytes_after = 0;   // the database file's size
  int64_t free_pages = 0;                      // pages the vacuum gave back
};

// Deletes the sessions `ids` (store::EventStore::DeleteSession), one
// transaction each, then vacuums. Every id is looked up first: one that is
// not stored (or named twice) is an error before anything is deleted. A
// session being recorded is refused (Busy, naming it); those before it stay
// deleted, those after it are not touched.
Result<DeleteOutcome> DeleteSessions(const Catalog& catalog, const std::vector<std::string>& ids,
                                     const DeleteOptions& options = {});

// The sessions whose last event is older than `cutoff_ms` (Unix ms, from the
// front end's clock), oldest first: what `retrace retain --older-than` deletes.
Result<std::vector<store::SessionSummary>> SessionsIdleSince(const Catalog& catalog, int64_t cutoff_ms);

// The chain of each session `ids` names (all sessions, in id order, when it
// names none), recomputed from the stored header and lines
// (store/event_chain.h), each compared with its head in `pinned` (session →
// hex, what `retrace verify --head` printed) when it has one. A named
// session that is not stored is NotFound; a pinned one that is not stored
// any more is a report with a problem.
Result<std::vector<store::EventStore::ChainReport>> VerifySessions(
    const Catalog& catalog, const std::vector<std::string>& ids, const std::map<std::string, std::string>& pinned = {});

}  // namespace retrace::service

#endif  // RETRACE_SERVICE_MAINTAIN_H_
