#include "service/import.h"

#include <filesystem>

#include "store/event_source.h"

namespace retrace::service {
namespace {

Result<std::vector<std::string>> LogFiles(const std::vector<std::string>& inputs) {
  std::vector<std::string> files;
  for (const std::string& in : inputs) {
    std::error_code ec;
    if (!std::filesystem::exists(in, ec)) return Status::NotFound("no such file or directory: " + in);
    if (!std::filesystem::is_directory(in, ec)) {
      files.push_back(in);
      continue;
    }
    std::vector<std::string> found = store::LogFilesIn(in);
    if (found.empty()) return Status::NotFound("no .jsonl or .jsonl.zstd files under " + in);
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

}  // namespace

Result<ImportSummary> ImportLogs(const Catalog& catalog, const std::vector<std::string>& inputs,
                                 const ImportListener& listener) {
  ASSIGN_OR_RETURN(std::vector<std::string> files, LogFiles(inputs));
  ASSIGN_OR_RETURN(std::unique_ptr<store::EventStore> store, catalog.Open(Access::kCreate));
  ImportSummary summary;
  summary.files = files.size();
  for (const std::string& path : files) {
    store::ImportOptions options;
    if (listener.progress) options.progress = [&](const store::ImportProgress& p) { listener.progress(path, p); };
    Result<store::ImportReport> report = store::ImportJsonl(*store, path, options);
    if (!report.ok()) {
      if (summary.refused++ == 0) summary.first_error = report.status();
    }
    if (listener.done) listener.done(path, report);
  }
  return summary;
}

}  // namespace retrace::service
