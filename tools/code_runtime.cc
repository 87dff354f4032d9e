#include "tools/code_runtime.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "engine/base/spawn.h"
#include "engine/base/unique_fd.h"
#include "engine/json/js_text.h"
#include "engine/json/lossless.h"
#include "engine/json/parser.h"
#include "engine/json/writer.h"
#include "tools/code_mode/bootstraps.h"

namespace retrace::tools {
namespace {

using json::Value;
using Clock = std::chrono::steady_clock;

// A message line from the child larger than this ends the run: binding values
// have no byte cap of their own, but a line must end somewhere.
constexpr size_t kMaxMessageBytes = size_t{256} << 20;
constexpr int kPollMs = 25;  // how often the compute budget is sampled

size_t JsonStringBytes(std::string_view text) {
  std::string quoted;
  json::AppendQuoted(quoted, text);
  return quoted.size();
}

// The longest prefix of `text` (whole code points) whose JSON string fits in `max_bytes`.
std::string FittingPrefix(std::string_view text, uint64_t max_bytes) {
  if (max_bytes < 2) return "";
  uint64_t bytes = 2;
  size_t end = 0;
  for (size_t i = 0; i < text.size();) {
    const size_t len = json::CodePointAt(text, i).second;
    const uint64_t cost = JsonStringBytes(text.substr(i, len)) - 2;
    if (bytes + cost > max_bytes) break;
    bytes += cost;
    i += len;
    end = i;
  }
  return std::string(text.substr(0, end));
}

// The outer output's byte budget (dsh's OutputLedger): the JSON of the logs
// array plus the completion value or the failure message. Binding values
// never enter it.
class OutputLedger {
 public:
  explicit OutputLedger(uint64_t max) : max_(max) {}

  bool Admit(std::string text, std::vector<std::string>& logs) {
    const uint64_t sep = logs.empty() ? 0 : 1;
    const uint64_t cost = JsonStringBytes(text) + sep;
    if (bytes_ + cost > max_) return false;
    bytes_ += cost;
    logs.push_back(std::move(text));
    return true;
  }

  CodeRunResult Success(std::vector<std::string> logs, std::optional<Value> value) const {
    if (value && json::Serialize(*value).size() > max_ - bytes_) return Limit(logs);
    return {std::move(value), std::move(logs), std::nullopt};
  }

  CodeRunResult Failure(std::vector<std::string> logs, CodeRunFailure error) const {
    if (JsonStringBytes(error.message) > max_ - bytes_) return Limit(logs);
    return {std::nullopt, std::move(logs), std::move(error)};
  }

  // The output-limit failure, keeping the logs (and a cut last one) that fit beside its message.
  CodeRunResult Limit(const std::vector<std::string>& logs) const {
    const std::string full = "outer output exceeded " + std::to_string(max_) + " bytes";
    const uint64_t budget = max_ - std::min<uint64_t>(max_, full.size() + 2);
    std::vector<std::string> kept;
    uint64_t used = 2;
    for (const std::string& text : logs) {
      const uint64_t sep = kept.empty() ? 0 : 1;
      const uint64_t available = budget >= used + sep ? budget - used - sep : 0;
      if (const uint64_t cost = JsonStringBytes(text); cost <= available) {
        kept.push_back(text);
        used += cost + sep;
        continue;
      }
      if (std::string prefix = FittingPrefix(text, available); !prefix.empty()) {
        used += JsonStringBytes(prefix) + sep;
        kept.push_back(std::move(prefix));
      }
      break;
    }
    return {std::nullopt, std::move(kept),
            CodeRunFailure{"output-limit", FittingPrefix(full, max_ >= used ? max_ - used : 0)}};
  }

 private:
  uint64_t max_;
  uint64_t bytes_ = 2;  // "[]"
};

// What a binding's reply needs after Run() may have returned: the queue of
// lines for the child and the eventfd that wakes the loop.
struct ReplyChannel {
  std::mutex mu;
  bool settled = false;
  std::deque<std::string> out;  // lines to write to the child
  int wake_fd = -1;

  void Push(std::string line) {
    std::lock_guard<std::mutex> lock(mu);
    if (settled) return;
    out.push_back(std::move(line));
    const uint64_t one = 1;
    (void)!write(wake_fd, &one, sizeof one);
  }
};

std::string ReplyLine(double id, const Result<Value>& outcome) {
  Value reply = Value::MakeObject({{"type", "reply"}, {"id", id}});
  if (outcome.ok()) {
    reply.Set("ok", true);
    reply.Set("value", *outcome);
  } else {
    reply.Set("ok", false);
    reply.Set("message", outcome.status().message());
  }
  return json::Serialize(reply) + "\n";
}

std::string SignalName(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev != nullptr ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

// The CPU time (user + system) of one process so far, from /proc; nullopt once it is gone.
std::optional<double> CpuMs(pid_t pid) {
  base::UniqueFd fd(open(("/proc/" + std::to_string(pid) + "/stat").c_str(), O_RDONLY | O_CLOEXEC));
  char buf[1024];
  const ssize_t n = fd ? read(fd.get(), buf, sizeof buf - 1) : -1;
  if (n <= 0) return std::nullopt;
  const std::string stat(buf, static_cast<size_t>(n));
  const size_t close = stat.rfind(')');  // the command name may hold spaces and parentheses
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(close + 2));
  std::string f;
  unsigned long long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && fields >> f; ++i) {
    if (i == 14) utime = std::stoull(f);
    if (i == 15) stime = std::stoull(f);
  }
  return static_cast<double>(utime + stime) * 1000.0 / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// The child's command line: the interpreter with the bootstrap, under bwrap when sandboxed.
std::vector<std::string> CommandLine(const CodeRuntimeOptions& o, int info_fd) {
  std::vector<std::string> argv;
  if (o.sandbox == CodeSandbox::kBwrap) {
    // The whole file system read-only, a private /tmp, the workspace (which
    // may be under /tmp) read-only on top, no network, its own pid namespace.
    argv = {o.bwrap,      "--ro-bind", "/",         "/",          "--dev",     "/dev",
            "--proc",     "/proc",     "--tmpfs",   "/tmp",       "--ro-bind", o.workspace,
            o.workspace,  "--ro-bind", o.interpreter, o.interpreter,  // it may live under /tmp too
            "--chdir",    o.workspace, "--unshare-all", "--die-with-parent", "--new-session",
            "--cap-drop", "ALL",       "--info-fd", std::to_string(info_fd), "--"};
  }
  if (o.language == schema::SdkLanguage::kPython) {
    argv.push_back(o.interpreter);
    argv.insert(argv.end(), {"-I", "-S", "-B", "-c", std::string(code_mode::kPythonBootstrap)});
  } else {
    argv.push_back(o.interpreter);
    argv.insert(argv.end(), {"--max-old-space-size=" + std::to_string(o.memory_mb), "--no-warnings",
                             "--input-type=module", "-e", std::string(code_mode::kNodeBootstrap)});
  }
  return argv;
}

}  // namespace

// A started child: its pid and the host's ends of its channels.
struct Child {
  pid_t pid = -1;
  base::UniqueFd channel, out, err, info, pidfd;
};

namespace {

// The child: the socket as fd 3 (and bwrap's info pipe as fd 4) and no other
// descriptor of the host's, its own process group, an empty environment and
// the memory rlimit for Python.
Result<Child> Spawn(const CodeRuntimeOptions& o) {
  auto context = [](const Status& s) { return s.WithContext("code runtime"); };
  auto channel = base::MakeSocketPair();
  if (!channel.ok()) return context(channel.status());
  auto out = base::MakePipe(), err = base::MakePipe(), info = base::MakePipe();
  for (const auto* pipe : {&out, &err, &info}) {
    if (!pipe->ok()) return context(pipe->status());
  }
  base::SpawnOptions spawn;
  spawn.argv = CommandLine(o, 4);
  spawn.env = std::vector<std::string>{};
  spawn.cwd = o.sandbox == CodeSandbox::kBwrap ? "/" : o.workspace;
  spawn.group = base::SpawnOptions::Group::kNewGroup;
  spawn.fds.emplace(1, std::move(out->second));
  spawn.fds.emplace(2, std::move(err->second));
  spawn.fds.emplace(3, std::move(channel->second));
  spawn.fds.emplace(4, std::move(info->second));
  if (o.language == schema::SdkLanguage::kPython) {
    spawn.limits.emplace_back(RLIMIT_AS, static_cast<rlim_t>(o.memory_mb) << 20);
  }
  auto spawned = base::Spawn(std::move(spawn));
  if (!spawned.ok()) return context(spawned.status());
  Child c;
  c.pid = spawned->pid;
  c.pidfd = std::move(spawned->pidfd);
  c.channel = std::move(channel->first);
  c.out = std::move(out->first);
  c.err = std::move(err->first);
  c.info = std::move(info->first);
  for (int fd : {c.channel.get(), c.out.get(), c.err.get(), c.info.get()}) fcntl(fd, F_SETFL, O_NONBLOCK);
  return c;
}

// One run: the loop over the child's channel, pipes and exit, until it settles.
class Run {
 public:
  Run(const CodeRuntimeOptions& o, const std::vector<CodeBindingNamespace>& bindings, const runtime::Signal* abort)
      : o_(o), bindings_(bindings), abort_(abort), ledger_(o.max_output_bytes),
        replies_(std::make_shared<ReplyChannel>()) {}

  // Runs the program in `child`, a process of Spawn() that has had nothing
  // to do yet (it may have been started ahead of time).
  CodeRunResult Go(std::string_view program, Child child) {
    base::UniqueFd wake(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
    replies_->wake_fd = wake.get();
    child_ = std::move(child);
    if (o_.sandbox != CodeSandbox::kBwrap) SetCpuPid(child_.pid);
    Send(StartLine(program));
    started_ = Clock::now();
    while (!result_) Step(wake.get());
    Finish();
    return std::move(*result_);
  }

 private:
  std::string StartLine(std::string_view program) const {
    Value::Array namespaces;
    for (const CodeBindingNamespace& ns : bindings_) {
      Value::Array names;
      for (const auto& [name, fn] : ns.functions) names.emplace_back(name);
      Value entry = Value::MakeObject({{"global", ns.global}, {"names", Value(std::move(names))}});
      if (ns.error_class) {
        entry.Set("errorClass", Value::MakeObject({{"name", ns.error_class->name},
                                                    {"memberNameProperty", ns.error_class->member_property}}));
      }
      namespaces.push_back(std::move(entry));
    }
    return json::Serialize(Value::MakeObject(
               {{"type", "start"}, {"code", std::string(program)}, {"namespaces", Value(std::move(namespaces))}})) +
           "\n";
  }

  void Send(const std::string& line) { pending_out_ += line; }

  void Step(int wake) {
    {
      std::lock_guard<std::mutex> lock(replies_->mu);
      for (std::string& line : replies_->out) pending_out_ += line;
      replies_->out.clear();
    }
    pollfd fds[6] = {{child_.channel.get(), static_cast<short>(POLLIN | (pending_out_.empty() ? 0 : POLLOUT)), 0},
                     {child_.out.get(), POLLIN, 0},
                     {child_.err.get(), POLLIN, 0},
                     {child_.info.get(), POLLIN, 0},
                     {child_.pidfd.get(), POLLIN, 0},
                     {wake, POLLIN, 0}};
    for (pollfd& p : fds) {
      if (p.fd < 0) p.events = 0;
    }
    poll(fds, 6, kPollMs);
    if (fds[5].revents & POLLIN) {
      uint64_t n;
      (void)!read(wake, &n, sizeof n);
    }
    if (fds[0].revents & POLLOUT) Flush();
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) ReadChannel();
    if (fds[1].revents & (POLLIN | POLLHUP)) ReadStray(child_.out);
    if (fds[2].revents & (POLLIN | POLLHUP)) ReadStray(child_.err);
    if (fds[3].revents & (POLLIN | POLLHUP)) ReadInfo();
    if (!result_ && (fds[4].revents & POLLIN)) Exited();
    if (!result_) CheckBudgets();
  }

  void Flush() {
    while (!pending_out_.empty()) {
      const ssize_t n = send(child_.channel.get(), pending_out_.data(), pending_out_.size(), MSG_NOSIGNAL);
      if (n <= 0) {
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
        pending_out_.clear();  // the child closed its end: nothing more can reach it
        return;
      }
      pending_out_.erase(0, static_cast<size_t>(n));
    }
  }

  void ReadChannel() {
    char buf[65536];
    for (;;) {
      const ssize_t n = read(child_.channel.get(), buf, sizeof buf);
      if (n <= 0) {
        if (n == 0) child_.channel.reset();  // closed: the exit (or the budgets) settle the run
        return;
      }
      // Lines are cut where the last search stopped (a large message arrives in
      // many reads) and the handled ones dropped once, not line by line.
      const size_t from = in_.size();
      in_.append(buf, static_cast<size_t>(n));
      size_t start = 0;
      for (size_t nl = in_.find('\n', from); !result_ && nl != std::string::npos; nl = in_.find('\n', start)) {
        OnMessage(std::string_view(in_).substr(start, nl - start));
        start = nl + 1;
      }
      in_.erase(0, start);
      if (!result_ && in_.size() > kMaxMessageBytes) {
        Settle(ledger_.Failure(Logs(), {"worker-exit", "the program sent a message over 256 MiB"}));
      }
      if (result_) return;
    }
  }

  // Whatever the program wrote to its stdout or stderr itself: a log per read.
  void ReadStray(base::UniqueFd& fd) {
    char buf[65536];
    for (;;) {
      const ssize_t n = read(fd.get(), buf, sizeof buf);
      if (n <= 0) {
        if (n == 0) fd.reset();
        return;
      }
      if (result_) continue;  // after settlement: drained, not kept
      std::string text = json::DecodeUtf8Lossy(std::string_view(buf, static_cast<size_t>(n)));
      if (!ledger_.Admit(text, logs_)) {
        std::vector<std::string> all = Logs();
        all.push_back(std::move(text));
        Settle(ledger_.Limit(all));
      }
    }
  }

  // bubblewrap's {"child-pid": N}: the process whose CPU time is the program's.
  void ReadInfo() {
    char buf[4096];
    const ssize_t n = read(child_.info.get(), buf, sizeof buf);
    if (n <= 0) {
      if (n == 0) child_.info.reset();
      return;
    }
    info_.append(buf, static_cast<size_t>(n));
    if (auto v = json::Parse(info_); v.ok()) {
      if (const Value* pid = v->Find("child-pid"); pid != nullptr && pid->is_number()) {
        SetCpuPid(static_cast<pid_t>(pid->as_number()));
      }
    }
  }

  // Every line is hostile: checked, rebuilt, dropped when it is not a message.
  void OnMessage(std::string_view line) {
    auto parsed = json::Parse(line);
    if (!parsed.ok() || !parsed->is_object()) return;
    const Value& m = *parsed;
    const Value* type = m.Find("type");
    if (type == nullptr || !type->is_string()) return;
    const std::string& t = type->as_string();
    if (t == "log") {
      const Value* text = m.Find("text");
      if (text == nullptr || !text->is_string()) return;
      if (!ledger_.Admit(text->as_string(), logs_)) {
        std::vector<std::string> all = Logs();
        all.push_back(text->as_string());
        Settle(ledger_.Limit(all));
      }
    } else if (t == "call") {
      OnCall(m);
    } else if (t == "done") {
      OnDone(m);
    }
  }

  void OnCall(const Value& m) {
    const Value* id = m.Find("id");
    const Value* global = m.Find("global");
    const Value* name = m.Find("name");
    if (id == nullptr || !id->is_number() || global == nullptr || !global->is_string() || name == nullptr ||
        !name->is_string()) {
      return;
    }
    const double call_id = id->as_number();
    if (!answered_.insert(call_id).second) return;  // each id is answered once
    const BindingFn* fn = Find(global->as_string(), name->as_string());
    if (fn == nullptr) {
      Send(ReplyLine(call_id, Status::NotFound("unknown binding " +
                                               json::Serialize(Value(global->as_string() + "." + name->as_string())))));
      return;
    }
    const Value* args = m.Find("args");
    if (args == nullptr || !json::IsLossless(*args)) {
      Send(ReplyLine(call_id, Status::InvalidArgument("binding arguments must be lossless JSON")));
      return;
    }
    std::shared_ptr<ReplyChannel> channel = replies_;
    (*fn)(*args, [channel, call_id](Result<Value> outcome) {
      if (outcome.ok() && !json::IsLossless(*outcome)) {
        outcome = Status::InvalidArgument("binding resolution must be lossless JSON");
      }
      channel->Push(ReplyLine(call_id, outcome));
    });
  }

  const BindingFn* Find(const std::string& global, const std::string& name) const {
    for (const CodeBindingNamespace& ns : bindings_) {
      if (ns.global != global) continue;
      for (const auto& [n, fn] : ns.functions) {
        if (n == name) return &fn;
      }
    }
    return nullptr;
  }

  void OnDone(const Value& m) {
    const Value* error = m.Find("error");
    if (error == nullptr) {
      std::optional<Value> value;
      if (const Value* v = m.Find("value")) {
        if (!json::IsLossless(*v)) {
          return Settle(ledger_.Failure(Logs(), {"invalid-output", "program completion must be lossless JSON"}));
        }
        value = *v;
      }
      return Settle(ledger_.Success(Logs(), std::move(value)));
    }
    const Value* kind = error->Find("kind");
    const Value* message = error->Find("message");
    if (kind == nullptr || !kind->is_string() || message == nullptr || !message->is_string()) return;
    static const std::set<std::string, std::less<>> kChildKinds = {"exception", "invalid-output", "output-limit",
                                                                   "worker-exit"};
    if (!kChildKinds.contains(kind->as_string())) return;
    Settle(ledger_.Failure(Logs(), {kind->as_string(), message->as_string()}));
  }

  void Exited() {
    siginfo_t info{};
    if (waitid(P_PIDFD, static_cast<id_t>(child_.pidfd.get()), &info, WEXITED | WNOHANG) != 0 || info.si_pid == 0) {
      return;
    }
    reaped_ = true;
    // What it wrote before it died is part of the run.
    ReadChannel();
    ReadStray(child_.out);
    ReadStray(child_.err);
    if (result_) return;
    const std::string how = info.si_code == CLD_EXITED ? "exited with code " + std::to_string(info.si_status)
                                                       : "was killed by " + SignalName(info.si_status);
    Settle(ledger_.Failure(Logs(), {"worker-exit", "the program's process " + how + " before completing"}));
  }

  void CheckBudgets() {
    const double wall = std::chrono::duration<double, std::milli>(Clock::now() - started_).count();
    if (abort_ != nullptr && abort_->aborted()) return Settle(ledger_.Failure(Logs(), {"abort", abort_->reason()}));
    if (wall > o_.max_wall_ms) {
      return Settle(ledger_.Failure(Logs(), {"timeout", "wall-clock ceiling reached (" + json::FormatNumber(o_.max_wall_ms) + "ms)"}));
    }
    if (cpu_pid_ > 0) {
      if (std::optional<double> cpu = CpuMs(cpu_pid_); cpu && *cpu - cpu_base_ > o_.compute_ms) {
        Settle(ledger_.Failure(Logs(), {"timeout", "compute budget exhausted (" + json::FormatNumber(o_.compute_ms) + "ms busy)"}));
      }
    }
  }

  std::vector<std::string> Logs() const { return logs_; }

  // The process whose CPU time is the program's; what it spent starting up
  // (before this run) is not the program's.
  void SetCpuPid(pid_t pid) {
    cpu_pid_ = pid;
    cpu_base_ = CpuMs(pid).value_or(0);
  }

  void Settle(CodeRunResult r) {
    if (result_) return;
    result_ = std::move(r);
    std::lock_guard<std::mutex> lock(replies_->mu);
    replies_->settled = true;
    replies_->out.clear();
  }

  // Everything in the child's group dies (under bwrap, the sandbox with it),
  // and the process is reaped before the result is given.
  void Finish() {
    kill(-child_.pid, SIGKILL);
    if (cpu_pid_ > 0 && cpu_pid_ != child_.pid) kill(cpu_pid_, SIGKILL);
    child_.channel.reset();
    if (!reaped_) {
      siginfo_t info{};
      waitid(P_PIDFD, static_cast<id_t>(child_.pidfd.get()), &info, WEXITED);
    }
    // Drain what is left in the pipes, briefly: a grandchild that escaped the
    // group may hold them open.
    const auto deadline = Clock::now() + std::chrono::milliseconds(200);
    while ((child_.out.get() >= 0 || child_.err.get() >= 0) && Clock::now() < deadline) {
      pollfd fds[2] = {{child_.out.get(), POLLIN, 0}, {child_.err.get(), POLLIN, 0}};
      if (poll(fds, 2, 50) <= 0) continue;
      if (fds[0].revents) ReadStray(child_.out);
      if (fds[1].revents) ReadStray(child_.err);
    }
  }

  const CodeRuntimeOptions& o_;
  const std::vector<CodeBindingNamespace>& bindings_;
  const runtime::Signal* abort_;
  OutputLedger ledger_;
  std::shared_ptr<ReplyChannel> replies_;
  Child child_;
  pid_t cpu_pid_ = -1;
  double cpu_base_ = 0;
  bool reaped_ = false;
  Clock::time_point started_;
  std::string in_, info_, pending_out_;
  std::vector<std::string> logs_;
  std::set<double> answered_;
  std::optional<CodeRunResult> result_;
};

// The first line a command prints (`--version`, say), or the reason it could not run.
Result<std::string> VersionOf(const std::vector<std::string>& args) {
  ASSIGN_OR_RETURN(base::FdPair out, base::MakePipe());
  base::SpawnOptions spawn;
  spawn.argv = args;
  spawn.group = base::SpawnOptions::Group::kNewGroup;
  ASSIGN_OR_RETURN(spawn.fds[2], base::Duplicate(out.second));
  spawn.fds.emplace(1, std::move(out.second));
  auto spawned = base::Spawn(std::move(spawn));
  if (!spawned.ok()) return Status::NotFound("cannot run " + args[0] + ": " + spawned.status().message());
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(out.first.get(), buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
  int status = 0;
  waitpid(spawned->pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return Status::FailedPrecondition(args[0] + " does not run: " + text.substr(0, text.find('\n')));
  }
  return text.substr(0, text.find('\n'));
}

// "v22.23.5" / "Python 3.11.7" → {22, 23}.
std::pair<int, int> MajorMinor(std::string_view version) {
  const size_t digit = version.find_first_of("0123456789");
  if (digit == std::string_view::npos) return {0, 0};
  int major = 0, minor = 0;
  std::sscanf(std::string(version.substr(digit)).c_str(), "%d.%d", &major, &minor);
  return {major, minor};
}

}  // namespace

Result<std::unique_ptr<CodeRuntime>> CodeRuntime::Create(CodeRuntimeOptions o) {
  if (!(o.compute_ms > 0) || !(o.max_wall_ms > 0) || o.max_output_bytes < 4 || o.memory_mb == 0) {
    return Status::InvalidArgument(
        "code runtime: computeMs and maxWallMs must be positive, maxOutputBytes at least 4, the memory cap positive");
  }
  std::error_code ec;
  const std::filesystem::path workspace = std::filesystem::canonical(o.workspace, ec);
  if (ec || !std::filesystem::is_directory(workspace)) {
    return Status::NotFound("code runtime: the workspace " + o.workspace + " is not a directory");
  }
  o.workspace = workspace.string();
  const bool python = o.language == schema::SdkLanguage::kPython;
  ASSIGN_OR_RETURN(std::string version, VersionOf({o.interpreter, "--version"}));
  // The interpreter itself, not a wrapper found on PATH (a version manager's
  // shim would put its own variables into the empty environment).
  ASSIGN_OR_RETURN(o.interpreter, VersionOf(python ? std::vector<std::string>{o.interpreter, "-I", "-S", "-c",
                                                                              "import sys; print(sys.executable)"}
                                                   : std::vector<std::string>{o.interpreter, "-p", "process.execPath"}));
  const auto [major, minor] = MajorMinor(version);
  if (python ? std::pair(major, minor) < std::pair(3, 9) : std::pair(major, minor) < std::pair(22, 13)) {
    return Status::FailedPrecondition(
        o.interpreter + " is " + version + "; Code Mode needs " +
        (python ? "Python 3.9 or later: name one with --code-runtime-bin"
                : "Node 22.13 or later (its TypeScript type stripping): name one with --code-runtime-bin, or run "
                  "Python programs instead with --code-runtime python"));
  }
  if (o.sandbox == CodeSandbox::kBwrap) {
    auto bwrap = VersionOf({o.bwrap, "--version"});
    if (!bwrap.ok()) {
      return Status::FailedPrecondition(
          "the code sandbox needs bubblewrap (" + bwrap.status().message() +
          "): install it (Debian: apt-get install bubblewrap) or choose --code-sandbox none, which runs programs "
          "with your user's rights");
    }
  }
  return std::unique_ptr<CodeRuntime>(new CodeRuntime(std::move(o)));
}

// The next run's child, started ahead of time so that a run does not wait for
// the interpreter to start (Node takes tens of milliseconds). Each child still
// runs one program only: taking the spare starts the one after it.
struct CodeRuntime::Spare {
  std::mutex mu;
  std::optional<Child> child;
};

CodeRuntime::CodeRuntime(CodeRuntimeOptions options)
    : options_(std::move(options)), spare_(std::make_unique<Spare>()) {
  Refill();
}

CodeRuntime::~CodeRuntime() {
  std::lock_guard lock(spare_->mu);
  if (spare_->child) {
    kill(-spare_->child->pid, SIGKILL);
    siginfo_t info{};
    waitid(P_PIDFD, static_cast<id_t>(spare_->child->pidfd.get()), &info, WEXITED);
  }
}

void CodeRuntime::Refill() const {
  auto child = Spawn(options_);
  std::lock_guard lock(spare_->mu);
  if (child.ok() && !spare_->child) spare_->child = std::move(*child);
}

CodeRunResult CodeRuntime::Run(std::string_view program, const std::vector<CodeBindingNamespace>& bindings,
                               const runtime::Signal* abort) const {
  OutputLedger ledger(options_.max_output_bytes);
  if (abort != nullptr && abort->aborted()) return ledger.Failure({}, {"abort", abort->reason()});
  std::optional<Child> child;
  {
    std::lock_guard lock(spare_->mu);
    child.swap(spare_->child);
  }
  // A spare that died while it waited (killed from outside) is not used.
  if (child) {
    siginfo_t info{};
    if (waitid(P_PIDFD, static_cast<id_t>(child->pidfd.get()), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
        info.si_pid != 0) {
      kill(-child->pid, SIGKILL);
      waitid(P_PIDFD, static_cast<id_t>(child->pidfd.get()), &info, WEXITED);
      child.reset();
    }
  }
  if (!child) {
    auto spawned = Spawn(options_);
    if (!spawned.ok()) return ledger.Failure({}, {"worker-exit", spawned.status().message()});
    child = std::move(*spawned);
  }
  Refill();
  return tools::Run(options_, bindings, abort).Go(program, std::move(*child));
}

}  // namespace retrace::tools
