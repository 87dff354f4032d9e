// Import of dsh JSONL logs (raw or zstd) into the EventStore.
//
// One transaction per imported file: a failed import leaves the database as
// it was. The committed events are stored as they are in the file (verbatim
// text, packed rows kept); a torn tail is dropped and reported, and no
// closers are added (`retrace repair` does that later, atomically).
//
// Re-importing is safe: events already stored with identical text are
// skipped, new events past the stored end are appended (a log that grew),
// and a different event at a stored seq is a Conflict.
#ifndef RETRACE_STORE_IMPORTER_H_
#define RETRACE_STORE_IMPORTER_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include <retrace/engine/base/status.h>
#include <retrace/store/event_store.h>
#include <retrace/format/jsonl_reader.h>

namespace retrace::store {

struct ImportProgress {
  uint64_t bytes_done = 0;   // physical bytes read
  uint64_t bytes_total = 0;
  int64_t events = 0;        // events decoded so far
};

struct ImportOptions {
  // Called about every 4096 records and once at the end.
  std::function<void(const ImportProgress&)> progress;
};

struct ImportReport {
  std::string session_id;
  bool created = false;         // a new session (else an existing one was matched)
  bool compressed = false;      // the file was zstd
  int64_t events_in_file = 0;   // committed events decoded from the file
  int64_t events_added = 0;     // events newly stored
  int64_t storage_lines = 0;    // lines after the header (packed rows count once)
  std::optional<format::TornTail> torn_tail;
};

Result<ImportReport> ImportJsonl(EventStore& store, const std::string& path, const ImportOptions& options = {});

}  // namespace retrace::store

#endif  // RETRACE_STORE_IMPORTER_H_
