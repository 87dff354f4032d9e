// The read model: audit tables and search documents derived from the events
// (migrations/0002_read_model.sql, docs/AUDIT.md).
//
// Derivation is a pure function of one event (and the surface before it), so
// the same rows come out whether the model is maintained on each append or
// rebuilt from the stored events: every write is an idempotent upsert keyed by
// what identifies the row (a call id, a turn, a message id), never a counter.
// Prepare stages derive (no database); Store stages apply, in the append's
// transaction. The FTS5 index over the search documents catches up in bulk
// (CatchUpSearchIndex): every B-tree an append touches costs a page write.
#ifndef RETRACE_STORE_READ_MODEL_H_
#define RETRACE_STORE_READ_MODEL_H_

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include <retrace/engine/base/status.h>
#include <retrace/engine/log/event.h>
#include <retrace/engine/log/surface_fold.h>
#include <retrace/store/sqlite.h>

namespace retrace::store {

using SqlValue = std::variant<std::monostate, int64_t, std::string>;

enum class ReadModelOp {
  kRequestCall,    // a tool-call block of an assistant message
  kStartCall,      // tool/call
  kSettleCall,     // tool/result (append origin)
  kStartTurn,
  kEndTurn,
  kStartStep,
  kEndStep,
  kChunkUsage,     // assistant/chunk {type:'usage'}
  kMessageUsage,   // assistant/message usage (counts only without a usage chunk)
  kInboxInsert,    // agent/inbox/spliced inserted message, not from the user
  kClaimInjection, // plugin-sourced user/message on the surface
  kReplacement,    // an event with surfaceOp replace
  kShadowDoc,      // a search document became shadowed
  kRetry,          // llm/retry
  kRetryStarted,   // llm/retry-started
  kSearchDoc,      // a semantic document (dsh §10.2)
  kStartSubCall,   // tool/code-dispatch-start (Code Mode)
  kSettleSubCall,  // tool/code-dispatch
  kCount,
};

// One write: the operation and its bindings after the session key.
struct ReadModelWrite {
  ReadModelOp op;
  std::vector<SqlValue> args;
};

// What `event` contributes. `before` is the surface fold before the event is
// applied (it names the seqs a replace shadows).
std::vector<ReadModelWrite> DeriveReadModel(const log::Event& event, const log::SurfaceFold& before);

// dsh §10.2: the searchable text of an event ("" when it has none), sanitized
// as dsh's index does (NUL, U+FDD0, U+FDD1 → U+FFFD).
std::string SearchText(const log::Event& event);

// NUL, U+FDD0 and U+FDD1 (the highlight markers) → U+FFFD, as dsh's index does.
std::string SanitizeSearchText(std::string text);

// Tool-call outcome from a result: ok, error, plain-error, aborted, not-started or outcome-unknown.
std::string CallOutcome(bool is_error, const std::optional<std::string>& error_name,
                        const std::optional<std::string>& error_code);

// Applies writes with statements prepared once per database connection.
// Holds the database by reference: the Db must outlive the writer.
class ReadModelWriter {
 public:
  explicit ReadModelWriter(Db& db) : db_(db) {}
  Status Apply(int64_t session_key, std::span<const ReadModelWrite> writes);

 private:
  Result<Statement*> StatementFor(ReadModelOp op);
  // Whether the schema has Code Mode's sub-calls (migration 4). Only a store
  // opened with an older migration list (a test of migrating) lacks them.
  Result<bool> StoresSubCalls();
  Db& db_;
  std::optional<bool> stores_sub_calls_;
  std::array<std::optional<Statement>, static_cast<size_t>(ReadModelOp::kCount)> statements_;
};

// Deletes every derived row (inside the caller's transaction).
Status ClearReadModel(Db& db);

// The FTS5 index lags its documents: appends write search_docs rows only, and
// tokenizing their text into search_fts happens in bulk, here (inside the
// caller's transaction): before a search, and on `retrace index`. Search
// results are therefore always complete.
Result<bool> SearchIndexBehind(Db& db);
Status CatchUpSearchIndex(Db& db);
// The sessions whose documents are not all indexed (read outside any
// transaction: a hint), and the catch-up of one of them, which reads its lag
// again inside the caller's transaction, so that writers wait for one
// session's backlog at a time, never for the whole database's.
Result<std::vector<int64_t>> SessionsBehindInSearch(Db& db);
Status CatchUpSessionSearchIndex(Db& db, int64_t session);

}  // namespace retrace::store

#endif  // RETRACE_STORE_READ_MODEL_H_
