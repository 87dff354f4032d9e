#include "store/importer.h"

#include "store/session_writer.h"

namespace retrace::store {
namespace {

constexpr int64_t kProgressEvery = 4096;

// Finds or creates the session of `reader` inside the open transaction.
Result<bool> EnsureSession(EventStore& store, const JsonlReader& reader, const std::string& path) {
  const std::string& id = reader.header().id;
  auto existing = store.HeaderText(id);
  if (existing.ok()) {
    if (*existing != reader.header_text()) {
      return Status::Conflict(path + ": session \"" + id + "\" already exists in " + store.path() +
                              " with a different header line");
    }
    return false;
  }
  if (existing.status().code() != Status::Code::kNotFound) return existing.status();
  RETURN_IF_ERROR(store.CreateSession(reader.header(), reader.header_text(), path));
  return true;
}

}  // namespace

Result<ImportReport> ImportJsonl(EventStore& store, const std::string& path, const ImportOptions& options) {
  ASSIGN_OR_RETURN(auto reader, JsonlReader::Open(path));
  ImportReport report;
  report.session_id = reader->header().id;
  report.compressed = reader->compressed();

  ASSIGN_OR_RETURN(Transaction tx, Transaction::Begin(store.db()));
  ASSIGN_OR_RETURN(report.created, EnsureSession(store, *reader, path));
  ASSIGN_OR_RETURN(auto writer, store.OpenWriter(report.session_id));
  auto progress = [&] {
    if (options.progress)
      options.progress({reader->source().physical_read(), reader->source().physical_size(), report.events_in_file});
  };
  while (true) {
    ASSIGN_OR_RETURN(std::optional<StorageRecord> rec, reader->Next());
    if (!rec) break;
    const int64_t n = rec->count;
    Result<log::AppendOutcome> outcome = log::AppendOutcome::kAppended;
    if (rec->packed) {
      outcome = writer->AppendPackedRowInTransaction(*rec->packed, rec->text);
    } else {
      const log::EventRecord event{std::move(rec->event), std::move(rec->text)};
      outcome = writer->AppendInTransaction(event.event.seq, std::span(&event, 1));
    }
    if (!outcome.ok()) return outcome.status().WithContext(path + ":" + std::to_string(rec->line));
    if (*outcome == log::AppendOutcome::kAppended) report.events_added += n;
    report.events_in_file += n;
    if (++report.storage_lines % kProgressEvery == 0) progress();
  }
  report.torn_tail = reader->torn_tail();
  RETURN_IF_ERROR(writer->PersistNextSeq());
  RETURN_IF_ERROR(tx.Commit());
  progress();
  return report;
}

}  // namespace retrace::store
