#include "store/event_store.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include <sys/stat.h>

#include "store/event_chain.h"
#include "store/event_id.h"
#include "store/journaled_event_log.h"
#include "store/schema_lock.h"
#include "format/chunk_rows.h"
#include "store/session_writer.h"

namespace retrace::store {
namespace {

bool FileHasBytes(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && st.st_size > 0;
}

// Creates the missing directories above a new database, owner-only (0700):
// sessions hold what tools read, and ~/.retrace/ is where the docs put them.
// A first `retrace mcp` on a fresh machine would otherwise fail before it can
// tell its client why.
Status CreateParentDirectories(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (parent.empty()) return Status::Ok();
  std::error_code ec;
  if (std::filesystem::is_directory(parent, ec)) return Status::Ok();
  std::filesystem::path built;
  for (const std::filesystem::path& part : parent) {
    built /= part;
    if (::mkdir(built.c_str(), 0700) != 0 && errno != EEXIST) {
      return Status::IoError("cannot create the directory " + built.string() + " for the database " + path + ": " +
                             std::strerror(errno));
    }
  }
  if (!std::filesystem::is_directory(parent, ec)) {
    return Status::IoError("cannot create the database " + path + ": " + parent.string() + " is not a directory");
  }
  return Status::Ok();
}

Status NoSession(std::string_view id) { return Status::NotFound("no session \"" + std::string(id) + "\" in the store"); }

const std::string& SummarySelect() {
  static const std::string sql =
      "SELECT s.session_id, s.created_at, s.cwd, s.parent_session,"
      " (SELECT e.seq + e.count FROM events e WHERE " + SessionRangeSql("e.event_id", "s.id") +
      "   ORDER BY e.event_id DESC LIMIT 1), s.source,"
      // Counted over the session's clustered key range.
      " (SELECT count(*) FROM events e WHERE " + SessionRangeSql("e.event_id", "s.id") + " AND e.type = 'turn/start'),"
      " (SELECT count(*) FROM events e WHERE " + SessionRangeSql("e.event_id", "s.id") + " AND e.type = 'tool/call'),"
      " (SELECT e.time FROM events e WHERE " + SessionRangeSql("e.event_id", "s.id") +
      "   ORDER BY e.event_id DESC LIMIT 1)"
      " FROM sessions s";
  return sql;
}

}  // namespace

Result<std::unique_ptr<EventStore>> EventStore::Open(const std::string& path, const StoreOptions& options) {
  if (!options.create && !FileHasBytes(path)) return Status::NotFound("no database at " + path);
  if (options.create) RETURN_IF_ERROR(CreateParentDirectories(path));
  // Several processes may open a new database at once: one creates and
  // migrates it while the others wait, then find it ready.
  ASSIGN_OR_RETURN(SchemaLock schema_lock, SchemaLock::Acquire(path, SchemaLock::Mode::kExclusive, options.open_timeout));
  const bool existed = FileHasBytes(path);
  ASSIGN_OR_RETURN(Db db, Db::Open(path, existed || !options.create ? Db::Mode::kReadWrite : Db::Mode::kReadWriteCreate));
  std::unique_ptr<EventStore> store(new EventStore(std::move(db)));
  RETURN_IF_ERROR(store->Init(options, existed));
  // Appends a crashed recorder acknowledged are folded in before anyone reads
  // or writes (still under the schema lock: one opener folds, the others wait).
  RETURN_IF_ERROR(FoldOrphanJournals(*store));
  return store;
}

EventStore::~EventStore() = default;

Status EventStore::Init(const StoreOptions& options, bool existed) {
  // Inspect before touching anything: a foreign or newer file is never modified.
  ASSIGN_OR_RETURN(MigrationState state, InspectSchema(db_, options.migrations));
  if (!state.pending.empty() && existed && !state.fresh && !options.migrate) return NeedsMigration(path(), state);
  // The page size can only be chosen before the first table is created.
  if (state.fresh) RETURN_IF_ERROR(db_.Exec("PRAGMA page_size = " + std::to_string(kPageSize)));
  RETURN_IF_ERROR(db_.Exec("PRAGMA journal_mode = WAL"));
  RETURN_IF_ERROR(db_.Exec(options.durability == Durability::kFull ? "PRAGMA synchronous = FULL"
                                                                   : "PRAGMA synchronous = NORMAL"));
  RETURN_IF_ERROR(db_.Exec("PRAGMA foreign_keys = ON"));
  // (A test may open a store with an older migration list: no model to maintain.)
  chains_ = std::any_of(options.migrations.begin(), options.migrations.end(),
                        [](const Migration& m) { return m.name == kChainMigration; });
  maintain_read_model_ = options.maintain_read_model &&
                         std::any_of(options.migrations.begin(), options.migrations.end(),
                                     [](const Migration& m) { return m.name == kReadModelMigration; });
  // The read model arrives with migration 2 (and Code Mode's sub-calls join it
  // with migration 4); its rows for the events already stored are derived in
  // that migration's transaction.
  // The chain arrives with migration 5; the rows already stored are linked in
  // its transaction too.
  return ApplyMigrations(db_, state.pending, options.now_ms(), [&](std::span<const Migration> applied) {
    auto applies = [&](std::string_view name) {
      return std::any_of(applied.begin(), applied.end(), [&](const Migration& m) { return m.name == name; });
    };
    if (!state.fresh && applies(kChainMigration)) RETURN_IF_ERROR(LinkAllInTransaction());
    const bool reshapes_model = applies(kReadModelMigration) || applies(kCodeDispatchMigration);
    return reshapes_model && !state.fresh && maintain_read_model_ ? RebuildReadModelInTransaction({}) : Status::Ok();
  });
}

Status EventStore::CreateSession(const log::SessionHeader& h, const std::string& header_text,
                                 const std::optional<std::string>& source) {
  ASSIGN_OR_RETURN(Statement st, Statement::Prepare(db_,
      "INSERT INTO sessions(session_id, header, created_at, cwd, parent_session, source)"
      " VALUES(?,?,?,?,?,?)"));
  st.Bind(1, h.id).Bind(2, header_text).Bind(3, h.created_at).Bind(4, h.cwd).Bind(5, h.parent_session).Bind(6, source);
  Status run = st.Run();
  if (run.code() == Status::Code::kConflict) {
    return Status::AlreadyExists("session \"" + h.id + "\" already exists in " + path());
  }
  return run;
}

Result<int64_t> EventStore::SessionKey(std::string_view session_id) {
  ASSIGN_OR_RETURN(Statement st, Statement::Prepare(db_, "SELECT id FROM sessions WHERE session_id = ?"));
  st.Bind(1, session_id);
  ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return NoSession(session_id);
  return st.Int(0);
}

Result<int64_t> EventStore::NextSeq(int64_t key) {
  if (!next_seq_) {  // kept: every append asks
    ASSIGN_OR_RETURN(next_seq_, Statement::Prepare(db_,
        "SELECT seq + count FROM events WHERE event_id BETWEEN ? AND ? ORDER BY event_id DESC LIMIT 1"));
  }
  next_seq_->Bind(1, EventId(key, 0)).Bind(2, EventId(key, kMaxSeq));
  auto row = next_seq_->Step();
  const int64_t next = row.ok() && *row ? next_seq_->Int(0) : 0;
  next_seq_->Reset();
  if (!row.ok()) return row.status();
  return next;
}

Result<std::string> EventStore::HeaderText(std::string_view session_id) {
  ASSIGN_OR_RETURN(Statement st, Statement::Prepare(db_, "SELECT header FROM sessions WHERE session_id = ?"));
  st.Bind(1, session_id);
  ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return NoSession(session_id);
  return std::string(st.Text(0));
}

Result<SessionSummary> EventStore::Summarize(Statement& st) {
  SessionSummary s;
  s.id = std::string(st.Text(0));
  s.created_at = st.Int(1);
  if (!st.IsNull(2)) s.cwd = std::string(st.Text(2));
  if (!st.IsNull(3)) s.parent_session = std::string(st.Text(3));
  s.events = st.Int(4);
  if (!st.IsNull(5)) s.source = std::string(st.Text(5));
  s.turns = st.Int(6);
  s.tool_calls = st.Int(7);
  s.updated_at = st.IsNull(8) ? s.created_at : st.Int(8);
  return s;
}

Result<std::vector<SessionSummary>> EventStore::ListSessions() {
  ASSIGN_OR_RETURN(Statement st, Statement::Prepare(db_, SummarySelect() +
                                                             " ORDER BY s.created_at DESC, s.session_id ASC"));
  std::vector<SessionSummary> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) return out;
    ASSIGN_OR_RETURN(SessionSummary s, Summarize(st));
    out.push_back(std::move(s));
  }
}

Result<SessionSummary> EventStore::Describe(std::string_view session_id) {
  ASSIGN_OR_RETURN(Statement st, Statement::Prepare(db_, SummarySelect() + " WHERE s.session_id = ?"));
  st.Bind(1, session_id);
  ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return NoSession(session_id);
  return Summarize(st);
}

Result<int64_t> EventStore::RowStart(int64_t key, int64_t seq) {
  ASSIGN_OR_RETURN(Statement st, Statement::Prepare(db_,
      "SELECT max(event_id) FROM events WHERE event_id BETWEEN ? AND ?"));
  st.Bind(1, EventId(key, 0)).Bind(2, EventId(key, std::max<int64_t>(0, seq)));
  ASSIGN_OR_RETURN(bool row, st.Step());
  return row && !st.IsNull(0) ? st.Int(0) : EventId(key, 0);
}

Status EventStore::ForEachRow(int64_t key, const RowRange& range, const std::function<Status(const StoredRow&)>& fn) {
  if (range.to_seq <= 0) return Status::Ok();
  ASSIGN_OR_RETURN(int64_t start, RowStart(key, range.from_seq));
  std::string sql = "SELECT seq, count, type, time, packed, json FROM events WHERE event_id BETWEEN ? AND ?";
  if (range.type) sql += " AND type = ?";
  sql += " ORDER BY event_id";
  ASSIGN_OR_RETURN(Statement st, Statement::Prepare(db_, sql));
  st.Bind(1, start).Bind(2, EventId(key, std::min(range.to_seq - 1, kMaxSeq)));
  if (range.type) st.Bind(3, *range.type);
  while (true) {
    ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) return Status::Ok();
    // Columns are read in order, so a row that is not needed never loads its text.
    const int64_t seq = st.Int(0), count = st.Int(1);
    const std::string_view row_type = st.Text(2);
    if (seq + count <= range.from_seq || (range.need && !range.need(row_type))) continue;
    StoredRow r{seq, count, row_type, st.Int(3), st.Text(4), st.Text(5)};
    RETURN_IF_ERROR(fn(r));
  }
}

Result<std::optional<int64_t>> EventStore::FirstOfType(int64_t key, int64_t from_seq, std::string_view type) {
  // The rows are clustered by (session, seq), so this reads from `from_seq` on only.
  ASSIGN_OR_RETURN(Statement st, Statement::Prepare(db_,
      "SELECT seq FROM events WHERE event_id BETWEEN ? AND ? AND type = ? ORDER BY event_id LIMIT 1"));
  st.Bind(1, EventId(key, std::max<int64_t>(0, from_seq))).Bind(2, EventId(key, kMaxSeq)).Bind(3, type);
  ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return std::optional<int64_t>();
  return std::optional<int64_t>(st.Int(0));
}

Result<int64_t> EventStore::SchemaVersion() { return db_.QueryInt("PRAGMA user_version"); }

Result<Durability> EventStore::EffectiveDurability() {
  ASSIGN_OR_RETURN(int64_t sync, db_.QueryInt("PRAGMA synchronous"));
  constexpr int64_t kSqliteFull = 2;
  return sync >= kSqliteFull ? Durability::kFull : Durability::kNormal;
}

Result<Transaction> EventStore::BeginTransaction() { return Transaction::Begin(db_); }

Status EventStore::SetSource(std::string_view session_id, const std::optional<std::string>& source) {
  ASSIGN_OR_RETURN(Statement st, Statement::Prepare(db_, "UPDATE sessions SET source = ? WHERE session_id = ?"));
  return st.Bind(1, source).Bind(2, session_id).Run();
}

Status EventStore::ForEachEvent(std::string_view session_id, const EventFilter& filter,
                                const std::function<Status(const StoredEvent&)>& fn) {
  ASSIGN_OR_RETURN(int64_t key, SessionKey(session_id));
  return ForEachRow(key, {.from_seq = filter.from_seq, .type = filter.type}, [&](const StoredRow& r) -> Status {
    if (r.packed.empty()) return fn(StoredEvent{r.seq, std::string(r.type), r.time, std::string(r.json)});
    ASSIGN_OR_RETURN(std::vector<log::EventRecord> members, format::DecodeStoredChunkRow(r.json, r.seq));
    for (auto& m : members) {
      if (m.event.seq < filter.from_seq) continue;
      RETURN_IF_ERROR(fn(StoredEvent{m.event.seq, m.event.type, m.event.time, std::move(m.text)}));
    }
    return Status::Ok();
  });
}

Status EventStore::ForEachStorageLine(std::string_view session_id, const std::function<Status(std::string_view)>& fn) {
  ASSIGN_OR_RETURN(int64_t key, SessionKey(session_id));
  return ForEachRow(key, {}, [&](const StoredRow& r) { return fn(r.json); });
}

Result<std::string> EventStore::EventText(int64_t key, int64_t seq) {
  ASSIGN_OR_RETURN(int64_t start, RowStart(key, seq));
  ASSIGN_OR_RETURN(Statement st, Statement::Prepare(db_, "SELECT seq, count, packed, json FROM events WHERE event_id = ?"));
  st.Bind(1, start);
  ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row || seq < st.Int(0) || seq >= st.Int(0) + st.Int(1)) return Status::NotFound("no event at seq " + std::to_string(seq));
  if (st.IsNull(2)) return std::string(st.Text(3));
  ASSIGN_OR_RETURN(std::vector<log::EventRecord> members, format::DecodeStoredChunkRow(st.Text(3), st.Int(0)));
  // The count column says how many events the row stands for; a row whose
  // text decodes to fewer was changed behind the store's back.
  const auto index = static_cast<size_t>(seq - st.Int(0));
  if (members.size() != static_cast<size_t>(st.Int(1))) {
    return Status::Corruption(path() + ": the packed row at seq " + std::to_string(st.Int(0)) + " holds " +
                              std::to_string(members.size()) + " events, but its count column says " +
                              std::to_string(st.Int(1)));
  }
  return std::move(members[index].text);
}

Result<std::unique_ptr<SessionWriter>> EventStore::OpenWriter(std::string_view session_id) {
  ASSIGN_OR_RETURN(int64_t key, SessionKey(session_id));
  ASSIGN_OR_RETURN(WriterLock lock, WriterLock::Acquire(path(), key, std::string(session_id)));
  std::unique_ptr<SessionWriter> w(
      new SessionWriter(*this, std::string(session_id), key, std::move(lock), maintain_read_model_));
  RETURN_IF_ERROR(w->LoadState());
  return w;
}

Status EventStore::DeleteSession(std::string_view session_id) {
  ASSIGN_OR_RETURN(int64_t key, SessionKey(session_id));
  ASSIGN_OR_RETURN(WriterLock lock, WriterLock::Acquire(path(), key, std::string(session_id)));
  ASSIGN_OR_RETURN(Transaction tx, Transaction::Begin(db_));
  const std::string docs = SessionRangeSql("id", "?1");
  // The full-text entries first: an external-content index forgets a row only
  // when told its text, and only the documents already indexed have entries.
  const std::vector<std::string> statements = {
      "INSERT INTO search_fts(search_fts, rowid, text) SELECT 'delete', id, text FROM search_docs WHERE " + docs +
          " AND id <= COALESCE((SELECT indexed_through FROM search_progress WHERE session = ?1), -1)",
      "DELETE FROM search_docs WHERE " + docs,
      "DELETE FROM search_progress WHERE session = ?1",
      "DELETE FROM tool_calls WHERE session = ?1",
      "DELETE FROM turns WHERE session = ?1",
      "DELETE FROM steps WHERE session = ?1",
      "DELETE FROM injections WHERE session = ?1",
      "DELETE FROM replacements WHERE session = ?1",
      "DELETE FROM retries WHERE session = ?1",
      "DELETE FROM events WHERE " + SessionRangeSql("event_id", "?1"),
      "DELETE FROM sessions WHERE id = ?1",
  };
  for (const std::string& sql : statements) {
    ASSIGN_OR_RETURN(Statement st, Statement::Prepare(db_, sql));
    RETURN_IF_ERROR(st.Bind(1, key).Run());
  }
  return tx.Commit();
}

Status EventStore::Vacuum(int64_t* free_pages) {
  if (free_pages) {
    ASSIGN_OR_RETURN(Statement st, Statement::Prepare(db_, "PRAGMA freelist_count"));
    ASSIGN_OR_RETURN(bool row, st.Step());
    *free_pages = row ? st.Int(0) : 0;
  }
  RETURN_IF_ERROR(db_.Exec("VACUUM"));
  // The rewritten pages sit in the WAL until a checkpoint moves them into the
  // file and truncates the log: only then is the space given back.
  return db_.Exec("PRAGMA wal_checkpoint(TRUNCATE)");
}

Status EventStore::LinkAllInTransaction() {
  ASSIGN_OR_RETURN(Statement sessions, Statement::Prepare(db_, "SELECT id, header FROM sessions ORDER BY id"));
  ASSIGN_OR_RETURN(Statement rows, Statement::Prepare(db_,
      "SELECT event_id, json FROM events WHERE " + SessionRangeSql("event_id", "?1") + " ORDER BY event_id"));
  ASSIGN_OR_RETURN(Statement link, Statement::Prepare(db_, "UPDATE events SET link = ?2 WHERE event_id = ?1"));
  while (true) {
    ASSIGN_OR_RETURN(bool more, sessions.Step());
    if (!more) break;
    Link chain = GenesisLink(sessions.Text(1));
    rows.Reset();
    rows.Bind(1, sessions.Int(0));
    while (true) {
      ASSIGN_OR_RETURN(bool row, rows.Step());
      if (!row) break;
      chain = NextLink(chain, rows.Text(1));
      link.Reset();
      RETURN_IF_ERROR(link.Bind(1, rows.Int(0)).BindBlob(2, chain.data(), chain.size()).Run());
    }
  }
  return Status::Ok();
}

Result<EventStore::ChainReport> EventStore::VerifyChain(std::string_view session_id, std::string_view pinned_head) {
  ASSIGN_OR_RETURN(int64_t key, SessionKey(session_id));
  ASSIGN_OR_RETURN(std::string header, HeaderText(session_id));
  ChainCheck check(header);
  ASSIGN_OR_RETURN(Statement rows, Statement::Prepare(db_,
      "SELECT seq, count, json, link FROM events WHERE " + SessionRangeSql("event_id", "?1") + " ORDER BY event_id"));
  rows.Bind(1, key);
  while (true) {
    ASSIGN_OR_RETURN(bool row, rows.Step());
    if (!row || !check.Add(rows.Int(0), rows.Int(1), rows.Text(2), rows.Blob(3))) break;
  }
  if (!pinned_head.empty()) check.End(pinned_head);
  ChainReport report{.session_id = std::string(session_id),
                     .rows = check.rows(),
                     .events = check.events(),
                     .head = LinkHex(check.head()),
                     .problem = check.problem(),
                     .problem_seq = check.problem_seq()};
  return report;
}

Status EventStore::RebuildReadModel(const std::function<void(int64_t, int64_t)>& progress) {
  ASSIGN_OR_RETURN(Transaction tx, Transaction::Begin(db_));
  RETURN_IF_ERROR(RebuildReadModelInTransaction(progress));
  return tx.Commit();
}

Status EventStore::RebuildReadModelInTransaction(const std::function<void(int64_t, int64_t)>& progress) {
  RETURN_IF_ERROR(ClearReadModel(db_));
  std::vector<std::pair<int64_t, std::string>> sessions;
  {
    ASSIGN_OR_RETURN(Statement st, Statement::Prepare(db_, "SELECT id, session_id FROM sessions ORDER BY id"));
    while (true) {
      ASSIGN_OR_RETURN(bool row, st.Step());
      if (!row) break;
      sessions.emplace_back(st.Int(0), std::string(st.Text(1)));
    }
  }
  for (size_t i = 0; i < sessions.size(); ++i) {
    const auto& [key, id] = sessions[i];
    ASSIGN_OR_RETURN(WriterLock lock, WriterLock::Acquire(path(), key, id));
    SessionWriter writer(*this, id, key, std::move(lock), /*maintain_read_model=*/true);
    RETURN_IF_ERROR(writer.LoadState(/*rebuild_read_model=*/true));
    if (progress) progress(static_cast<int64_t>(i + 1), static_cast<int64_t>(sessions.size()));
  }
  return store::CatchUpSearchIndex(db_);
}

Status EventStore::CatchUpSearchIndex() {
  if (!maintain_read_model_) return Status::Ok();
  // A transaction per session: appends of other processes wait for one
  // session's backlog at most (measured by bench/load_bench.cc).
  ASSIGN_OR_RETURN(std::vector<int64_t> behind, store::SessionsBehindInSearch(db_));
  for (int64_t session : behind) {
    ASSIGN_OR_RETURN(Transaction tx, Transaction::Begin(db_));
    RETURN_IF_ERROR(store::CatchUpSessionSearchIndex(db_, session));
    RETURN_IF_ERROR(tx.Commit());
  }
  return Status::Ok();
}

}  // namespace retrace::store
