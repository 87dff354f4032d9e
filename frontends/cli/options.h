// The command line as the commands describe it: options bound to variables,
// with the rules they follow. A thin face over CLI11, which only frontends/cli/options.cc
// includes: CLI11 2.1.2's header costs each file that includes it about 10 s
// of compiling at -O3 (it defines validator objects every file builds), and
// 28 command files and 9 benchmarks would otherwise pay it (docs/PERFORMANCE.md).
//
// Option and Options are handles (a pointer each) into a CommandLine, which
// owns what they point to; pass them by value.
#ifndef RETRACE_CLI_OPTIONS_H_
#define RETRACE_CLI_OPTIONS_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace retrace::cli {

// One option or positional argument, for the rules that follow its adding.
// The rule's name shows in --help (e.g. `INT:POSITIVE`), and a value that
// breaks it is a usage error naming the option.
class Option {
 public:
  explicit Option(CLI::Option* option) : option_(option) {}

  Option Required();
  Option OneOf(const std::vector<std::string>& values);
  Option InRange(int min, int max);
  Option InRange(size_t min, size_t max);
  Option InRange(double min, double max);
  Option Positive();     // a number > 0
  Option NonNegative();  // a number >= 0
  Option ExistingFile();
  Option Needs(Option other);     // given only together with `other`
  Option Excludes(Option other);  // never together with `other` (both ways)

 private:
  CLI::Option* option_;
};

// The options of one command (or of the program). A name that starts with
// "-" is an option ("-o,--output" gives both spellings); any other is a
// positional argument, in the order added. The bound variable keeps its value
// when the option is not given, so its initial value is the default.
class Options {
 public:
  explicit Options(CLI::App* app) : app_(app) {}

  Option Add(std::string_view name, std::string& into, std::string_view help);
  Option Add(std::string_view name, std::vector<std::string>& into, std::string_view help);
  Option Add(std::string_view name, int& into, std::string_view help);
  Option Add(std::string_view name, unsigned& into, std::string_view help);
  Option Add(std::string_view name, int64_t& into, std::string_view help);
  Option Add(std::string_view name, uint64_t& into, std::string_view help);
  Option Add(std::string_view name, double& into, std::string_view help);
  Option Flag(std::string_view name, bool& into, std::string_view help);
  // `-o,--output FILE`, written atomically (format::AtomicFile); `-` (and
  // no option) leave `into` empty: standard output.
  Option AddOutput(std::string& into);
  // Text shown after the option list in --help.
  void Footer(std::string_view text);

 private:
  CLI::App* app_;
};

// A program's whole command line: its own options and, optionally,
// subcommands each with options of their own.
class CommandLine {
 public:
  explicit CommandLine(std::string_view description);
  ~CommandLine();
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;

  Options options();
  // `--version` prints `text`.
  void SetVersion(std::string_view text);
  // Exactly one subcommand must be given; the program's own options may
  // come before or after it.
  Options AddCommand(std::string_view name, std::string_view summary);

  // Parses argv into the bound variables. nullopt: go on and run. Otherwise
  // the run ends with that exit code: 0 after --help or --version (printed
  // to stdout), 2 (kExitUsage) after a usage error (printed to stderr).
  std::optional<int> Parse(int argc, char** argv);
  // After Parse: the subcommand given, or "".
  std::string chosen() const;

 private:
  std::unique_ptr<CLI::App> app_;
};

}  // namespace retrace::cli

#endif  // RETRACE_CLI_OPTIONS_H_
