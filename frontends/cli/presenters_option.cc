#include "frontends/cli/presenters_option.h"

#include <chrono>

#include "presenters/reference_tools.h"

namespace retrace::cli {

void AddPresentersOption(Options sub, PresentersOption& o) {
  sub.Add("--presenters-cmd", o.command,
          "Present every call with the presenters of this program instead of the built-in ones:\n"
          "run by /bin/sh, it answers JSON-RPC lines on stdin/stdout (docs/REPLAY-STABILITY.md,\n"
          "\"External presenters\"). check/dsh-presenters.mjs serves dsh tool packages");
  sub.Add("--presenters-timeout", o.timeout_s,
          "Seconds the program has for each answer before that call counts as failed (default 10)")
      .Positive();
  sub.Add("--tools-mode", o.tools_mode,
          "The deployment the sessions were recorded in: native (default) or code/both, where run_code\n"
          "calls show run_code's own card (as `retrace run --tools-mode code` recorded them)")
      .OneOf({"native", "code", "both"});
}

const presenters::PresenterSet* PresentersFor(const PresentersOption& o, const check::ExternalPresenters* external) {
  if (external != nullptr) return &external->presenters();
  return o.tools_mode == "native" ? nullptr : &presenters::CodeModePresenters();
}

Result<std::unique_ptr<check::ExternalPresenters>> StartPresenters(const PresentersOption& o) {
  if (o.command.empty()) return std::unique_ptr<check::ExternalPresenters>();
  check::ExternalPresentersOptions options;
  options.command = o.command;
  options.timeout = std::chrono::milliseconds(static_cast<int64_t>(o.timeout_s * 1000));
  return check::ExternalPresenters::Start(std::move(options));
}

}  // namespace retrace::cli
