#include "cli/presenters_option.h"

#include <chrono>

namespace retrace::cli {

void AddPresentersOption(CLI::App& sub, PresentersOption& o) {
  sub.add_option("--presenters-cmd", o.command,
                 "Present every call with the presenters of this program instead of the built-in ones:\n"
                 "run by /bin/sh, it answers JSON-RPC lines on stdin/stdout (docs/REPLAY-STABILITY.md,\n"
                 "\"External presenters\"). adapters/dsh-presenters.mjs serves dsh tool packages");
  sub.add_option("--presenters-timeout", o.timeout_s,
                 "Seconds the program has for each answer before that call counts as failed (default 10)")
      ->check(CLI::PositiveNumber);
}

Result<std::unique_ptr<check::ExternalPresenters>> StartPresenters(const PresentersOption& o) {
  if (o.command.empty()) return std::unique_ptr<check::ExternalPresenters>();
  check::ExternalPresentersOptions options;
  options.command = o.command;
  options.timeout = std::chrono::milliseconds(static_cast<int64_t>(o.timeout_s * 1000));
  return check::ExternalPresenters::Start(std::move(options));
}

}  // namespace retrace::cli
