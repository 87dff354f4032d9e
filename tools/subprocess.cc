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

#include "engine/base/spawn.h"
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

using base::ErrnoName;

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
  if (!spill_disabled_ && (overflows || spill_fd_)) Spill(chunk);
  tail_.append(chunk);
  if (tail_.size() > max_bytes_) {
    tail_.erase(0, tail_.size() - max_bytes_);
    dropped_ = true;
  }
}

void OutputCollector::Spill(std::string_view chunk) {
  if (max_spill_bytes_ && total_ > *max_spill_bytes_) return DiscardSpill();
  if (!spill_fd_) {
    static std::atomic<uint64_t> counter{0};
    std::string path = spill_dir_ + "/retrace-" + std::to_string(getpid()) + "-" + std::to_string(++counter) + "-" +
                       RandomHex(6) + "-" + label_ + ".log";
    mkdir(spill_dir_.c_str(), 0700);  // created on first use, private; EEXIST is fine
    spill_fd_.reset(open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
    if (!spill_fd_) {
      spill_disabled_ = true;  // no spill directory: keep the tail only
      return;
    }
    spill_path_ = path;
    if (!WriteAll(spill_fd_.get(), tail_)) return DiscardSpill();
  }
  if (!WriteAll(spill_fd_.get(), chunk)) DiscardSpill();
}

void OutputCollector::DiscardSpill() {
  spill_fd_.reset();
  if (spill_path_) unlink(spill_path_->c_str());
  spill_path_.reset();
  spill_disabled_ = true;
}

void OutputCollector::Seal() {
  if (!spill_fd_.Close()) spill_path_.reset();  // the file may lack its tail: stop advertising it
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
  proc->wake_fd_.reset(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!proc->wake_fd_) return Status::IoError("cannot make an eventfd for a child process: " + ErrnoName(errno));
  ASSIGN_OR_RETURN(base::FdPair out, base::MakePipe());
  ASSIGN_OR_RETURN(base::FdPair err, base::MakePipe());
  base::SpawnOptions options;
  options.argv = s.argv;
  options.env = ChildEnvironment(s.base_env, s.env);
  options.cwd = s.cwd;
  options.fds.emplace(1, std::move(out.second));
  options.fds.emplace(2, std::move(err.second));
  ASSIGN_OR_RETURN(base::SpawnedChild child, base::Spawn(std::move(options)));
  proc->pid_ = child.pid;
  // The reader keeps the process alive until it has settled and escalated.
  proc->reader_ = std::thread([proc, o = std::move(out.first), e = std::move(err.first),
                               p = std::move(child.pidfd)]() mutable {
    proc->ReaderLoop(std::move(o), std::move(e), std::move(p));
  });
  return proc;
}

Subprocess::~Subprocess() {
  // The reader thread holds the last reference, so this runs on it, at its end.
  if (reader_.joinable()) reader_.detach();
}

bool Subprocess::GroupAlive() const { return pid_ > 0 && (kill(-pid_, 0) == 0 || errno == EPERM); }

void Subprocess::Terminate() {
  std::lock_guard lock(mu_);
  if (kill_at_ || !GroupAlive()) return;
  kill(-pid_, SIGTERM);
  kill_at_ = Clock::now() + spec_.grace;
  eventfd_write(wake_fd_.get(), 1);
}

void Subprocess::ReaderLoop(base::UniqueFd out_fd, base::UniqueFd err_fd, base::UniqueFd pid_fd) {
  std::optional<Clock::time_point> drain_deadline;  // set at exit
  int status = 0;
  char buf[65536];
  auto reap = [&] {
    if (drain_deadline) return;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      drain_deadline = Clock::now() + spec_.grace;
      pid_fd.reset();
    }
  };
  auto escalate_if_due = [&] {
    std::lock_guard lock(mu_);
    if (kill_at_ && Clock::now() >= *kill_at_) {
      if (GroupAlive()) kill(-pid_, SIGKILL);
      kill_at_.reset();
    }
  };
  while (out_fd || err_fd || !drain_deadline) {
    if (drain_deadline && Clock::now() >= *drain_deadline) break;  // a grandchild holds a pipe open
    std::vector<pollfd> fds;
    for (int fd : {out_fd.get(), err_fd.get(), pid_fd.get(), wake_fd_.get()}) {
      if (fd >= 0) fds.push_back({fd, POLLIN, 0});
    }
    int timeout_ms = !pid_fd && !drain_deadline ? 15 : -1;  // no pidfd: poll the child
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
      if (p.fd == wake_fd_.get()) {
        eventfd_t ignored;
        eventfd_read(wake_fd_.get(), &ignored);
      } else if (p.fd == pid_fd.get()) {
        reap();
      } else {
        ssize_t n = read(p.fd, buf, sizeof buf);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        std::lock_guard lock(mu_);
        if (n > 0) {
          (p.fd == out_fd.get() ? stdout_ : stderr_).Push(std::string_view(buf, static_cast<size_t>(n)));
        } else {
          (p.fd == out_fd.get() ? out_fd : err_fd).reset();
        }
      }
    }
    if (!pid_fd) reap();
    escalate_if_due();
  }
  if (!drain_deadline) waitpid(pid_, &status, 0);
  out_fd.reset();
  err_fd.reset();
  pid_fd.reset();
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
    pollfd p{wake_fd_.get(), POLLIN, 0};
    poll(&p, 1, static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(wait).count()));
    eventfd_t ignored;
    eventfd_read(wake_fd_.get(), &ignored);
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
