// A local spill store (dsh-spill-local's behaviour): a tool's complete,
// over-cap result is saved as a private file and the result names it.
// Files land in <dir>/session-<hash>/<random>-<name>, created exclusively
// with mode 0600 under 0700 directories, so other local users can neither
// read them nor plant a symlink where one will be written.
#ifndef RETRACE_TOOLS_SPILL_STORE_H_
#define RETRACE_TOOLS_SPILL_STORE_H_

#include <optional>
#include <string>

namespace retrace::tools {

struct SpillRef {
  std::string locator;         // the file's absolute path
  std::string retrieval_hint;  // how the model reads it back
};

// nullopt when there is no directory or the write fails (the result then says
// the complete result could not be saved).
std::optional<SpillRef> SaveSpill(const std::string& dir, const std::string& session_id, const std::string& name,
                                  const std::string& content);

}  // namespace retrace::tools

#endif  // RETRACE_TOOLS_SPILL_STORE_H_
