// `--presenters-cmd CMD [--presenters-timeout S]`, shared by `retrace check`
// and `retrace replay`: the tools' presenters answered by another program
// (check/external_presenters.h) instead of the built-in ones.
#ifndef RETRACE_CLI_PRESENTERS_OPTION_H_
#define RETRACE_CLI_PRESENTERS_OPTION_H_

#include <memory>
#include <string>

#include "check/external_presenters.h"
#include "frontends/cli/options.h"
#include "engine/base/status.h"

namespace retrace::cli {

struct PresentersOption {
  std::string command;
  double timeout_s = 10;
  std::string tools_mode = "native";  // code/both: run_code calls get run_code's own card
};

void AddPresentersOption(Options sub, PresentersOption& o);

// The program started, or null when no command was given.
Result<std::unique_ptr<check::ExternalPresenters>> StartPresenters(const PresentersOption& o);

// The presenters to replay with: the program's when one runs, else the
// built-in set of the deployment --tools-mode names (null: the reference set).
const presenters::PresenterSet* PresentersFor(const PresentersOption& o, const check::ExternalPresenters* external);

}  // namespace retrace::cli

#endif  // RETRACE_CLI_PRESENTERS_OPTION_H_
