#include "tools/workspace.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <vector>

namespace retrace::tools {
namespace {

bool Inside(std::string_view path, std::string_view root) {
  if (root == "/") return !path.empty() && path[0] == '/';
  return path == root || (path.size() > root.size() && path.substr(0, root.size()) == root && path[root.size()] == '/');
}

// The real path of `path`'s longest existing prefix, with the rest appended.
std::string RealPrefix(const std::string& path) {
  // The common case, a path that exists, in one libc call: canonical() below
  // builds a path object per component (about twenty allocations a call).
  char resolved[PATH_MAX];
  if (::realpath(path.c_str(), resolved) != nullptr) return resolved;
  std::filesystem::path p(path), rest;
  while (!p.empty()) {
    std::error_code ec;
    std::filesystem::path real = std::filesystem::canonical(p, ec);
    if (!ec) return (rest.empty() ? real : real / rest).lexically_normal().string();
    rest = rest.empty() ? p.filename() : p.filename() / rest;
    if (p == p.parent_path()) break;
    p = p.parent_path();
  }
  return path;
}

}  // namespace

runtime::ToolError FsError(std::string message, std::string code) {
  return runtime::ToolError(std::move(message), "FsError", std::move(code));
}

Result<Workspace> Workspace::Open(const std::string& root) {
  std::error_code ec;
  const std::filesystem::path canonical = std::filesystem::canonical(root, ec);
  if (ec || !std::filesystem::is_directory(canonical, ec)) {
    return Status::NotFound("workspace " + root + " is not a directory");
  }
  auto root_fd = std::make_shared<const base::UniqueFd>(
      ::open(canonical.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  return Workspace(canonical.string(), std::move(root_fd));
}

ResolvedPath Workspace::Resolve(std::string_view path, std::string_view verb) const {
  ResolvedPath r;
  r.display = ResolveLexically(root_, path);
  r.real = RealPrefix(r.display);
  if (!Inside(r.display, root_) || !Inside(r.real, root_)) {
    throw FsError("cannot " + std::string(verb) + " \"" + r.display + "\": outside the workspace \"" + root_ + "\"",
                  "FS_OUTSIDE_WORKSPACE");
  }
  return r;
}

std::optional<OpenedFile> Workspace::OpenToRead(std::string_view path) const {
  return OpenBeneath(path, RESOLVE_NO_MAGICLINKS);
}

std::optional<OpenedFile> Workspace::OpenPlainToRead(std::string_view path) const {
  return OpenBeneath(path, RESOLVE_NO_SYMLINKS);
}

std::optional<OpenedFile> Workspace::OpenBeneath(std::string_view path, uint64_t resolve) const {
  static std::atomic<bool> unsupported{false};  // ENOSYS once (an old kernel, a seccomp filter): never again
  if (!root_fd_ || !*root_fd_ || unsupported.load(std::memory_order_relaxed)) return std::nullopt;
  OpenedFile f{ResolveLexically(root_, path), {}};
  if (!Inside(f.display, root_)) return std::nullopt;
  const size_t skip = root_ == "/" ? 1 : root_.size() + 1;
  const std::string relative = f.display.size() > skip ? f.display.substr(skip) : ".";
  open_how how{};
  how.flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
  how.resolve = RESOLVE_BENEATH | resolve;
  const long fd = ::syscall(SYS_openat2, root_fd_->get(), relative.c_str(), &how, sizeof how);
  if (fd < 0) {
    if (errno == ENOSYS) unsupported.store(true, std::memory_order_relaxed);
    return std::nullopt;
  }
  f.fd.reset(static_cast<int>(fd));
  return f;
}

}  // namespace retrace::tools
