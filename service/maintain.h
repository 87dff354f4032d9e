// Maintain: the repairs and rebuilds an operator runs on a database —
// closing a turn a crash left open (`retrace repair`), and the search index
// and read model (`retrace index`).
#ifndef RETRACE_SERVICE_MAINTAIN_H_
#define RETRACE_SERVICE_MAINTAIN_H_

#include <cstdint>
#include <functional>
#include <string>

#include "engine/base/status.h"
#include "service/catalog.h"

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

}  // namespace retrace::service

#endif  // RETRACE_SERVICE_MAINTAIN_H_
