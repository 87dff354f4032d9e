// retrace: the command-line front end. Thin: parses arguments, calls the use
// cases of service/ and prints; the work is below it.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "frontends/cli/command.h"
#include "frontends/cli/exit_codes.h"
#include "frontends/cli/options.h"

namespace retrace::cli {
namespace {

std::string DefaultDbPath() {
  const char* env = std::getenv("RETRACE_DB");
  return env != nullptr && *env != '\0' ? env : "retrace.db";
}

// "Exit codes: 0 ok, 1 failure, ..., 7 time limit."
std::string ExitCodesFooter() {
  std::string text = "Exit codes:";
  for (const auto& [code, summary] : kExitCodeSummaries) {
    text += (code == kExitOk ? " " : ", ") + std::to_string(code) + " " + summary;
  }
  return text + ".";
}

// Catches an unknown first command before CLI11 does, to suggest a fix.
int CheckCommandName(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--db" || arg == "--durability") {
      ++i;
      continue;
    }
    if (arg.empty() || arg[0] == '-') continue;
    for (const Command& c : Commands()) {
      if (c.name == arg) return kExitOk;
    }
    const std::string hint = SuggestCommand(arg);
    std::fprintf(stderr, "retrace: unknown command '%s'%s\nRun 'retrace --help' for the list of commands.\n",
                 arg.c_str(), hint.empty() ? "" : (", did you mean '" + hint + "'?").c_str());
    return kExitUsage;
  }
  return kExitOk;
}

int Main(int argc, char** argv) {
  if (int rc = CheckCommandName(argc, argv); rc != kExitOk) return rc;
  Context ctx;
  ctx.db_path = DefaultDbPath();
  ctx.err_is_tty = isatty(STDERR_FILENO) != 0;

  CommandLine line("retrace — an event-sourced session engine for AI-agent tools.\n"
                   "Stores dsh session logs in SQLite, imports and exports dsh JSONL byte-exactly.");
  line.SetVersion("retrace " RETRACE_VERSION);
  Options program = line.options();
  program.Add("--db", ctx.db_path, "SQLite database file (default: $RETRACE_DB, else ./retrace.db)");
  std::string durability = "full";
  program.Add("--durability", durability, "fsync policy for writes: full (default) or normal; see README")
      .OneOf({"full", "normal"});
  program.Footer(ExitCodesFooter() + "\nRun 'retrace <command> --help' for a command's options.\n");

  std::map<std::string, Handler, std::less<>> handlers;
  for (const Command& c : Commands()) {
    handlers.emplace(c.name, c.setup(line.AddCommand(c.name, c.summary), ctx));
  }
  if (std::optional<int> rc = line.Parse(argc, argv)) return *rc;
  ctx.durability_normal = durability == "normal";
  const auto chosen = handlers.find(line.chosen());
  return chosen != handlers.end() ? chosen->second() : kExitUsage;
}

}  // namespace
}  // namespace retrace::cli

int main(int argc, char** argv) {
  // Every failure a command knows of is a Status with its exit code; anything
  // else that escapes (bad_alloc, a bug) is reported the same way, not aborted on.
  try {
    return retrace::cli::Main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "retrace: unexpected error: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "retrace: unexpected error\n");
  }
  return retrace::cli::kExitFailure;
}
