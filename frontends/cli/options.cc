// The one file that includes CLI11 (frontends/cli/options.h says why).
#include "frontends/cli/options.h"

#include <CLI/CLI.hpp>

#include <cmath>

#include "frontends/cli/exit_codes.h"

namespace retrace::cli {
namespace {

// CLI11's PositiveNumber and NonNegativeNumber are ranges up to the largest
// double, and say so in full when a value is out of them; these say what is
// wrong. The names are the ones --help shows.
CLI::Validator NumberAbove(bool allow_zero, const char* name, const char* what) {
  return CLI::Validator(
      [allow_zero, what](std::string& text) -> std::string {
        double value = 0;
        if (!CLI::detail::lexical_cast(text, value)) return "Value " + text + " is not a number";
        if (std::isfinite(value) && (value > 0 || (allow_zero && value == 0))) return "";
        return "Value " + text + " is not " + what;
      },
      name, name);
}

template <typename T>
Option AddValue(CLI::App* app, std::string_view name, T& into, std::string_view help) {
  return Option(app->add_option(std::string(name), into, std::string(help)));
}

}  // namespace

Option Option::Required() {
  option_->required();
  return *this;
}

Option Option::OneOf(const std::vector<std::string>& values) {
  option_->check(CLI::IsMember(values));
  return *this;
}

Option Option::InRange(int min, int max) {
  option_->check(CLI::Range(min, max));
  return *this;
}

Option Option::InRange(size_t min, size_t max) {
  option_->check(CLI::Range(min, max));
  return *this;
}

Option Option::InRange(double min, double max) {
  option_->check(CLI::Range(min, max));
  return *this;
}

Option Option::Positive() {
  option_->check(NumberAbove(/*allow_zero=*/false, "POSITIVE", "a positive number"));
  return *this;
}

Option Option::NonNegative() {
  option_->check(NumberAbove(/*allow_zero=*/true, "NONNEGATIVE", "zero or a positive number"));
  return *this;
}

Option Option::ExistingFile() {
  option_->check(CLI::ExistingFile);
  return *this;
}

Option Option::Needs(Option other) {
  option_->needs(other.option_);
  return *this;
}

Option Option::Excludes(Option other) {
  option_->excludes(other.option_);
  return *this;
}

Option Options::Add(std::string_view name, std::string& into, std::string_view help) {
  return AddValue(app_, name, into, help);
}
Option Options::AddOutput(std::string& into) {
  CLI::Option* option =
      app_->add_option("-o,--output", into,
                       "Write to FILE instead of stdout (atomically; a device or pipe such as /dev/null is written in "
                       "place; - is stdout)");
  option->transform([](const std::string& file) { return file == "-" ? std::string() : file; });
  option->type_name("FILE");
  return Option(option);
}
Option Options::Add(std::string_view name, std::vector<std::string>& into, std::string_view help) {
  return AddValue(app_, name, into, help);
}
Option Options::Add(std::string_view name, int& into, std::string_view help) {
  return AddValue(app_, name, into, help);
}
Option Options::Add(std::string_view name, unsigned& into, std::string_view help) {
  return AddValue(app_, name, into, help);
}
Option Options::Add(std::string_view name, int64_t& into, std::string_view help) {
  return AddValue(app_, name, into, help);
}
Option Options::Add(std::string_view name, uint64_t& into, std::string_view help) {
  return AddValue(app_, name, into, help);
}
Option Options::Add(std::string_view name, double& into, std::string_view help) {
  return AddValue(app_, name, into, help);
}

Option Options::Flag(std::string_view name, bool& into, std::string_view help) {
  return Option(app_->add_flag(std::string(name), into, std::string(help)));
}

void Options::Footer(std::string_view text) { app_->footer(std::string(text)); }

CommandLine::CommandLine(std::string_view description) : app_(std::make_unique<CLI::App>(std::string(description))) {}

CommandLine::~CommandLine() = default;

Options CommandLine::options() { return Options(app_.get()); }

void CommandLine::SetVersion(std::string_view text) { app_->set_version_flag("--version", std::string(text)); }

Options CommandLine::AddCommand(std::string_view name, std::string_view summary) {
  // The program's options (--db, --durability) may follow the command too.
  app_->require_subcommand(1);
  app_->fallthrough();
  return Options(app_->add_subcommand(std::string(name), std::string(summary)));
}

std::optional<int> CommandLine::Parse(int argc, char** argv) {
  try {
    app_->parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app_->exit(e) == 0 ? kExitOk : kExitUsage;
  }
  return std::nullopt;
}

std::string CommandLine::chosen() const {
  const auto given = app_->get_subcommands();
  return given.empty() ? "" : given.front()->get_name();
}

}  // namespace retrace::cli
