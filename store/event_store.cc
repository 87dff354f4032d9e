#include "store/event_store.h"

#include <sys/stat.h>

#include "engine/json/parser.h"
#include "store/chunk_rows.h"
#include "store/session_writer.h"

namespace retrace::store {
namespace {

// event_id = (session key << 32) | seq: the events table is clustered by
// (session, seq). Written to disk; never change.
constexpr int kSeqBits = 32;
int64_t EventId(int64_t key, int64_t seq) { return (key << kSeqBits) | seq; }

bool FileHasBytes(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && st.st_size > 0;
}

Status NoSession(std::string_view id) { return Status::NotFound("no session \"" + std::string(id) + "\" in the store"); }

constexpr std::string_view kSummarySelect =
    "SELECT s.session_id, s.created_at, s.cwd, s.parent_session, s.next_seq, s.source,"
    " (SELECT count(*) FROM events e WHERE e.event_id BETWEEN (s.id << 32) AND (s.id << 32) + 4294967295"
    "   AND e.type = 'turn/start'),"
    " (SELECT count(*) FROM events e WHERE e.type = 'tool/call' AND e.session = s.id)"
    " FROM sessions s";

}  // namespace

Result<std::unique_ptr<EventStore>> EventStore::Open(const std::string& path, StoreOptions options) {
  const bool existed = FileHasBytes(path);
  if (!existed && !options.create) return Status::NotFound("no database at " + path);
  ASSIGN_OR_RETURN(Db db, Db::Open(path, existed || !options.create ? Db::Mode::kReadWrite : Db::Mode::kReadWriteCreate));
  std::unique_ptr<EventStore> store(new EventStore(std::move(db)));
  RETURN_IF_ERROR(store->Init(options, existed));
  return store;
}

EventStore::~EventStore() = default;

Status EventStore::Init(const StoreOptions& options, bool existed) {
  // Inspect before touching anything: a foreign or newer file is never modified.
  ASSIGN_OR_RETURN(MigrationState state, InspectSchema(db_, options.migrations));
  if (!state.pending.empty() && existed && !state.fresh && !options.migrate) {
    return Status::FailedPrecondition(path() + " has schema version " + std::to_string(state.current_version) +
                                      "; this retrace needs version " +
                                      std::to_string(state.pending.back().version) + ": run `retrace migrate`");
  }
  RETURN_IF_ERROR(db_.Exec("PRAGMA journal_mode = WAL"));
  RETURN_IF_ERROR(db_.Exec(options.durability == Durability::kFull ? "PRAGMA synchronous = FULL"
                                                                   : "PRAGMA synchronous = NORMAL"));
  RETURN_IF_ERROR(db_.Exec("PRAGMA foreign_keys = ON"));
  return ApplyMigrations(db_, state.pending, options.now_ms());
}

Status EventStore::CreateSession(const log::SessionHeader& h, const std::string& header_text,
                                 const std::optional<std::string>& source) {
  ASSIGN_OR_RETURN(Statement st, Statement::Prepare(db_,
      "INSERT INTO sessions(session_id, header, created_at, cwd, parent_session, next_seq, source)"
      " VALUES(?,?,?,?,?,0,?)"));
  st.Bind(1, h.id).Bind(2, header_text).Bind(3, h.created_at).Bind(4, h.cwd).Bind(5, h.parent_session).Bind(6, source);
  Status run = st.Run();
  if (run.code() == Status::Code::kConflict)
    return Status::AlreadyExists("session \"" + h.id + "\" already exists in " + path());
  return run;
}

Result<int64_t> EventStore::SessionKey(std::string_view session_id) {
  ASSIGN_OR_RETURN(Statement st, Statement::Prepare(db_, "SELECT id FROM sessions WHERE session_id = ?"));
  st.Bind(1, session_id);
  ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return NoSession(session_id);
  return st.Int(0);
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
  return s;
}

Result<std::vector<SessionSummary>> EventStore::ListSessions() {
  ASSIGN_OR_RETURN(Statement st, Statement::Prepare(db_, std::string(kSummarySelect) +
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
  ASSIGN_OR_RETURN(Statement st, Statement::Prepare(db_, std::string(kSummarySelect) + " WHERE s.session_id = ?"));
  st.Bind(1, session_id);
  ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return NoSession(session_id);
  return Summarize(st);
}

Result<std::pair<int64_t, std::vector<std::string>>> EventStore::RowMembers(int64_t key, int64_t seq) {
  ASSIGN_OR_RETURN(Statement st, Statement::Prepare(db_,
      "SELECT seq, row_text FROM events WHERE event_id BETWEEN ? AND ? AND row_text IS NOT NULL"
      " ORDER BY event_id DESC LIMIT 1"));
  st.Bind(1, EventId(key, 0)).Bind(2, EventId(key, seq));
  ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return Status::Corruption("event at seq " + std::to_string(seq) + " has neither text nor a packed row");
  const int64_t seq0 = st.Int(0);
  auto parsed = json::Parse(st.Text(1));
  if (!parsed.ok()) return Status::Corruption("stored packed row at seq " + std::to_string(seq0) + ": " + parsed.status().message());
  ASSIGN_OR_RETURN(std::vector<log::EventRecord> members, DecodeChunkRow(*parsed));
  std::vector<std::string> texts;
  texts.reserve(members.size());
  for (auto& m : members) texts.push_back(std::move(m.text));
  return std::make_pair(seq0, std::move(texts));
}

Status EventStore::ForEachEvent(std::string_view session_id, const EventFilter& filter,
                                const std::function<Status(const StoredEvent&)>& fn) {
  ASSIGN_OR_RETURN(int64_t key, SessionKey(session_id));
  std::string sql = "SELECT seq, type, time, json FROM events WHERE event_id BETWEEN ? AND ?";
  if (filter.type) sql += " AND type = ?";
  sql += " ORDER BY event_id";
  ASSIGN_OR_RETURN(Statement st, Statement::Prepare(db_, sql));
  st.Bind(1, EventId(key, std::max<int64_t>(0, filter.from_seq))).Bind(2, EventId(key, (int64_t{1} << kSeqBits) - 1));
  if (filter.type) st.Bind(3, *filter.type);
  // Members of packed rows are decoded once per row.
  int64_t row_seq0 = -1;
  std::vector<std::string> row_texts;
  while (true) {
    ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) return Status::Ok();
    StoredEvent e{st.Int(0), std::string(st.Text(1)), st.Int(2), std::string()};
    if (!st.IsNull(3)) {
      e.json = std::string(st.Text(3));
    } else {
      if (row_seq0 < 0 || e.seq < row_seq0 || e.seq >= row_seq0 + static_cast<int64_t>(row_texts.size())) {
        ASSIGN_OR_RETURN(auto members, RowMembers(key, e.seq));
        row_seq0 = members.first;
        row_texts = std::move(members.second);
      }
      if (e.seq - row_seq0 >= static_cast<int64_t>(row_texts.size()))
        return Status::Corruption("packed row at seq " + std::to_string(row_seq0) + " does not cover seq " + std::to_string(e.seq));
      e.json = std::move(row_texts[e.seq - row_seq0]);
    }
    RETURN_IF_ERROR(fn(e));
  }
}

Status EventStore::ForEachStorageLine(std::string_view session_id, const std::function<Status(std::string_view)>& fn) {
  ASSIGN_OR_RETURN(int64_t key, SessionKey(session_id));
  ASSIGN_OR_RETURN(Statement st, Statement::Prepare(db_,
      "SELECT json, row_text, row_len FROM events WHERE event_id BETWEEN ? AND ? AND row_len > 0 ORDER BY event_id"));
  st.Bind(1, EventId(key, 0)).Bind(2, EventId(key, (int64_t{1} << kSeqBits) - 1));
  while (true) {
    ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) return Status::Ok();
    RETURN_IF_ERROR(fn(st.IsNull(1) ? st.Text(0) : st.Text(1)));
  }
}

Result<std::string> EventStore::EventText(int64_t key, int64_t seq) {
  ASSIGN_OR_RETURN(Statement st, Statement::Prepare(db_, "SELECT json FROM events WHERE event_id = ?"));
  st.Bind(1, EventId(key, seq));
  ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return Status::NotFound("no event at seq " + std::to_string(seq));
  if (!st.IsNull(0)) return std::string(st.Text(0));
  ASSIGN_OR_RETURN(auto members, RowMembers(key, seq));
  const int64_t k = seq - members.first;
  if (k >= static_cast<int64_t>(members.second.size())) return Status::Corruption("packed row does not cover seq " + std::to_string(seq));
  return std::move(members.second[k]);
}

Result<log::Event> EventStore::LoadEvent(int64_t key, int64_t seq) {
  ASSIGN_OR_RETURN(std::string text, EventText(key, seq));
  auto e = log::ParseEvent(text);
  if (!e.ok()) return e.status().WithContext("stored event at seq " + std::to_string(seq));
  return e;
}

Result<std::unique_ptr<SessionWriter>> EventStore::OpenWriter(std::string_view session_id) {
  ASSIGN_OR_RETURN(int64_t key, SessionKey(session_id));
  ASSIGN_OR_RETURN(WriterLock lock, WriterLock::Acquire(path(), key, std::string(session_id)));
  std::unique_ptr<SessionWriter> w(new SessionWriter(*this, std::string(session_id), key, std::move(lock)));
  RETURN_IF_ERROR(w->LoadState());
  return w;
}

}  // namespace retrace::store
