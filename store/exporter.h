// Export of a stored session as a dsh JSONL log: the verbatim header line,
// then every storage line as it was imported (packed chunk rows included) or
// appended (one event per line). Raw, or zstd as dsh writes it: frame 1 holds
// the header line, later frames hold whole lines (about 1 MiB of text each),
// every frame with a content checksum.
#ifndef RETRACE_STORE_EXPORTER_H_
#define RETRACE_STORE_EXPORTER_H_

#include <functional>
#include <string>
#include <string_view>

#include <retrace/engine/base/status.h>
#include <retrace/store/event_store.h>

namespace retrace::store {

using ByteSink = std::function<Status(std::string_view)>;

Status ExportSession(EventStore& store, std::string_view session_id, bool zstd, const ByteSink& sink);

// Writes the export to `path` atomically, replacing an existing file.
Status ExportToFile(EventStore& store, std::string_view session_id, bool zstd, const std::string& path);

// Writes the export into a dsh root (dsh_layout.h); never overwrites, and
// refuses a root that already holds logs of the other encoding. Returns the
// path written.
Result<std::string> ExportToDshRoot(EventStore& store, std::string_view session_id, bool zstd, const std::string& root);

}  // namespace retrace::store

#endif  // RETRACE_STORE_EXPORTER_H_
