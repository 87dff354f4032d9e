#include "store/importer.h"

#include "format/prefetcher.h"
#include "store/session_writer.h"

namespace retrace::store {
namespace {

constexpr int64_t kProgressEvery = 4096;

// Finds or creates the session of `reader` inside the open transaction.
Result<bool> EnsureSession(EventStore& store, const format::JsonlReader& reader, const std::string& path) {
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
  ASSIGN_OR_RETURN(auto reader, format::JsonlReader::Open(path));
  ImportReport report;
  report.session_id = reader->header().id;
  report.compressed = reader->compressed();

  ASSIGN_OR_RETURN(Transaction tx, store.BeginTransaction());
  ASSIGN_OR_RETURN(report.created, EnsureSession(store, *reader, path));
  ASSIGN_OR_RETURN(auto writer, store.OpenWriter(report.session_id));
  auto progress = [&] {
    if (options.progress) {
      options.progress({reader->source().physical_read(), reader->source().physical_size(), report.events_in_file});
    }
  };
  {
    // Two stages on two cores: read, parse and validate (Prepare) on a
    // background thread; insert (Store) here. Errors keep their file:line.
    format::Prefetcher<PreparedRow> rows([&]() -> Result<std::optional<PreparedRow>> {
      ASSIGN_OR_RETURN(std::optional<format::StorageRecord> rec, reader->Next());
      if (!rec) return std::optional<PreparedRow>();
      const int64_t line = rec->line;
      auto row = writer->Prepare(std::move(*rec));
      if (!row.ok()) return row.status().WithContext(path + ":" + std::to_string(line));
      row->line = line;
      return std::optional<PreparedRow>(std::move(row).value());
    });
    while (true) {
      ASSIGN_OR_RETURN(std::optional<PreparedRow> row, rows.Next());
      if (!row) break;
      auto outcome = writer->Store(*row);
      if (!outcome.ok()) return outcome.status().WithContext(path + ":" + std::to_string(row->line));
      if (*outcome == log::AppendOutcome::kAppended) report.events_added += row->count;
      report.events_in_file += row->count;
      if (++report.storage_lines % kProgressEvery == 0) progress();
    }
  }
  report.torn_tail = reader->torn_tail();
  RETURN_IF_ERROR(tx.Commit());
  progress();
  return report;
}

}  // namespace retrace::store
