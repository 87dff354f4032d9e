// Export, the use case: a stored session written back as a dsh JSONL log
// (raw or zstd), byte-exact to what was imported (store/exporter.h): to a
// stream, to a file (atomically), or into a dsh root directory.
#ifndef RETRACE_SERVICE_EXPORT_H_
#define RETRACE_SERVICE_EXPORT_H_

#include <functional>
#include <string>
#include <string_view>

#include "engine/base/status.h"
#include "service/catalog.h"

namespace retrace::service {

struct ExportOptions {
  bool zstd = false;
  std::string file{};      // write this file (atomically; a device or pipe in place)
  std::string dsh_root{};  // or into DIR/<projectKey(cwd)>/<encodeSegment(id)>/session.jsonl[.zstd]
};

// Writes the session where `options` says, or to `sink` when it names no
// place. Returns the path written ("" for the sink). Naming both a file and
// a dsh root is InvalidArgument.
Result<std::string> ExportSession(const Catalog& catalog, const std::string& session_id, const ExportOptions& options,
                                  const std::function<Status(std::string_view)>& sink = {});

}  // namespace retrace::service

#endif  // RETRACE_SERVICE_EXPORT_H_
