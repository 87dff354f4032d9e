#include "store/session_writer.h"

#include <algorithm>

#include "engine/log/event_types.h"
#include "engine/log/legacy_import.h"
#include "engine/log/turn_closers.h"
#include "store/event_id.h"
#include "format/fast_json_parser.h"

namespace retrace::store {
namespace {

std::optional<int64_t> AsInt(const json::Value& v) {
  return v.is_safe_integer() ? std::optional<int64_t>(static_cast<int64_t>(v.as_number())) : std::nullopt;
}

}  // namespace

Result<const log::Event*> SessionWriter::CheckLegacyAware(const log::Event& e, log::Event& upgraded) {
  if (!log::IsLegacyShape(e)) {
    RETURN_IF_ERROR(checker_.Check(e));
    return &e;
  }
  upgraded = e;
  auto replaced_id = [&](int64_t seq) { return checker_.surface().ToolResultMessageId(seq); };
  ASSIGN_OR_RETURN(bool changed, log::ImportLegacy(upgraded, session_id_, replaced_id));
  (void)changed;
  RETURN_IF_ERROR(checker_.Check(upgraded));
  return &upgraded;
}

Result<const log::Event*> SessionWriter::CheckAndDerive(const log::Event& e, log::Event& upgraded,
                                                        std::vector<ReadModelWrite>* writes) {
  if (!writes) return CheckLegacyAware(e, upgraded);
  // A replace names the nodes it shadows by position: keep the surface as it
  // was (replaces are rare, so the copy is too).
  std::optional<log::SurfaceFold> before;
  if (e.surface_op && e.surface_op->kind == log::SurfaceOp::Kind::kReplace) before = checker_.surface();
  ASSIGN_OR_RETURN(const log::Event* normalized, CheckLegacyAware(e, upgraded));
  *writes = DeriveReadModel(*normalized, before ? *before : checker_.surface());
  return normalized;
}

Status SessionWriter::LoadState(bool rebuild_read_model) {
  log::Event chunk;
  chunk.type = log::kAssistantChunk;
  log::Event upgraded;
  format::FastJsonParser parser;
  Status st = store_.ForEachRow(key_, {}, [&](const StoredRow& r) -> Status {
    if (!r.packed.empty()) {
      for (int64_t k = 0; k < r.count; ++k) {  // members are plain deltas: only seqs matter
        chunk.seq = r.seq + k;
        RETURN_IF_ERROR(checker_.Check(chunk));
      }
      return Status::Ok();
    }
    auto e = parser.ParseEvent(r.json);
    if (!e.ok()) return e.status().WithContext("stored event at seq " + std::to_string(r.seq));
    if (!rebuild_read_model) return CheckLegacyAware(*e, upgraded).status();
    std::vector<ReadModelWrite> writes;
    RETURN_IF_ERROR(CheckAndDerive(*e, upgraded, &writes).status());
    return read_model_.Apply(key_, writes);
  });
  if (!st.ok()) return st.WithContext("session \"" + session_id_ + "\" failed validation");
  return Status::Ok();
}

// --- Prepare stage: checker only ------------------------------------------

Result<bool> SessionWriter::AlreadyStored(int64_t first_seq, int64_t count) const {
  const int64_t next = checker_.next_seq();
  if (first_seq > next) {
    return Status::InvalidArgument("append gap for session \"" + session_id_ + "\": the log ends before seq " +
                                   std::to_string(next) + ", the line starts at seq " + std::to_string(first_seq));
  }
  if (first_seq < next && first_seq + count > next) {
    return Status::Conflict("append conflict for session \"" + session_id_ + "\": the line at seq " +
                            std::to_string(first_seq) + " straddles the end of the stored log (seq " +
                            std::to_string(next) + ")");
  }
  return first_seq < next;
}

Result<PreparedRow> SessionWriter::PrepareEvent(const log::Event& e) {
  PreparedRow row;
  row.seq = e.seq;
  row.time = e.time;
  row.type = e.type;
  ASSIGN_OR_RETURN(row.resend, AlreadyStored(e.seq, 1));
  if (row.resend) return row;
  log::Event upgraded;
  ASSIGN_OR_RETURN(const log::Event* normalized,
                   CheckAndDerive(e, upgraded, maintain_read_model_ ? &row.read_model : nullptr));
  row.columns = ExtractColumns(*normalized);
  return row;
}

Result<PreparedRow> SessionWriter::PreparePackedRow(const format::PackedRow& p, std::string text) {
  PreparedRow row;
  row.seq = p.seq0;
  row.count = p.count;
  row.time = p.time0;
  row.type = log::kAssistantChunk;
  row.packed = p.tag;
  row.text = std::move(text);
  row.columns.turn = AsInt(p.turn);
  row.columns.step = AsInt(p.step);
  ASSIGN_OR_RETURN(row.resend, AlreadyStored(p.seq0, p.count));
  if (row.resend) return row;
  log::Event member;  // members are plain deltas: only their seqs matter to the checker
  member.type = log::kAssistantChunk;
  for (int64_t k = 0; k < p.count; ++k) {
    member.seq = p.seq0 + k;
    RETURN_IF_ERROR(checker_.Check(member));
  }
  return row;
}

Result<PreparedRow> SessionWriter::Prepare(format::StorageRecord rec) {
  if (rec.packed) return PreparePackedRow(*rec.packed, std::move(rec.text));
  ASSIGN_OR_RETURN(PreparedRow row, PrepareEvent(rec.event));
  row.text = std::move(rec.text);
  return row;
}

PreparedRow SessionWriter::DerivedRow(const log::Event& e) const {
  PreparedRow row;
  row.seq = e.seq;
  row.time = e.time;
  row.type = e.type;
  row.columns = ExtractColumns(e);
  if (maintain_read_model_) {
    static const log::SurfaceFold kUnread;  // read for a replace only, which is derived at once
    row.read_model = DeriveReadModel(e, kUnread);
  }
  return row;
}

// --- Store stage: database only --------------------------------------------

Result<log::AppendOutcome> SessionWriter::CompareResend(const PreparedRow& row, std::string_view text) {
  // Compare event by event: the stored layout (packed or not) may differ.
  std::vector<log::EventRecord> events;
  if (row.packed.empty()) {
    events.push_back({log::Event{row.type, row.seq, row.time, {}, {}, {}, false}, std::string(text)});
  } else {
    ASSIGN_OR_RETURN(events, format::DecodeStoredChunkRow(text, row.seq));
  }
  return ClassifyAgainstStore(events);
}

Result<log::AppendOutcome> SessionWriter::ClassifyAgainstStore(std::span<const log::EventRecord> events) {
  std::string stored;  // a missing seq reads as nullptr: past the stored end
  return log::ClassifyResend(session_id_, events, [&](int64_t seq) -> const std::string* {
    auto text = store_.EventText(key_, seq);
    if (!text.ok()) return nullptr;
    stored = std::move(text).value();
    return &stored;
  });
}

Result<log::AppendOutcome> SessionWriter::Store(const PreparedRow& row, std::string_view text) {
  if (row.resend) return CompareResend(row, text);
  if (!insert_) {
    ASSIGN_OR_RETURN(insert_, Statement::Prepare(store_.db_,
        store_.chains_ ? "INSERT INTO events(event_id, session, seq, count, type, time, turn, step, call_id, tool_name,"
                         " is_error, surface, packed, json, link) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
                       : "INSERT INTO events(event_id, session, seq, count, type, time, turn, step, call_id, tool_name,"
                         " is_error, surface, packed, json) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)"));
  }
  Link link{};
  if (store_.chains_) {
    ASSIGN_OR_RETURN(Link previous, ChainTail(row.seq));
    link = NextLink(previous, text);
    insert_->BindBlob(15, link.data(), link.size());
  }
  const EventColumns& c = row.columns;
  Statement& st = *insert_;
  st.Bind(1, EventId(key_, row.seq)).Bind(2, key_).Bind(3, row.seq).Bind(4, row.count).Bind(5, row.type, true);
  st.Bind(6, row.time).Bind(7, c.turn).Bind(8, c.step).Bind(9, c.call_id).Bind(10, c.tool_name);
  st.Bind(11, c.is_error).Bind(12, c.surface);
  if (row.packed.empty()) st.BindNull(13); else st.Bind(13, row.packed, true);
  st.Bind(14, text, true);
  RETURN_IF_ERROR(st.Run());
  if (store_.chains_) {
    chain_end_ = row.seq + row.count;
    chain_link_ = link;
  }
  RETURN_IF_ERROR(read_model_.Apply(key_, row.read_model));
  return log::AppendOutcome::kAppended;
}

Result<Link> SessionWriter::ChainTail(int64_t seq) {
  if (seq == chain_end_) return chain_link_;
  if (seq == 0) {
    ASSIGN_OR_RETURN(std::string header, store_.HeaderText(session_id_));
    return GenesisLink(header);
  }
  if (!tail_) {
    ASSIGN_OR_RETURN(tail_, Statement::Prepare(store_.db_,
        "SELECT link FROM events WHERE event_id BETWEEN ?1 AND ?2 ORDER BY event_id DESC LIMIT 1"));
  }
  tail_->Reset();
  tail_->Bind(1, EventId(key_, 0)).Bind(2, EventId(key_, seq - 1));
  ASSIGN_OR_RETURN(bool found, tail_->Step());
  const std::string_view stored = found ? tail_->Blob(0) : std::string_view();
  if (stored.size() != Link{}.size()) {
    return Status::Corruption("session \"" + session_id_ + "\": the row before seq " + std::to_string(seq) +
                              " has no chain link (`retrace verify` says more)");
  }
  Link previous{};
  std::copy(stored.begin(), stored.end(), previous.begin());
  tail_->Reset();
  return previous;
}

// --- Single-threaded appends ------------------------------------------------

Result<log::AppendOutcome> SessionWriter::Append(int64_t expected, std::span<const log::EventRecord> batch) {
  ASSIGN_OR_RETURN(Transaction tx, Transaction::Begin(store_.db_));
  // The writer lock excludes other writers; this guards against edits behind its back.
  ASSIGN_OR_RETURN(int64_t stored, store_.NextSeq(key_));
  if (stored != checker_.next_seq()) {
    return Status::Conflict("session \"" + session_id_ + "\" changed underneath its writer (stored next seq " +
                            std::to_string(stored) + ", writer expected " + std::to_string(checker_.next_seq()) + ")");
  }
  RETURN_IF_ERROR(log::CheckBatchSeqs(session_id_, expected, stored, batch));
  if (expected < stored) return ClassifyAgainstStore(batch);
  checker_.Mark();
  Status st;
  for (const log::EventRecord& r : batch) {
    auto row = PrepareEvent(r.event);
    st = row.ok() ? Store(*row, r.text).status() : row.status();
    if (!st.ok()) break;
  }
  if (st.ok()) st = tx.Commit();
  if (!st.ok()) {
    checker_.Rollback();  // the transaction rolls back; so does our view of it
    return st;
  }
  return log::AppendOutcome::kAppended;
}

// --- Journaled appends ------------------------------------------------------

namespace {

// What PreparedAppend derives at once (see there).
bool DerivedAtOnce(const log::Event& e) {
  return (e.surface_op && e.surface_op->kind == log::SurfaceOp::Kind::kReplace) || log::IsLegacyShape(e);
}

}  // namespace

Result<PreparedAppend> SessionWriter::PrepareAppend(int64_t expected, std::span<const log::EventRecord> batch) {
  RETURN_IF_ERROR(log::CheckBatchSeqs(session_id_, expected, checker_.next_seq(), batch));
  if (expected != checker_.next_seq()) {  // a resend: the caller compares it with the store instead
    return Status::FailedPrecondition("a journaled append must start at the end of the log (seq " +
                                      std::to_string(checker_.next_seq()) + ")");
  }
  checker_.Mark();
  PreparedAppend append;
  size_t bytes = 0;
  for (const log::EventRecord& r : batch) bytes += r.text.size();
  append.lines.reserve(bytes);
  append.ends.reserve(batch.size());
  for (size_t i = 0; i < batch.size(); ++i) {
    const log::EventRecord& r = batch[i];
    Status st;
    if (DerivedAtOnce(r.event)) {
      Result<PreparedRow> row = PrepareEvent(r.event);
      st = row.status();
      if (row.ok()) append.at_once.emplace_back(i, std::move(row).value());
    } else {
      st = checker_.Check(r.event);
    }
    if (!st.ok()) {
      checker_.Rollback();
      return st;
    }
    append.lines.append(r.text);
    append.ends.push_back(append.lines.size());
  }
  return append;
}

Status SessionWriter::StoreAppend(const PreparedAppend& append) {
  auto at_once = append.at_once.begin();
  for (size_t i = 0; i < append.ends.size(); ++i) {
    const std::string_view text = append.line(i);
    if (at_once != append.at_once.end() && at_once->first == i) {
      RETURN_IF_ERROR(Store((at_once++)->second, text).status());
      continue;
    }
    Result<log::Event> event = log::ParseEvent(text);
    if (!event.ok()) return event.status().WithContext("a journaled line of session \"" + session_id_ + "\"");
    RETURN_IF_ERROR(Store(DerivedRow(*event), text).status());
  }
  return Status::Ok();
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
  for (log::Event& e : log::InterruptedTurnClosers(events)) {
    closers.push_back(log::MakeRecord(std::move(e), log::EnvelopeOrder::kRepairCloser));
  }
  if (closers.empty()) return int64_t{0};
  ASSIGN_OR_RETURN(log::AppendOutcome outcome, Append(closers.front().event.seq, closers));
  (void)outcome;
  return static_cast<int64_t>(closers.size());
}

}  // namespace retrace::store
