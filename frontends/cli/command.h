// The subcommand table: each command adds its options (frontends/cli/options.h) and
// returns its handler. The same table drives `--help`, the command list and
// "did you mean ...?".
#ifndef RETRACE_CLI_COMMAND_H_
#define RETRACE_CLI_COMMAND_H_

#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "frontends/cli/context.h"
#include "frontends/cli/options.h"

namespace retrace::cli {

using Handler = std::function<int()>;

struct Command {
  std::string_view name;
  std::string_view summary;
  // Adds options to `sub` (bound to state the handler captures) and returns the handler.
  std::function<Handler(Options sub, Context& ctx)> setup;
};

std::span<const Command> Commands();

// The closest command name within edit distance 2, or "".
std::string SuggestCommand(std::string_view typo);

// One factory per command (frontends/cli/<name>_command.cc).
Command ImportCommand();
Command ExportCommand();
Command SessionsCommand();
Command EventsCommand();
Command RepairCommand();
Command DeleteCommand();
Command RetainCommand();
Command VerifyCommand();
Command MigrateCommand();
Command RunCommand();
Command McpCommand();
Command AcpCommand();
Command ReplayCommand();
Command DemoCommand();
Command AuditCommand();
Command QueryCommand();
Command IndexCommand();
Command SearchCommand();
Command ShowCommand();
Command TraceCommand();
Command LineageCommand();
Command CheckCommand();
Command SdkCommand();

}  // namespace retrace::cli

#endif  // RETRACE_CLI_COMMAND_H_
