// Process exit codes of `retrace` (documented in README "Exit codes").
#ifndef RETRACE_CLI_EXIT_CODES_H_
#define RETRACE_CLI_EXIT_CODES_H_

#include "engine/base/status.h"

namespace retrace::cli {

enum ExitCode : int {
  kExitOk = 0,
  kExitFailure = 1,      // an operation failed (I/O, unexpected)
  kExitUsage = 2,        // bad command line
  kExitCorrupt = 3,      // input refused: corrupt or malformed log, not a retrace database
  kExitConflict = 4,     // another writer holds the session, or a conflicting append
  kExitUnsupported = 5,  // written by a newer (or unsupported older) version
  kExitNotFound = 6,     // no such session, file or database
};

inline int ExitCodeFor(const Status& st) {
  switch (st.code()) {
    case Status::Code::kOk: return kExitOk;
    case Status::Code::kInvalidArgument:
    case Status::Code::kCorruption: return kExitCorrupt;
    case Status::Code::kConflict:
    case Status::Code::kBusy:
    case Status::Code::kAlreadyExists: return kExitConflict;
    case Status::Code::kUnsupported:
    case Status::Code::kFailedPrecondition: return kExitUnsupported;
    case Status::Code::kNotFound: return kExitNotFound;
    default: return kExitFailure;
  }
}

}  // namespace retrace::cli

#endif  // RETRACE_CLI_EXIT_CODES_H_
