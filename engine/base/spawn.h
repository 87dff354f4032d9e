// Spawn: the one way retrace starts a child process (vfork + exec).
//
// The caller makes the child's channels (MakePipe, MakeSocketPair: both ends
// UniqueFd, close-on-exec) and hands the child's ends over in `fds`, keyed by
// the descriptor number the child sees them as; Spawn closes them in the parent
// whatever happens. A child's stdin not given is /dev/null, never the host's
// own (under `retrace mcp` that is the client's protocol stream); 1 and 2 not
// given are the host's (a child's diagnostics reach its stderr). Every other
// descriptor of the host's is closed in the child.
//
// On any failure — a pipe, /dev/null, fork, chdir, exec — nothing stays open
// and no child is left behind: the error names the step and errno. A chdir or
// exec failure is reported as Node's spawn 'error' is ("spawn <argv0> ENOENT").
//
// The base layer's only OS code besides UniqueFd: the I/O layers (tools, check)
// share it; the pure layers never call it.
#ifndef RETRACE_ENGINE_BASE_SPAWN_H_
#define RETRACE_ENGINE_BASE_SPAWN_H_

#include <sys/resource.h>
#include <sys/types.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <retrace/engine/base/status.h>
#include <retrace/engine/base/unique_fd.h>

namespace retrace::base {

// Both ends of a pipe or socket pair, close-on-exec.
struct FdPair {
  UniqueFd first, second;
};
// {read end, write end}.
Result<FdPair> MakePipe();
// A connected AF_UNIX stream pair.
Result<FdPair> MakeSocketPair();
// A second descriptor for what `fd` is (close-on-exec): for a child that gets
// one pipe as two of its descriptors.
Result<UniqueFd> Duplicate(const UniqueFd& fd);

// The points at which a spawn can fail, for SpawnOptions::fault.
enum class SpawnStep { kDevNull, kStatusPipe, kFork, kChildFds, kChdir, kExec };
std::string_view SpawnStepName(SpawnStep step);

struct SpawnOptions {
  std::vector<std::string> argv;  // argv[0] is looked up on the host's PATH
  // The child's environment ("NAME=value"); nullopt: the host's own.
  std::optional<std::vector<std::string>> env;
  std::string cwd;  // empty: the host's
  // Child descriptor number → the descriptor it is (the child's end, owned:
  // closed in the parent by Spawn). 0 not given: /dev/null.
  std::map<int, UniqueFd> fds;
  enum class Group {
    kNewSession,  // setsid: its own session and process group
    kNewGroup,    // setpgid: its own process group, the host's session
  } group = Group::kNewSession;
  // setrlimit(resource, {value, value}) in the child before exec.
  std::vector<std::pair<int, rlim_t>> limits;
  // Tests only: a non-zero errno makes that step fail as if the OS had said so.
  std::function<int(SpawnStep)> fault;
};

// A started child: its pid, and a pidfd where the kernel has them (>= 5.3).
// The caller reaps it (waitpid on pid, or waitid on the pidfd).
struct SpawnedChild {
  pid_t pid = -1;
  UniqueFd pidfd;
};

// Returns once the child has exec'd (or failed to).
Result<SpawnedChild> Spawn(SpawnOptions options);

// "ENOENT", or "E<n>" for a number glibc does not name.
std::string ErrnoName(int err);

}  // namespace retrace::base

#endif  // RETRACE_ENGINE_BASE_SPAWN_H_
