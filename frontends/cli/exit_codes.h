// Process exit codes of `retrace` (documented in README "Exit codes").
#ifndef RETRACE_CLI_EXIT_CODES_H_
#define RETRACE_CLI_EXIT_CODES_H_

#include <utility>

#include "engine/base/status.h"

namespace retrace::cli {

enum ExitCode : int {
  kExitOk = 0,
  kExitFailure = 1,      // an operation failed (I/O, or a state that does not allow it)
  kExitUsage = 2,        // bad command line or request: a wrong value, a directory for a file
  kExitCorrupt = 3,      // input refused: corrupt or malformed log, not a retrace database
  kExitConflict = 4,     // another writer holds the session, or a conflicting append
  kExitUnsupported = 5,  // written by a newer version, or a database that needs `retrace migrate`
  kExitNotFound = 6,     // no such session, file or database
  kExitTimeout = 7,      // a time limit ran out (query --timeout)
};

// What `retrace --help` says of each code, in order: built from this list so
// that a new code cannot be left out of the help.
inline constexpr std::pair<int, const char*> kExitCodeSummaries[] = {
    {kExitOk, "ok"},
    {kExitFailure, "failure"},
    {kExitUsage, "usage"},
    {kExitCorrupt, "corrupt input"},
    {kExitConflict, "conflict/busy"},
    {kExitUnsupported, "unsupported version"},
    {kExitNotFound, "not found"},
    {kExitTimeout, "time limit"},
};

// Every status code has its meaning here; there is no default branch, so a
// new code does not compile until it has one (-Wswitch-enum).
constexpr int ExitCodeFor(Status::Code code) {
  switch (code) {
    case Status::Code::kOk: return kExitOk;
    case Status::Code::kInvalidArgument: return kExitUsage;
    case Status::Code::kCorruption: return kExitCorrupt;
    case Status::Code::kConflict:
    case Status::Code::kBusy:
    case Status::Code::kAlreadyExists: return kExitConflict;
    case Status::Code::kUnsupported: return kExitUnsupported;
    case Status::Code::kNotFound: return kExitNotFound;
    case Status::Code::kIoError:
    case Status::Code::kFailedPrecondition: return kExitFailure;
    case Status::Code::kDeadlineExceeded: return kExitTimeout;
  }
  return kExitFailure;  // unreachable: every code is listed above
}

inline int ExitCodeFor(const Status& st) { return ExitCodeFor(st.code()); }

}  // namespace retrace::cli

#endif  // RETRACE_CLI_EXIT_CODES_H_
