// Import, the use case: dsh logs into the catalog's database, each file in
// its own transaction (store/importer.h), directories expanded into the logs
// under them by the one rule of store/event_source.h.
#ifndef RETRACE_SERVICE_IMPORT_H_
#define RETRACE_SERVICE_IMPORT_H_

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "service/catalog.h"
#include "store/importer.h"

namespace retrace::service {

struct ImportListener {
  // Progress within a file (about every 4096 records, and at its end).
  std::function<void(const std::string& path, const store::ImportProgress&)> progress{};
  // Each file's outcome: its report, or why it was refused (the database
  // then holds nothing of it, and the import goes on with the next file).
  std::function<void(const std::string& path, const Result<store::ImportReport>&)> done{};
};

struct ImportSummary {
  size_t files = 0;
  size_t refused = 0;
  Status first_error = Status::Ok();  // the first refusal, for the exit code
};

// The files `inputs` name (a directory: every log under it, in path order),
// imported one by one. An input that names nothing, a directory without a
// log, or a database that cannot be opened is an error before any import.
Result<ImportSummary> ImportLogs(const Catalog& catalog, const std::vector<std::string>& inputs,
                                 const ImportListener& listener = {});

}  // namespace retrace::service

#endif  // RETRACE_SERVICE_IMPORT_H_
