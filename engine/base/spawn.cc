#include "engine/base/spawn.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace retrace::base {

namespace {

// What the child writes to the status pipe when a step before exec fails.
constexpr size_t kMaxChildFds = 64;  // with its stdin

struct ChildFailure {
  SpawnStep step;
  int err;
};

int Injected(const SpawnOptions& o, SpawnStep step) { return o.fault ? o.fault(step) : 0; }

Status StepFailed(SpawnStep step, int err) {
  return Status::IoError("cannot start a child process: " + std::string(SpawnStepName(step)) + ": " +
                         ErrnoName(err));
}

std::vector<char*> CStrings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Everything the child does between vfork and exec, prepared before: the
// child borrows the host's memory until it execs, so it allocates nothing,
// writes nothing of the host's and makes only async-signal-safe calls.
struct ChildPlan {
  std::vector<std::pair<int, int>> moves;  // {child fd, host fd}
  int first_free = 3;                      // the lowest number above every child fd (at least 3)
  int status_fd = -1;
  SpawnOptions::Group group = SpawnOptions::Group::kNewSession;
  const std::vector<std::pair<int, rlim_t>>* limits = nullptr;
  const char* cwd = nullptr;
  char** argv = nullptr;
  char** envp = nullptr;  // nullptr: the host's environment
  int child_fds_fault = 0, chdir_fault = 0, exec_fault = 0;
};

[[noreturn]] void FailInChild(int status_fd, SpawnStep step, int err) {
  const ChildFailure failure{step, err};
  ssize_t ignored = write(status_fd, &failure, sizeof failure);
  (void)ignored;
  _exit(127);
}

[[noreturn]] void RunChild(const ChildPlan& p) {
  // A handler of the host's must not run in the child, on the host's memory:
  // every caught signal goes back to its default (the host's thread blocked
  // them all around the vfork, so none arrived yet; exec would reset them).
  for (int sig = 1; sig < NSIG; ++sig) {
    struct sigaction current {};
    if (sigaction(sig, nullptr, &current) == 0 && current.sa_handler != SIG_IGN && current.sa_handler != SIG_DFL) {
      signal(sig, SIG_DFL);
    }
  }
  if (p.group == SpawnOptions::Group::kNewSession) {
    setsid();
  } else {
    setpgid(0, 0);
  }
  // Every source first goes above the child's numbers, so that no dup2 below
  // overwrites a source still to be moved (nor the status pipe). These copies
  // take descriptors of their own, which may have run out.
  const int status_fd = fcntl(p.status_fd, F_DUPFD_CLOEXEC, p.first_free);
  if (status_fd < 0) FailInChild(p.status_fd, SpawnStep::kChildFds, errno);
  if (p.child_fds_fault != 0) FailInChild(status_fd, SpawnStep::kChildFds, p.child_fds_fault);
  int lifted[kMaxChildFds];
  for (size_t i = 0; i < p.moves.size(); ++i) {
    lifted[i] = fcntl(p.moves[i].second, F_DUPFD, p.first_free);
    if (lifted[i] < 0) FailInChild(status_fd, SpawnStep::kChildFds, errno);
  }
  for (size_t i = 0; i < p.moves.size(); ++i) {
    if (dup2(lifted[i], p.moves[i].first) < 0) FailInChild(status_fd, SpawnStep::kChildFds, errno);
  }
  // Nothing else of the host's reaches the program (a database, a client's
  // socket): only 1 and 2, when not given, stay the host's own.
  for (int fd = 3; fd < p.first_free; ++fd) {
    bool given = false;
    for (const auto& move : p.moves) given = given || move.first == fd;
    if (!given) close(fd);
  }
  if (status_fd > p.first_free) close_range(static_cast<unsigned>(p.first_free), static_cast<unsigned>(status_fd - 1), 0);
  close_range(static_cast<unsigned>(status_fd + 1), ~0U, 0);
  // A signal the host ignores or blocks would stay so across exec.
  signal(SIGPIPE, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  for (const auto& [resource, value] : *p.limits) {
    const rlimit limit{value, value};
    setrlimit(resource, &limit);
  }
  if (p.chdir_fault != 0) FailInChild(status_fd, SpawnStep::kChdir, p.chdir_fault);
  if (p.cwd != nullptr && chdir(p.cwd) != 0) FailInChild(status_fd, SpawnStep::kChdir, errno);
  if (p.exec_fault != 0) FailInChild(status_fd, SpawnStep::kExec, p.exec_fault);
  if (p.envp != nullptr) {
    execvpe(p.argv[0], p.argv, p.envp);
  } else {
    execvp(p.argv[0], p.argv);
  }
  FailInChild(status_fd, SpawnStep::kExec, errno);
}

// vfork on `plan`: the child's pid, or -1 with errno set. A function of its
// own, so that nothing of Spawn's lives across the vfork.
[[gnu::noinline]] pid_t StartChild(const ChildPlan& plan) {
  const pid_t pid = vfork();
  if (pid == 0) RunChild(plan);
  return pid;
}

// The child's report: nullopt once it exec'd (the pipe closed on exec).
std::optional<ChildFailure> ReadFailure(int status_fd) {
  ChildFailure failure{};
  ssize_t n;
  do {
    n = read(status_fd, &failure, sizeof failure);
  } while (n < 0 && errno == EINTR);
  if (n == sizeof failure) return failure;
  return std::nullopt;
}

}  // namespace

std::string_view SpawnStepName(SpawnStep step) {
  switch (step) {
    case SpawnStep::kDevNull:
      return "open /dev/null";
    case SpawnStep::kStatusPipe:
      return "pipe";
    case SpawnStep::kFork:
      return "fork";
    case SpawnStep::kChildFds:
      return "the child's descriptors";
    case SpawnStep::kChdir:
      return "chdir";
    case SpawnStep::kExec:
      return "exec";
  }
  return "spawn";
}

std::string ErrnoName(int err) {
  const char* name = strerrorname_np(err);
  return name != nullptr ? name : "E" + std::to_string(err);
}

Result<FdPair> MakePipe() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return Status::IoError("cannot make a pipe for a child process: " + ErrnoName(errno));
  return FdPair{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

Result<FdPair> MakeSocketPair() {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    return Status::IoError("cannot make a socket pair for a child process: " + ErrnoName(errno));
  }
  return FdPair{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

Result<UniqueFd> Duplicate(const UniqueFd& fd) {
  UniqueFd copy(fcntl(fd.get(), F_DUPFD_CLOEXEC, 0));
  if (!copy) return Status::IoError("cannot duplicate a descriptor for a child process: " + ErrnoName(errno));
  return copy;
}

Result<SpawnedChild> Spawn(SpawnOptions options) {
  // Whatever returns early, `options.fds` (the child's ends) close with it.
  if (options.argv.empty() || options.argv[0].empty()) {
    return Status::InvalidArgument("invalid argv: expected a non-empty program name at argv[0]");
  }
  if (options.fds.size() >= kMaxChildFds) {
    return Status::InvalidArgument("a child gets at most " + std::to_string(kMaxChildFds - 1) + " descriptors");
  }
  if (!options.fds.contains(0)) {
    const int injected = Injected(options, SpawnStep::kDevNull);
    UniqueFd devnull(injected != 0 ? -1 : open("/dev/null", O_RDONLY | O_CLOEXEC));
    if (!devnull) return StepFailed(SpawnStep::kDevNull, injected != 0 ? injected : errno);
    options.fds.emplace(0, std::move(devnull));
  }
  if (const int injected = Injected(options, SpawnStep::kStatusPipe); injected != 0) {
    return StepFailed(SpawnStep::kStatusPipe, injected);
  }
  ASSIGN_OR_RETURN(FdPair status, MakePipe());

  std::vector<std::string> argv_strings = options.argv;
  std::vector<char*> argv = CStrings(argv_strings);
  std::optional<std::vector<std::string>> env_strings = options.env;
  std::vector<char*> envp;
  if (env_strings) envp = CStrings(*env_strings);
  ChildPlan plan;
  for (const auto& [child_fd, fd] : options.fds) {
    plan.moves.emplace_back(child_fd, fd.get());
    plan.first_free = std::max(plan.first_free, child_fd + 1);
  }
  plan.status_fd = status.second.get();
  plan.group = options.group;
  plan.limits = &options.limits;
  plan.cwd = options.cwd.empty() ? nullptr : options.cwd.c_str();
  plan.argv = argv.data();
  plan.envp = env_strings ? envp.data() : nullptr;
  plan.child_fds_fault = Injected(options, SpawnStep::kChildFds);
  plan.chdir_fault = Injected(options, SpawnStep::kChdir);
  plan.exec_fault = Injected(options, SpawnStep::kExec);

  const int fork_fault = Injected(options, SpawnStep::kFork);
  // vfork, not fork: the cost of a fork grows with the host's memory (its page
  // tables are copied), and a host with a large heap starts children often
  // (Code Mode starts the next run's interpreter as each run begins).
  sigset_t all, old_mask;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old_mask);
  const pid_t pid = fork_fault != 0 ? -1 : StartChild(plan);
  const int fork_errno = fork_fault != 0 ? fork_fault : errno;
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  options.fds.clear();
  status.second.reset();
  if (pid < 0) return StepFailed(SpawnStep::kFork, fork_errno);
  if (const std::optional<ChildFailure> failure = ReadFailure(status.first.get())) {
    waitpid(pid, nullptr, 0);
    if (failure->step == SpawnStep::kChdir || failure->step == SpawnStep::kExec) {
      return Status::FailedPrecondition("spawn " + options.argv[0] + " " + ErrnoName(failure->err));
    }
    return StepFailed(failure->step, failure->err);
  }
  SpawnedChild child;
  child.pid = pid;
  child.pidfd.reset(static_cast<int>(syscall(SYS_pidfd_open, pid, 0)));
  return child;
}

}  // namespace retrace::base
