// Workspace: the directories the built-in file tools are confined to.
//
// A path resolves like Node's path.resolve(root, path): relative paths
// against the first (primary) root, `.` and `..` segments folded lexically.
// The result must stay inside one of the roots, and so must the real path of
// its longest existing prefix, so neither `..`, an absolute path elsewhere,
// nor a symlink that leads out gets through.
//
// Copies share their roots: Replace() changes them for every copy (an MCP
// client's roots changed), and a workspace may have no root yet (Unset), in
// which case every path is refused with the reason it was given. The display path — the model-facing path in values
// and messages — is the lexical absolute path, as dsh's local filesystem
// reports it.
#ifndef RETRACE_TOOLS_WORKSPACE_H_
#define RETRACE_TOOLS_WORKSPACE_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <retrace/engine/base/lexical_path.h>  // ResolveLexically: how the tools resolve their paths
#include <retrace/engine/base/status.h>
#include <retrace/engine/base/unique_fd.h>
#include <retrace/engine/runtime/tool_error.h>

namespace retrace::tools {

struct ResolvedPath {
  std::string display;  // lexical absolute path
  std::string real;     // what to open (symlinks inside the workspace followed)
};

// A file opened by Workspace::OpenToRead.
struct OpenedFile {
  std::string display;  // as ResolvedPath::display
  base::UniqueFd fd;
};

// dsh's FsError: a ToolError named "FsError" with an FS_* code.
runtime::ToolError FsError(std::string message, std::string code);

class Workspace {
 public:
  // REQUIRES: `root` names an existing directory. Fails otherwise.
  static Result<Workspace> Open(const std::string& root);
  // A workspace with no root: every path, and Cwd(), is refused with `why`
  // (which should say how to give one) until Replace() gives roots.
  static Workspace Unset(std::string why);

  // Replaces the roots of this workspace and of every copy of it; the first
  // is the primary root. Fails, changing nothing, unless each names an
  // existing directory. No roots: as Unset(why).
  Status Replace(const std::vector<std::string>& roots, std::string why);

  // The primary root (canonical); "" when there is none.
  std::string root() const;
  std::vector<std::string> roots() const;
  // The primary root, where bash and the searches run; throws FsError
  // FS_OUTSIDE_WORKSPACE with the reason when there is none.
  std::string Cwd() const;

  // Resolves `path` (see the file comment). Throws FsError FS_OUTSIDE_WORKSPACE
  // for a path that leaves the workspace; `verb` names the operation in the message.
  ResolvedPath Resolve(std::string_view path, std::string_view verb) const;

  // Opens `path` to read, as Resolve() and then open(2) would, in one
  // openat2(2) call confined beneath the root (RESOLVE_BENEATH): the kernel
  // refuses any lookup that would leave it, so no symlink swapped in between
  // leads out either. Nullopt when that call fails for any reason (absent,
  // outside, through an absolute symlink, a kernel without openat2): the
  // caller then takes Resolve()'s way, whose errors are the tools' own. The
  // descriptor is opened non-blocking, so a FIFO does not stall the open.
  std::optional<OpenedFile> OpenToRead(std::string_view path) const;

  // As OpenToRead, but following no symlink at all on the way
  // (RESOLVE_NO_SYMLINKS): the display path it gives is then the real path
  // too, so a writer may replace the file by that name without Resolve().
  std::optional<OpenedFile> OpenPlainToRead(std::string_view path) const;

 private:
  struct Root {
    std::string path;  // canonical, no trailing slash (except "/")
    // The directory, opened once (O_PATH): what OpenToRead resolves beneath.
    std::shared_ptr<const base::UniqueFd> fd;
  };
  // One set of roots, never changed once made (Replace makes another).
  struct Roots {
    std::vector<Root> list;
    std::string why;  // said when `list` is empty
  };
  // What every copy shares.
  struct Shared {
    mutable std::mutex mu;
    std::shared_ptr<const Roots> current;
  };
  explicit Workspace(std::shared_ptr<const Roots> roots);
  static Result<std::shared_ptr<const Roots>> OpenRoots(const std::vector<std::string>& paths, std::string why);
  std::shared_ptr<const Roots> Current() const;
  // openat2(2) beneath the root with RESOLVE_BENEATH and `resolve`'s flags.
  std::optional<OpenedFile> OpenBeneath(std::string_view path, uint64_t resolve) const;
  std::shared_ptr<Shared> shared_;
};

}  // namespace retrace::tools

#endif  // RETRACE_TOOLS_WORKSPACE_H_
