// EventStore: the durable SQLite event log of retrace.
//
// One database file holds many sessions. Each session keeps its verbatim
// dsh header line; each storage line of its log — one event, or one packed
// chunk row standing for several — is a row holding the verbatim text plus
// extracted columns (event_columns.h), so export reproduces the original file
// byte for byte (migrations/README.md). The schema comes only
// from migrations/ (migrations.h). The database runs in WAL mode: readers
// never block the writer.
//
// Durability (StoreOptions::durability), per acknowledged append:
//  - kFull:   the transaction is fsynced to the WAL before Append returns; an
//             acknowledged batch survives a process crash and a power loss.
//  - kNormal: the WAL is fsynced only at checkpoints; an acknowledged batch
//             survives a process crash (it is in the OS page cache), but the
//             most recent batches may be lost — never half-applied — on power
//             loss or an OS crash. (A live recording keeps this promise with an
//             append journal instead of a commit per append:
//             journaled_event_log.h. Open() folds the journals crashes left.)
//
// Thread-safety: an EventStore is used from one thread at a time. Several
// processes may open the same file; writers are serialized per session by
// WriterLock and per transaction by SQLite.
#ifndef RETRACE_STORE_EVENT_STORE_H_
#define RETRACE_STORE_EVENT_STORE_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <retrace/engine/base/status.h>
#include <retrace/engine/log/event_log.h>
#include <retrace/engine/log/session_header.h>
#include <retrace/store/event_id.h>
#include <retrace/store/migrations.h>
#include <retrace/store/schema_lock.h>
#include <retrace/store/sqlite.h>

namespace retrace::store {

enum class Durability { kFull, kNormal };

// Page size of new databases. Events carry multi-KB JSON texts; 32 KiB pages
// keep most rows off overflow chains and the b-trees shallow (measured in
// docs/PERFORMANCE.md: ~30% faster imports than SQLite's default 4 KiB).
inline constexpr int kPageSize = 32768;

struct StoreOptions {
  Durability durability = Durability::kFull;
  // Stamps the migration ledger (Unix ms). Only frontends/cli/ reads the real clock.
  std::function<int64_t()> now_ms = [] { return int64_t{0}; };
  // Migrations this binary knows (tests substitute their own lists).
  std::span<const Migration> migrations = EmbeddedMigrations();
  // Apply pending migrations to an existing database (a new one is always
  // initialized). Without it, an out-of-date database is refused with a hint.
  bool migrate = false;
  // Create the file when it does not exist, and the missing directories
  // above it (owner-only, 0700).
  bool create = true;
  // How long to wait while another process creates or migrates the
  // database (schema_lock.h); then Open fails with Busy.
  std::chrono::milliseconds open_timeout = kDefaultOpenTimeout;
  // Maintain the read model (audit tables, search index) on every append.
  // Off only for benchmarks that measure its cost: the model is then stale
  // until RebuildReadModel().
  bool maintain_read_model = true;
};

struct SessionSummary {
  std::string id;
  int64_t created_at = 0;
  std::optional<std::string> cwd;
  std::optional<std::string> parent_session;
  int64_t events = 0;
  int64_t turns = 0;
  int64_t tool_calls = 0;
  // The time of its last stored row (Unix ms): its last event, or the first
  // chunk of a packed row that ends it; created_at while it has none.
  int64_t updated_at = 0;
  std::optional<std::string> source;  // imported from
};

struct StoredEvent {
  int64_t seq = 0;
  std::string type;
  int64_t time = 0;
  std::string json;
};

// One stored row: a storage line of the session's dsh log.
struct StoredRow {
  int64_t seq = 0;     // the event's seq, or a packed row's first member seq
  int64_t count = 1;   // events in the row
  std::string_view type;
  int64_t time = 0;
  std::string_view packed;  // row tag of a packed chunk row, else empty
  std::string_view json;    // the verbatim storage line
};

struct EventFilter {
  int64_t from_seq = 0;
  std::optional<std::string> type;
};

// Which rows of a session ForEachRow visits: those holding an event with
// seq in [from_seq, to_seq), of `type` when given, whose type passes `need`
// (the others' text is never read from the database: the type column is
// consulted first).
struct RowRange {
  int64_t from_seq = 0;
  int64_t to_seq = kMaxSeq + 1;
  std::optional<std::string> type{};
  std::function<bool(std::string_view type)> need{};
};

class SessionWriter;

class EventStore {
 public:
  static Result<std::unique_ptr<EventStore>> Open(const std::string& path, const StoreOptions& options = {});
  ~EventStore();
  EventStore(const EventStore&) = delete;
  EventStore& operator=(const EventStore&) = delete;

  const std::string& path() const { return db_.path(); }
  // The schema version the database is at (PRAGMA user_version).
  Result<int64_t> SchemaVersion();
  // The durability this connection runs with (PRAGMA synchronous: FULL or NORMAL).
  Result<Durability> EffectiveDurability();
  // Begins a write transaction: an import or a rewrite is one.
  Result<Transaction> BeginTransaction();

  // Creates an empty session (in the caller's transaction, if any).
  // AlreadyExists when the id is taken.
  Status CreateSession(const log::SessionHeader& header, const std::string& header_text,
                       const std::optional<std::string>& source = std::nullopt);

  // Local key of a session, NotFound if absent.
  Result<int64_t> SessionKey(std::string_view session_id);
  // Number of stored events of a session: its next seq (derived from its last row).
  Result<int64_t> NextSeq(int64_t session_key);
  Result<std::string> HeaderText(std::string_view session_id);
  Result<std::vector<SessionSummary>> ListSessions();
  Result<SessionSummary> Describe(std::string_view session_id);
  // Records where a session came from (`sessions` shows it).
  Status SetSource(std::string_view session_id, const std::optional<std::string>& source);

  // Calls `fn` for each event matching `filter`, in seq order; members of
  // packed rows are expanded.
  Status ForEachEvent(std::string_view session_id, const EventFilter& filter,
                      const std::function<Status(const StoredEvent&)>& fn);

  // Calls `fn` for each stored row of `range`, in seq order (the views are
  // valid during the call only).
  Status ForEachRow(int64_t session_key, const RowRange& range, const std::function<Status(const StoredRow&)>& fn);
  // The seq of the first event of `type` at or after `from_seq`, if any.
  Result<std::optional<int64_t>> FirstOfType(int64_t session_key, int64_t from_seq, std::string_view type);

  // Calls `fn` with each storage line after the header, as it was imported
  // (packed chunk rows verbatim) or appended (one event per line).
  Status ForEachStorageLine(std::string_view session_id, const std::function<Status(std::string_view)>& fn);

  // The JSON text of one event, NotFound if absent. A member of a packed row
  // has no stored text of its own; it is decoded from its row.
  Result<std::string> EventText(int64_t session_key, int64_t seq);

  // Opens the single writer of a session (see session_writer.h).
  Result<std::unique_ptr<SessionWriter>> OpenWriter(std::string_view session_id);

  // Deletes a session: its events, its read-model rows and its search
  // documents with their full-text entries, in one transaction. Busy, naming
  // the session, while a writer holds it: a session being recorded is never
  // deleted under its writer. NotFound when there is none of that id. The
  // pages go back to the file system only with Vacuum().
  Status DeleteSession(std::string_view session_id);
  // Rewrites the database without its free pages (SQLite's VACUUM), so the
  // file shrinks; `free_pages` (optional) gets how many there were.
  Status Vacuum(int64_t* free_pages = nullptr);

  // A session's chain recomputed from its header and stored lines
  // (event_chain.h): where it first breaks, if it does, and its head;
  // compared with `pinned_head` (hex) when one is given.
  struct ChainReport {
    std::string session_id{};
    int64_t rows = 0, events = 0;
    std::string head{};  // hex of the last link recomputed
    std::optional<std::string> problem{};
    std::optional<int64_t> problem_seq{};
  };
  Result<ChainReport> VerifyChain(std::string_view session_id, std::string_view pinned_head = {});

  // Drops every read-model row and derives them again from the events, in one
  // transaction (read_model.h). `progress` gets (sessions done, sessions).
  Status RebuildReadModel(const std::function<void(int64_t, int64_t)>& progress = {});

  // Brings the FTS5 index up to date with the search documents appended since
  // (read_model.h); a no-op when it is. Searches call it first.
  Status CatchUpSearchIndex();
  bool maintains_read_model() const { return maintain_read_model_; }

 private:
  friend class SessionWriter;  // appends through the store's connection
  explicit EventStore(Db db) : db_(std::move(db)) {}
  // event_id of the row holding `seq` (which may be a packed row starting earlier).
  Result<int64_t> RowStart(int64_t key, int64_t seq);
  Status Init(const StoreOptions& options, bool existed);
  Result<SessionSummary> Summarize(Statement& st);
  // Links every stored row of every session (migration 5), in the caller's transaction.
  Status LinkAllInTransaction();
  // RebuildReadModel's work, inside the caller's transaction.
  Status RebuildReadModelInTransaction(const std::function<void(int64_t, int64_t)>& progress);

  Db db_;
  bool maintain_read_model_ = true;
  bool chains_ = true;  // the schema has the chain (migration 5): every row stored is linked
  std::optional<Statement> next_seq_;
};

}  // namespace retrace::store

#endif  // RETRACE_STORE_EVENT_STORE_H_
