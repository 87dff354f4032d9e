// retrace: the command-line front end. Thin: parses arguments, wires the
// store and prints; the work is in store/ and engine/.
#include <unistd.h>

#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "cli/command.h"
#include "cli/exit_codes.h"

namespace retrace::cli {
namespace {

std::string DefaultDbPath() {
  const char* env = std::getenv("RETRACE_DB");
  return env != nullptr && *env != '\0' ? env : "retrace.db";
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

  CLI::App app{"retrace — an event-sourced session engine for AI-agent tools.\n"
               "Stores dsh session logs in SQLite, imports and exports dsh JSONL byte-exactly."};
  app.set_version_flag("--version", "retrace " RETRACE_VERSION);
  app.require_subcommand(1);
  app.fallthrough();
  app.add_option("--db", ctx.db_path, "SQLite database file (default: $RETRACE_DB, else ./retrace.db)");
  std::string durability = "full";
  app.add_option("--durability", durability, "fsync policy for writes: full (default) or normal; see README")
      ->check(CLI::IsMember({"full", "normal"}));
  app.footer("Exit codes: 0 ok, 1 failure, 2 usage, 3 corrupt input, 4 conflict/busy, 5 unsupported version, "
             "6 not found.\nRun 'retrace <command> --help' for a command's options.\n");

  Handler handler;
  for (const Command& c : Commands()) {
    CLI::App* sub = app.add_subcommand(std::string(c.name), std::string(c.summary));
    Handler h = c.setup(*sub, ctx);
    sub->callback([&handler, h] { handler = h; });
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  ctx.durability_normal = durability == "normal";
  return handler ? handler() : kExitUsage;
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
