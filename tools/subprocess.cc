#include "tools/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <regex>

#include "engine/base/unique_fd.h"
#include "tools/file_ops.h"

namespace retrace::tools {
namespace {

using Clock = std::chrono::steady_clock;

// dsh-subprocess's scrub: credentials and the harness's own namespace stay out.
bool ScrubbedFromChildren(std::string_view name) {
  static const std::regex sensitive("KEY|PASSWORD|SECRET|TOKEN", std::regex::icase);
  std::string upper(name);
  for (char& c : upper) c = static_cast<char>(toupper(static_cast<unsigned char>(c)));
  return std::regex_search(upper, sensitive) || upper.rfind("DSH_", 0) == 0;
}

std::vector<std::string> ChildEnvironment(const std::vector<std::string>& base,
                                          const std::map<std::string, std::string>& extra) {
  std::map<std::string, std::string> env;
  for (const std::string& e : base) {
    std::string_view entry(e);
    size_t eq = entry.find('=');
    if (eq == std::string_view::npos || ScrubbedFromChildren(entry.substr(0, eq))) continue;
    env.emplace(std::string(entry.substr(0, eq)), std::string(entry.substr(eq + 1)));
  }
  for (const auto& [k, v] : extra) env[k] = v;
  std::vector<std::string> out;
  out.reserve(env.size());
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

std::vector<char*> CStrings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

std::string ErrnoName(int err) {
  const char* name = strerrorname_np(err);
  return name != nullptr ? name : "E" + std::to_string(err);
}

int PidfdOpen(pid_t pid) { return static_cast<int>(syscall(SYS_pidfd_open, pid, 0)); }

Status MakePipe(base::UniqueFd& read_end, base::UniqueFd& write_end) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return Status::IoError("cannot make a pipe for the child: " + ErrnoName(errno));
  read_end.reset(fds[0]);
  write_end.reset(fds[1]);
  return Status::Ok();
}

void CloseFd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

}  // namespace

std::string SignalName(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev != nullptr ? std::string("SIG") + abbrev : "SIG" + std::to_string(sig);
}

// ---------------------------------------------------------------- OutputCollector

OutputCollector::OutputCollector(size_t max_bytes, std::optional<uint64_t> max_spill_bytes, std::string spill_dir,
                                 std::string label)
    : max_bytes_(max_bytes),
      max_spill_bytes_(max_spill_bytes),
      spill_dir_(std::move(spill_dir)),
      label_(std::move(label)),
      spill_disabled_(!max_spill_bytes.has_value()) {}

OutputCollector::~OutputCollector() { Seal(); }

void OutputCollector::Push(std::string_view chunk) {
  total_ += chunk.size();
  const bool overflows = tail_.size() + chunk.size() > max_bytes_;
  if (!spill_disabled_ && (overflows || spill_fd_ >= 0)) Spill(chunk);
  tail_.append(chunk);
  if (tail_.size() > max_bytes_) {
    tail_.erase(0, tail_.size() - max_bytes_);
    dropped_ = true;
  }
}

void OutputCollector::Spill(std::string_view chunk) {
  if (max_spill_bytes_ && total_ > *max_spill_bytes_) return DiscardSpill();
  if (spill_fd_ < 0) {
    static std::atomic<uint64_t> counter{0};
    std::string path = spill_dir_ + "/retrace-" + std::to_string(getpid()) + "-" + std::to_string(++counter) + "-" +
                       RandomHex(6) + "-" + label_ + ".log";
    mkdir(spill_dir_.c_str(), 0700);  // created on first use, private; EEXIST is fine
    spill_fd_ = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (spill_fd_ < 0) {
      spill_disabled_ = true;  // no spill directory: keep the tail only
      return;
    }
    spill_path_ = path;
    if (!WriteAll(spill_fd_, tail_)) return DiscardSpill();
  }
  if (!WriteAll(spill_fd_, chunk)) DiscardSpill();
}

void OutputCollector::DiscardSpill() {
  CloseFd(spill_fd_);
  if (spill_path_) unlink(spill_path_->c_str());
  spill_path_.reset();
  spill_disabled_ = true;
}

void OutputCollector::Seal() {
  if (spill_fd_ < 0) return;
  if (close(spill_fd_) != 0) spill_path_.reset();  // the file may lack its tail: stop advertising it
  spill_fd_ = -1;
}

StreamRead OutputCollector::ReadFrom(uint64_t from) const {
  const uint64_t window_start = total_ - tail_.size();
  StreamRead read;
  read.lossy = from < window_start;
  read.text = read.lossy ? tail_ : tail_.substr(std::min<uint64_t>(from - window_start, tail_.size()));
  read.next_offset = total_;
  read.spill_path = spill_path_;
  return read;
}

CollectedOutput OutputCollector::Final() const { return {tail_, dropped_, spill_path_}; }

// ---------------------------------------------------------------- Subprocess

Subprocess::Subprocess(SpawnSpec spec, DoneFn on_done)
    : spec_(std::move(spec)),
      on_done_(std::move(on_done)),
      stdout_(spec_.stdout_max_bytes, spec_.spill_max_bytes, spec_.spill_dir, "stdout"),
      stderr_(spec_.stderr_max_bytes, spec_.spill_max_bytes, spec_.spill_dir, "stderr") {}

Result<std::shared_ptr<Subprocess>> Subprocess::Spawn(SpawnSpec spec, DoneFn on_done) {
  if (spec.argv.empty() || spec.argv[0].empty()) {
    return Status::InvalidArgument("invalid argv: expected a non-empty program name at argv[0]");
  }
  std::shared_ptr<Subprocess> proc(new Subprocess(std::move(spec), std::move(on_done)));
  const SpawnSpec& s = proc->spec_;
  // Everything the child needs is built before fork: after it, only
  // async-signal-safe calls.
  std::vector<std::string> argv_strings = s.argv, env_strings = ChildEnvironment(s.base_env, s.env);
  std::vector<char*> argv = CStrings(argv_strings), envp = CStrings(env_strings);
  // Owned until handed on: any early return closes what was opened so far.
  base::UniqueFd out_r, out_w, err_r, err_w, status_r, status_w;
  RETURN_IF_ERROR(MakePipe(out_r, out_w));
  RETURN_IF_ERROR(MakePipe(err_r, err_w));
  RETURN_IF_ERROR(MakePipe(status_r, status_w));
  base::UniqueFd devnull(open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!devnull) return Status::IoError("cannot open /dev/null for the child's stdin: " + ErrnoName(errno));
  const pid_t pid = fork();
  if (pid == 0) {
    setsid();  // its own session and process group: signals reach the whole tree
    dup2(devnull.get(), 0);
    dup2(out_w.get(), 1);
    dup2(err_w.get(), 2);
    signal(SIGPIPE, SIG_DFL);
    int failure = 0;
    if (!s.cwd.empty() && chdir(s.cwd.c_str()) != 0) {
      failure = errno;
    } else {
      execvpe(argv[0], argv.data(), envp.data());
      failure = errno;
    }
    ssize_t ignored = write(status_w.get(), &failure, sizeof failure);
    (void)ignored;
    _exit(127);
  }
  const int fork_errno = errno;
  out_w.reset();
  err_w.reset();
  status_w.reset();
  devnull.reset();
  if (pid < 0) return Status::IoError("fork: " + ErrnoName(fork_errno));
  int failure = 0;
  ssize_t n;
  do {
    n = read(status_r.get(), &failure, sizeof failure);
  } while (n < 0 && errno == EINTR);
  status_r.reset();
  if (n == sizeof failure) {  // exec (or chdir) failed: Node's spawn 'error'
    waitpid(pid, nullptr, 0);
    return Status::FailedPrecondition("spawn " + s.argv[0] + " " + ErrnoName(failure));
  }
  proc->pid_ = pid;
  proc->wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  const int pid_fd = PidfdOpen(pid);
  // The reader keeps the process alive until it has settled and escalated.
  proc->reader_ = std::thread([proc, o = out_r.release(), e = err_r.release(), pid_fd] { proc->ReaderLoop(o, e, pid_fd); });
  return proc;
}

Subprocess::~Subprocess() {
  // The reader thread holds the last reference, so this runs on it, at its end.
  if (reader_.joinable()) reader_.detach();
  CloseFd(wake_fd_);
}

bool Subprocess::GroupAlive() const { return pid_ > 0 && (kill(-pid_, 0) == 0 || errno == EPERM); }

void Subprocess::Terminate() {
  std::lock_guard lock(mu_);
  if (kill_at_ || !GroupAlive()) return;
  kill(-pid_, SIGTERM);
  kill_at_ = Clock::now() + spec_.grace;
  eventfd_write(wake_fd_, 1);
}

void Subprocess::ReaderLoop(int out_fd, int err_fd, int pid_fd) {
  std::optional<Clock::time_point> drain_deadline;  // set at exit
  int status = 0;
  char buf[65536];
  auto reap = [&] {
    if (drain_deadline) return;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      drain_deadline = Clock::now() + spec_.grace;
      CloseFd(pid_fd);
    }
  };
  auto escalate_if_due = [&] {
    std::lock_guard lock(mu_);
    if (kill_at_ && Clock::now() >= *kill_at_) {
      if (GroupAlive()) kill(-pid_, SIGKILL);
      kill_at_.reset();
    }
  };
  while (out_fd >= 0 || err_fd >= 0 || !drain_deadline) {
    if (drain_deadline && Clock::now() >= *drain_deadline) break;  // a grandchild holds a pipe open
    std::vector<pollfd> fds;
    for (int fd : {out_fd, err_fd, pid_fd, wake_fd_}) {
      if (fd >= 0) fds.push_back({fd, POLLIN, 0});
    }
    int timeout_ms = pid_fd < 0 && !drain_deadline ? 15 : -1;  // no pidfd: poll the child
    auto clip = [&](Clock::time_point t) {
      int ms = static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(t - Clock::now()).count());
      timeout_ms = timeout_ms < 0 ? std::max(ms, 0) : std::min(timeout_ms, std::max(ms, 0));
    };
    if (drain_deadline) clip(*drain_deadline);
    {
      std::lock_guard lock(mu_);
      if (kill_at_) clip(*kill_at_);
    }
    poll(fds.data(), fds.size(), timeout_ms);
    for (const pollfd& p : fds) {
      if (p.revents == 0) continue;
      if (p.fd == wake_fd_) {
        eventfd_t ignored;
        eventfd_read(wake_fd_, &ignored);
      } else if (p.fd == pid_fd) {
        reap();
      } else {
        ssize_t n = read(p.fd, buf, sizeof buf);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        std::lock_guard lock(mu_);
        if (n > 0) {
          (p.fd == out_fd ? stdout_ : stderr_).Push(std::string_view(buf, static_cast<size_t>(n)));
        } else {
          CloseFd(p.fd == out_fd ? out_fd : err_fd);
        }
      }
    }
    if (pid_fd < 0) reap();
    escalate_if_due();
  }
  if (!drain_deadline) waitpid(pid_, &status, 0);
  CloseFd(out_fd);
  CloseFd(err_fd);
  CloseFd(pid_fd);
  ProcessOutcome outcome;
  if (WIFSIGNALED(status)) {
    outcome.signal = SignalName(WTERMSIG(status));
  } else {
    outcome.exit_code = WEXITSTATUS(status);
  }
  {
    std::lock_guard lock(mu_);
    stdout_.Seal();
    stderr_.Seal();
    outcome_ = outcome;
  }
  settled_cv_.notify_all();
  if (on_done_) on_done_(outcome);
  // A SIGKILL still owed to surviving group members (they ignored SIGTERM).
  for (;;) {
    std::unique_lock lock(mu_);
    if (!kill_at_) break;
    if (!GroupAlive()) break;
    if (Clock::now() >= *kill_at_) {
      kill(-pid_, SIGKILL);
      break;
    }
    const auto wait = *kill_at_ - Clock::now();
    lock.unlock();
    pollfd p{wake_fd_, POLLIN, 0};
    poll(&p, 1, static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(wait).count()));
    eventfd_t ignored;
    eventfd_read(wake_fd_, &ignored);
  }
}

ProcessOutcome Subprocess::Wait() {
  std::unique_lock lock(mu_);
  settled_cv_.wait(lock, [this] { return outcome_.has_value(); });
  return *outcome_;
}

std::optional<ProcessOutcome> Subprocess::WaitFor(std::chrono::milliseconds d) {
  std::unique_lock lock(mu_);
  if (!settled_cv_.wait_for(lock, d, [this] { return outcome_.has_value(); })) return std::nullopt;
  return outcome_;
}

bool Subprocess::settled() const {
  std::lock_guard lock(mu_);
  return outcome_.has_value();
}

StreamRead Subprocess::ReadStdout(uint64_t from) const {
  std::lock_guard lock(mu_);
  return stdout_.ReadFrom(from);
}
StreamRead Subprocess::ReadStderr(uint64_t from) const {
  std::lock_guard lock(mu_);
  return stderr_.ReadFrom(from);
}
CollectedOutput Subprocess::FinalStdout() const {
  std::lock_guard lock(mu_);
  return stdout_.Final();
}
CollectedOutput Subprocess::FinalStderr() const {
  std::lock_guard lock(mu_);
  return stderr_.Final();
}

}  // namespace retrace::tools
