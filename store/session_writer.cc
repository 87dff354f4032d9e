#include "store/session_writer.h"

#include <map>

#include "engine/json/parser.h"
#include "engine/log/legacy_import.h"
#include "engine/log/turn_closers.h"
#include "store/event_columns.h"

namespace retrace::store {
namespace {

int64_t EventId(int64_t key, int64_t seq) { return (key << 32) | seq; }

// Resolves earlier events for the checker: this batch first, then the store.
class BatchLookup {
 public:
  BatchLookup(EventStore& store, int64_t key, const std::vector<const log::Event*>& batch)
      : store_(store), key_(key), batch_(batch) {}
  const log::Event* operator()(int64_t seq) {
    for (const log::Event* e : batch_)
      if (e->seq == seq) return e;
    auto it = cache_.find(seq);
    if (it != cache_.end()) return &it->second;
    auto loaded = store_.LoadEvent(key_, seq);
    if (!loaded.ok()) return nullptr;
    log::Event e = std::move(loaded).value();
    if (log::IsLegacyShape(e) && !log::ImportLegacy(e, "", [](int64_t) { return nullptr; }).ok()) return nullptr;
    return &cache_.emplace(seq, std::move(e)).first->second;
  }

 private:
  EventStore& store_;
  int64_t key_;
  const std::vector<const log::Event*>& batch_;
  std::map<int64_t, log::Event> cache_;
};

}  // namespace

Status SessionWriter::LoadState() {
  log::SessionChecker checker(session_id_);
  std::vector<log::Event> events;  // plain events, by seq, for the checker's lookups
  std::map<int64_t, size_t> index;
  auto lookup = [&](int64_t seq) -> const log::Event* {
    auto it = index.find(seq);
    return it == index.end() ? nullptr : &events[it->second];
  };
  log::Event chunk;
  chunk.type = "assistant/chunk";
  Status st = store_.ForEachRow(key_, 0, std::nullopt, [&](const StoredRow& r) -> Status {
    if (!r.packed.empty()) {
      for (int64_t k = 0; k < r.count; ++k) {  // members: validated when stored
        chunk.seq = r.seq + k;
        RETURN_IF_ERROR(checker.Check(chunk, lookup));
      }
      return Status::Ok();
    }
    auto e = log::ParseEvent(r.json);
    if (!e.ok()) return e.status().WithContext("stored event at seq " + std::to_string(r.seq));
    log::Event ev = std::move(e).value();
    if (log::IsLegacyShape(ev)) {
      auto changed = log::ImportLegacy(ev, session_id_, lookup);
      if (!changed.ok()) return changed.status();
    }
    RETURN_IF_ERROR(checker.Check(ev, lookup));
    // Only surface events can be looked up (by tool/result replacements).
    if (ev.surface_op) {
      index[ev.seq] = events.size();
      events.push_back(std::move(ev));
    }
    return Status::Ok();
  });
  if (!st.ok()) return st.WithContext("session \"" + session_id_ + "\" failed validation");
  checker_ = std::move(checker);
  return Status::Ok();
}

Result<int64_t> SessionWriter::StoredNextSeq() {
  ASSIGN_OR_RETURN(Statement st, Statement::Prepare(store_.db(), "SELECT next_seq FROM sessions WHERE id = ?"));
  st.Bind(1, key_);
  ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return Status::NotFound("session \"" + session_id_ + "\" disappeared");
  return st.Int(0);
}

Status SessionWriter::PrepareInsert() {
  if (insert_) return Status::Ok();
  ASSIGN_OR_RETURN(insert_, Statement::Prepare(store_.db(),
      "INSERT INTO events(event_id, session, seq, count, type, time, turn, step, call_id, tool_name, is_error,"
      " surface, packed, json) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)"));
  return Status::Ok();
}

Status SessionWriter::InsertEvent(const log::EventRecord& r, const log::Event& normalized) {
  RETURN_IF_ERROR(PrepareInsert());
  const EventColumns c = ExtractColumns(normalized);
  Statement& st = *insert_;
  st.Bind(1, EventId(key_, r.event.seq)).Bind(2, key_).Bind(3, r.event.seq).Bind(4, int64_t{1});
  st.Bind(5, r.event.type, true).Bind(6, r.event.time).Bind(7, c.turn).Bind(8, c.step).Bind(9, c.call_id);
  st.Bind(10, c.tool_name).Bind(11, c.is_error).Bind(12, c.surface).BindNull(13).Bind(14, r.text, true);
  return st.Run();
}

Status SessionWriter::InsertPackedRow(const PackedRow& row, const std::string& text) {
  RETURN_IF_ERROR(PrepareInsert());
  auto as_int = [](const json::Value& v) -> std::optional<int64_t> {
    return v.is_safe_integer() ? std::optional<int64_t>(static_cast<int64_t>(v.as_number())) : std::nullopt;
  };
  Statement& st = *insert_;
  st.Bind(1, EventId(key_, row.seq0)).Bind(2, key_).Bind(3, row.seq0).Bind(4, row.count);
  st.Bind(5, "assistant/chunk").Bind(6, row.time0).Bind(7, as_int(row.turn)).Bind(8, as_int(row.step));
  st.BindNull(9).BindNull(10).BindNull(11).BindNull(12).Bind(13, row.tag, true).Bind(14, text, true);
  return st.Run();
}

Result<log::AppendOutcome> SessionWriter::ClassifyResend(std::span<const log::EventRecord> batch) {
  const int64_t next = checker_.next_seq();
  std::string stored;
  return log::ClassifyResend(session_id_, batch, [&](int64_t seq) -> const std::string* {
    if (seq >= next) return nullptr;
    auto text = store_.EventText(key_, seq);
    if (!text.ok()) return nullptr;
    stored = std::move(text).value();
    return &stored;
  });
}

// Validates the batch on the checker (legacy shapes upgraded for validation;
// stored text stays verbatim).
Status SessionWriter::CheckBatch(std::span<const log::EventRecord> batch, std::vector<log::Event>& upgraded,
                                 std::vector<const log::Event*>& normalized) {
  upgraded.reserve(batch.size());
  normalized.reserve(batch.size());
  BatchLookup lookup(store_, key_, normalized);
  auto fn = [&](int64_t seq) { return lookup(seq); };
  for (const log::EventRecord& r : batch) {
    const log::Event* e = &r.event;
    if (log::IsLegacyShape(r.event)) {
      upgraded.push_back(r.event);
      ASSIGN_OR_RETURN(bool changed, log::ImportLegacy(upgraded.back(), session_id_, fn));
      (void)changed;
      e = &upgraded.back();
    }
    RETURN_IF_ERROR(checker_.Check(*e, fn));
    normalized.push_back(e);
  }
  return Status::Ok();
}

Result<log::AppendOutcome> SessionWriter::AppendInTransaction(int64_t expected, std::span<const log::EventRecord> batch) {
  const int64_t next = checker_.next_seq();
  RETURN_IF_ERROR(log::CheckBatchSeqs(session_id_, expected, next, batch));
  if (expected < next) return ClassifyResend(batch);
  std::vector<log::Event> upgraded;
  std::vector<const log::Event*> normalized;
  checker_.Mark();
  Status st = CheckBatch(batch, upgraded, normalized);
  for (size_t i = 0; st.ok() && i < batch.size(); ++i) st = InsertEvent(batch[i], *normalized[i]);
  if (!st.ok()) {
    checker_.Rollback();
    return st;
  }
  return log::AppendOutcome::kAppended;
}

Result<log::AppendOutcome> SessionWriter::AppendPackedRowInTransaction(const PackedRow& row, const std::string& text) {
  const int64_t next = checker_.next_seq();
  if (row.seq0 < next) {
    // A resend: compare member by member (the stored layout may differ).
    auto parsed = json::Parse(text);
    if (!parsed.ok()) return parsed.status();
    return ClassifyResend(ExpandPackedRow(*parsed, row));
  }
  if (row.seq0 > next) {
    return Status::InvalidArgument("append gap for session \"" + session_id_ + "\": the log ends before seq " +
                                   std::to_string(next) + ", the row starts at seq " + std::to_string(row.seq0));
  }
  // Members are plain deltas: only their seqs matter to the checker.
  checker_.Mark();
  log::Event member;
  member.type = "assistant/chunk";
  Status st;
  for (int64_t k = 0; st.ok() && k < row.count; ++k) {
    member.seq = row.seq0 + k;
    member.time = row.times[static_cast<size_t>(k)];
    st = checker_.Check(member, [](int64_t) { return nullptr; });
  }
  if (st.ok()) st = InsertPackedRow(row, text);
  if (!st.ok()) {
    checker_.Rollback();
    return st;
  }
  return log::AppendOutcome::kAppended;
}

Status SessionWriter::PersistNextSeq() {
  if (!bump_) {
    ASSIGN_OR_RETURN(bump_, Statement::Prepare(store_.db(), "UPDATE sessions SET next_seq = ? WHERE id = ?"));
  }
  return bump_->Bind(1, checker_.next_seq()).Bind(2, key_).Run();
}

Result<log::AppendOutcome> SessionWriter::Append(int64_t expected, std::span<const log::EventRecord> batch) {
  ASSIGN_OR_RETURN(Transaction tx, Transaction::Begin(store_.db()));
  // The writer lock excludes other writers; this guards against edits behind its back.
  ASSIGN_OR_RETURN(int64_t stored, StoredNextSeq());
  if (stored != checker_.next_seq()) {
    return Status::Conflict("session \"" + session_id_ + "\" changed underneath its writer (stored next seq " +
                            std::to_string(stored) + ", writer expected " + std::to_string(checker_.next_seq()) + ")");
  }
  auto outcome = AppendInTransaction(expected, batch);
  Status st = outcome.ok() ? PersistNextSeq() : outcome.status();
  if (st.ok()) st = tx.Commit();
  if (!st.ok()) {
    if (outcome.ok()) checker_.Rollback();  // the transaction rolls back; so does our view of it
    return st;
  }
  return outcome;
}

Result<int64_t> SessionWriter::RepairOpenTurn() {
  std::vector<log::Event> events;
  RETURN_IF_ERROR(store_.ForEachEvent(session_id_, EventFilter{}, [&](const StoredEvent& s) -> Status {
    auto e = log::ParseEvent(s.json);
    if (!e.ok()) return e.status();
    events.push_back(std::move(e).value());
    return Status::Ok();
  }));
  std::vector<log::EventRecord> closers;
  for (log::Event& e : log::InterruptedTurnClosers(events))
    closers.push_back(log::MakeRecord(std::move(e), log::EnvelopeOrder::kRepairCloser));
  if (closers.empty()) return int64_t{0};
  ASSIGN_OR_RETURN(log::AppendOutcome outcome, Append(closers.front().event.seq, closers));
  (void)outcome;
  return static_cast<int64_t>(closers.size());
}

}  // namespace retrace::store
