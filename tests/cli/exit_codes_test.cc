// The exit code of every status code, as README "Exit codes" documents it.
#include "frontends/cli/exit_codes.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <regex>

#include "tests/test_util.h"

namespace retrace::cli {
namespace {

using Code = Status::Code;

TEST(ExitCodesTest, EveryStatusCodeHasItsDocumentedMeaning) {
  const std::map<Code, int> expected = {
      {Code::kOk, 0},
      {Code::kIoError, 1},           // an operation failed
      {Code::kFailedPrecondition, 1},
      {Code::kInvalidArgument, 2},   // a bad command line or request: never "corrupt input"
      {Code::kCorruption, 3},        // input refused
      {Code::kConflict, 4},
      {Code::kBusy, 4},
      {Code::kAlreadyExists, 4},
      {Code::kUnsupported, 5},       // a newer format, or a database that needs migrate
      {Code::kNotFound, 6},
      {Code::kDeadlineExceeded, 7},  // a time limit: not hidden among failures
  };
  for (const auto& [code, exit] : expected) EXPECT_EQ(ExitCodeFor(code), exit) << static_cast<int>(code);
  EXPECT_EQ(expected.size(), static_cast<size_t>(Code::kDeadlineExceeded) + 1) << "a status code is missing here";
}

TEST(ExitCodesTest, TheReadmeTableListsEveryExitCode) {
  const std::string readme = retrace::testing::ReadFile(std::string(RETRACE_SOURCE_DIR) + "/README.md");
  for (int exit : {kExitOk, kExitFailure, kExitUsage, kExitCorrupt, kExitConflict, kExitUnsupported, kExitNotFound,
                   kExitTimeout}) {
    EXPECT_TRUE(std::regex_search(readme, std::regex("\\n\\| " + std::to_string(exit) + " \\| [^|]+ \\|\\n")))
        << "README's exit code table has no row for " << exit;
  }
}

TEST(ExitCodesTest, TheHelpSummaryListsEveryExitCodeInOrder) {
  int next = kExitOk;
  for (const auto& [code, summary] : kExitCodeSummaries) EXPECT_EQ(code, next++) << summary;
  EXPECT_EQ(next, kExitTimeout + 1) << "an exit code is missing from --help";
}

}  // namespace
}  // namespace retrace::cli
