#include "tools/workspace.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
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

Workspace::Workspace(std::shared_ptr<const Roots> roots) : shared_(std::make_shared<Shared>()) {
  shared_->current = std::move(roots);
}

Result<std::shared_ptr<const Workspace::Roots>> Workspace::OpenRoots(const std::vector<std::string>& paths,
                                                                     std::string why) {
  auto roots = std::make_shared<Roots>();
  roots->why = std::move(why);
  for (const std::string& path : paths) {
    std::error_code ec;
    const std::filesystem::path canonical = std::filesystem::canonical(path, ec);
    if (ec || !std::filesystem::is_directory(canonical, ec)) {
      return Status::NotFound("workspace " + path + " is not a directory");
    }
    roots->list.push_back({canonical.string(), std::make_shared<const base::UniqueFd>(
                                                   ::open(canonical.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC))});
  }
  return std::shared_ptr<const Roots>(std::move(roots));
}

Result<Workspace> Workspace::Open(const std::string& root) {
  ASSIGN_OR_RETURN(std::shared_ptr<const Roots> roots, OpenRoots({root}, ""));
  return Workspace(std::move(roots));
}

Workspace Workspace::Unset(std::string why) {
  auto roots = std::make_shared<Roots>();
  roots->why = std::move(why);
  return Workspace(std::move(roots));
}

Status Workspace::Replace(const std::vector<std::string>& roots, std::string why) {
  ASSIGN_OR_RETURN(std::shared_ptr<const Roots> opened, OpenRoots(roots, std::move(why)));
  std::lock_guard lock(shared_->mu);
  shared_->current = std::move(opened);
  return Status::Ok();
}

std::shared_ptr<const Workspace::Roots> Workspace::Current() const {
  std::lock_guard lock(shared_->mu);
  return shared_->current;
}

std::string Workspace::root() const {
  std::shared_ptr<const Roots> roots = Current();
  return roots->list.empty() ? std::string() : roots->list.front().path;
}

std::vector<std::string> Workspace::roots() const {
  std::vector<std::string> paths;
  for (const Root& r : Current()->list) paths.push_back(r.path);
  return paths;
}

std::string Workspace::Cwd() const {
  std::shared_ptr<const Roots> roots = Current();
  if (roots->list.empty()) throw FsError(roots->why, "FS_OUTSIDE_WORKSPACE");
  return roots->list.front().path;
}

ResolvedPath Workspace::Resolve(std::string_view path, std::string_view verb) const {
  std::shared_ptr<const Roots> roots = Current();
  if (roots->list.empty()) {
    throw FsError("cannot " + std::string(verb) + " \"" + std::string(path) + "\": " + roots->why,
                  "FS_OUTSIDE_WORKSPACE");
  }
  ResolvedPath r;
  r.display = ResolveLexically(roots->list.front().path, path);
  r.real = RealPrefix(r.display);
  const auto inside_one = [&](const std::string& p) {
    return std::any_of(roots->list.begin(), roots->list.end(), [&](const Root& root) { return Inside(p, root.path); });
  };
  if (!inside_one(r.display) || !inside_one(r.real)) {
    std::string where = roots->list.size() == 1 ? "the workspace" : "the workspace roots";
    for (size_t i = 0; i < roots->list.size(); ++i) where += (i == 0 ? " \"" : ", \"") + roots->list[i].path + "\"";
    throw FsError("cannot " + std::string(verb) + " \"" + r.display + "\": outside " + where, "FS_OUTSIDE_WORKSPACE");
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
  if (unsupported.load(std::memory_order_relaxed)) return std::nullopt;
  std::shared_ptr<const Roots> roots = Current();
  if (roots->list.empty()) return std::nullopt;
  OpenedFile f{ResolveLexically(roots->list.front().path, path), {}};
  // Beneath the root the path is in (Resolve's way decides the rest).
  const auto in = std::find_if(roots->list.begin(), roots->list.end(),
                               [&](const Root& root) { return Inside(f.display, root.path); });
  if (in == roots->list.end() || !in->fd || !*in->fd) return std::nullopt;
  const std::string& root_path = in->path;
  const size_t skip = root_path == "/" ? 1 : root_path.size() + 1;
  const std::string relative = f.display.size() > skip ? f.display.substr(skip) : ".";
  open_how how{};
  how.flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
  how.resolve = RESOLVE_BENEATH | resolve;
  const long fd = ::syscall(SYS_openat2, in->fd->get(), relative.c_str(), &how, sizeof how);
  if (fd < 0) {
    if (errno == ENOSYS) unsupported.store(true, std::memory_order_relaxed);
    return std::nullopt;
  }
  f.fd.reset(static_cast<int>(fd));
  return f;
}

}  // namespace retrace::tools
