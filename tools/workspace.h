// Workspace: the directory the built-in file tools are confined to.
//
// A path resolves like Node's path.resolve(root, path): relative paths
// against the root, `.` and `..` segments folded lexically. The result must
// stay inside the root, and so must the real path of its longest existing
// prefix, so neither `..`, an absolute path elsewhere, nor a symlink that
// leads out gets through. The display path — the model-facing path in values
// and messages — is the lexical absolute path, as dsh's local filesystem
// reports it.
#ifndef RETRACE_TOOLS_WORKSPACE_H_
#define RETRACE_TOOLS_WORKSPACE_H_

#include <string>
#include <string_view>

#include "engine/base/lexical_path.h"  // ResolveLexically: how the tools resolve their paths
#include "engine/base/status.h"
#include "engine/runtime/tool_error.h"

namespace retrace::tools {

struct ResolvedPath {
  std::string display;  // lexical absolute path
  std::string real;     // what to open (symlinks inside the workspace followed)
};

// dsh's FsError: a ToolError named "FsError" with an FS_* code.
runtime::ToolError FsError(std::string message, std::string code);

class Workspace {
 public:
  // REQUIRES: `root` names an existing directory. Fails otherwise.
  static Result<Workspace> Open(const std::string& root);

  const std::string& root() const { return root_; }

  // Resolves `path` (see the file comment). Throws FsError FS_OUTSIDE_WORKSPACE
  // for a path that leaves the workspace; `verb` names the operation in the message.
  ResolvedPath Resolve(std::string_view path, std::string_view verb) const;

 private:
  explicit Workspace(std::string root) : root_(std::move(root)) {}
  std::string root_;  // canonical, no trailing slash (except "/")
};

}  // namespace retrace::tools

#endif  // RETRACE_TOOLS_WORKSPACE_H_
