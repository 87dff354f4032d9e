// retrace import <file|dir>...
#include <filesystem>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/exit_codes.h"
#include "cli/format.h"
#include "store/importer.h"

namespace retrace::cli {
namespace {

namespace fs = std::filesystem;

bool IsLogFile(const fs::path& p) {
  const std::string name = p.filename().string();
  auto ends = [&](std::string_view s) { return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0; };
  return ends(".jsonl") || ends(".jsonl.zstd");
}

// Expands directories (recursively, sorted) into their .jsonl / .jsonl.zstd files.
Result<std::vector<std::string>> CollectFiles(const std::vector<std::string>& inputs) {
  std::vector<std::string> files;
  for (const std::string& in : inputs) {
    std::error_code ec;
    if (!fs::exists(in, ec)) return Status::NotFound("no such file or directory: " + in);
    if (!fs::is_directory(in, ec)) {
      files.push_back(in);
      continue;
    }
    std::vector<std::string> found;
    for (const auto& entry : fs::recursive_directory_iterator(in, ec)) {
      if (entry.is_regular_file() && IsLogFile(entry.path())) found.push_back(entry.path().string());
    }
    std::sort(found.begin(), found.end());
    if (found.empty()) return Status::NotFound("no .jsonl or .jsonl.zstd files under " + in);
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

void Describe(const Context& ctx, const std::string& path, const store::ImportReport& r) {
  std::string what;
  if (r.created) {
    what = "imported " + std::to_string(r.events_added) + " events";
  } else if (r.events_added > 0) {
    what = "appended " + std::to_string(r.events_added) + " new events to the stored session";
  } else {
    what = "already stored, unchanged";
  }
  std::fprintf(ctx.out, "%s: session %s: %s (%lld events in %lld lines%s)\n", path.c_str(), r.session_id.c_str(),
               what.c_str(), static_cast<long long>(r.events_in_file), static_cast<long long>(r.storage_lines),
               r.compressed ? ", zstd" : "");
  if (r.torn_tail) {
    std::fprintf(ctx.out, "  dropped a torn tail from line %lld (%s): %s\n", static_cast<long long>(r.torn_tail->line),
                 HumanBytes(r.torn_tail->bytes).c_str(), r.torn_tail->reason.c_str());
  }
}

int Run(const Context& ctx, const std::vector<std::string>& inputs) {
  auto files = CollectFiles(inputs);
  if (!files.ok()) return ctx.Fail(files.status());
  auto store = ctx.OpenStore();
  if (!store.ok()) return ctx.Fail(store.status());
  int failures = 0, rc = kExitOk;
  for (const std::string& path : *files) {
    store::ImportOptions options;
    if (ctx.err_is_tty) {
      options.progress = [&](const store::ImportProgress& p) {
        const double pct = p.bytes_total > 0 ? 100.0 * static_cast<double>(p.bytes_done) / static_cast<double>(p.bytes_total) : 100.0;
        std::fprintf(ctx.err, "\rimporting %s: %3.0f%% (%lld events)", path.c_str(), pct, static_cast<long long>(p.events));
        std::fflush(ctx.err);
      };
    }
    auto report = store::ImportJsonl(**store, path, options);
    if (ctx.err_is_tty) std::fprintf(ctx.err, "\r\033[K");
    if (!report.ok()) {
      rc = ctx.Fail(report.status());
      ++failures;
      continue;
    }
    Describe(ctx, path, *report);
  }
  if (failures > 0 && files->size() > 1) {
    std::fprintf(ctx.err, "retrace: %d of %zu files failed to import; the database holds the others\n", failures, files->size());
  }
  return rc;
}

}  // namespace

Command ImportCommand() {
  return {"import", "Import dsh JSONL logs (.jsonl, .jsonl.zstd, or directories of them) into the database",
          [](CLI::App& sub, Context& ctx) -> Handler {
            auto inputs = std::make_shared<std::vector<std::string>>();
            sub.add_option("paths", *inputs, "Log files or directories (searched recursively)")->required();
            sub.footer(
                "Each file is imported in one transaction: a refused file leaves the database unchanged.\n"
                "A torn tail (an unfinished last line or zstd frame) is dropped and reported; run\n"
                "'retrace repair <session>' to close a turn a crash left open. Re-importing a file\n"
                "is safe: unchanged events are skipped, new ones appended.");
            return [&ctx, inputs] { return Run(ctx, *inputs); };
          }};
}

}  // namespace retrace::cli
