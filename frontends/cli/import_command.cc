// retrace import <file|dir>...
#include <string>
#include <vector>

#include "frontends/cli/command.h"
#include "frontends/cli/exit_codes.h"
#include "frontends/cli/format.h"
#include "service/import.h"

namespace retrace::cli {
namespace {

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
  service::ImportListener listener;
  if (ctx.err_is_tty) {
    listener.progress = [&](const std::string& path, const store::ImportProgress& p) {
      const double pct =
          p.bytes_total > 0 ? 100.0 * static_cast<double>(p.bytes_done) / static_cast<double>(p.bytes_total) : 100.0;
      std::fprintf(ctx.err, "\rimporting %s: %3.0f%% (%lld events)", path.c_str(), pct, static_cast<long long>(p.events));
      std::fflush(ctx.err);
    };
  }
  listener.done = [&](const std::string& path, const Result<store::ImportReport>& report) {
    if (ctx.err_is_tty) std::fprintf(ctx.err, "\r\033[K");
    if (report.ok()) {
      Describe(ctx, path, *report);
    } else {
      std::fprintf(ctx.err, "retrace: %s\n", report.status().message().c_str());
    }
  };
  auto summary = service::ImportLogs(ctx.catalog(), inputs, listener);
  if (!summary.ok()) return ctx.Fail(summary.status());
  if (summary->refused > 0 && summary->files > 1) {
    std::fprintf(ctx.err, "retrace: %zu of %zu files failed to import; the database holds the others\n",
                 summary->refused, summary->files);
  }
  return summary->refused ? ExitCodeFor(summary->first_error) : kExitOk;
}

}  // namespace

Command ImportCommand() {
  return {"import", "Import dsh JSONL logs (.jsonl, .jsonl.zstd, or directories of them) into the database",
          [](Options sub, Context& ctx) -> Handler {
            auto inputs = std::make_shared<std::vector<std::string>>();
            sub.Add("paths", *inputs, "Log files or directories (searched recursively)").Required();
            sub.Footer(
                "Each file is imported in one transaction: a refused file leaves the database unchanged.\n"
                "A torn tail (an unfinished last line or zstd frame) is dropped and reported; run\n"
                "'retrace repair <session>' to close a turn a crash left open. Re-importing a file\n"
                "is safe: unchanged events are skipped, new ones appended.");
            return [&ctx, inputs] { return Run(ctx, *inputs); };
          }};
}

}  // namespace retrace::cli
