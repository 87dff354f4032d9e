#include "check/external_presenters.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include "engine/base/spawn.h"
#include "engine/base/unique_fd.h"
#include "engine/json/parser.h"
#include "engine/json/writer.h"
#include "engine/schema/raw_schema_check.h"

namespace retrace::check {

using json::Value;
using Clock = std::chrono::steady_clock;

namespace {

// An answer longer than this is refused rather than buffered without end.
constexpr size_t kMaxAnswerBytes = size_t{64} << 20;
// What of the program's stderr is kept to explain a failure.
constexpr size_t kStderrTail = 2048;

// The last non-empty line of `text`, at most 300 bytes, for messages.
std::string LastLine(const std::string& text) {
  size_t end = text.find_last_not_of("\r\n \t");
  if (end == std::string::npos) return "";
  const size_t start = text.find_last_of('\n', end);
  std::string line = text.substr(start == std::string::npos ? 0 : start + 1, end + 1 - (start == std::string::npos ? 0 : start + 1));
  if (line.size() > 300) line = line.substr(0, 300) + "…";
  return line;
}

std::string Shown(std::string_view text) {
  std::string s(text.substr(0, 120));
  if (text.size() > 120) s += "…";
  return s;
}

void SetNonBlocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

}  // namespace

// One running copy of the program: a socket for its stdin and stdout (send
// with MSG_NOSIGNAL: a dead peer is an error, not a SIGPIPE), a pipe for its
// stderr, and its process group.
class Child {
 public:
  static Result<std::unique_ptr<Child>> Spawn(const std::string& command) {
    ASSIGN_OR_RETURN(base::FdPair io, base::MakeSocketPair());
    ASSIGN_OR_RETURN(base::FdPair err, base::MakePipe());
    base::SpawnOptions spawn;
    spawn.argv = {"/bin/sh", "-c", command};
    ASSIGN_OR_RETURN(spawn.fds[0], base::Duplicate(io.second));
    spawn.fds.emplace(1, std::move(io.second));
    spawn.fds.emplace(2, std::move(err.second));
    ASSIGN_OR_RETURN(base::SpawnedChild child, base::Spawn(std::move(spawn)));
    SetNonBlocking(io.first.get());
    SetNonBlocking(err.first.get());
    return std::unique_ptr<Child>(new Child(child.pid, std::move(io.first), std::move(err.first)));
  }

  ~Child() {
    // End of input asks the program to finish; a moment later its group is killed.
    shutdown(io_.get(), SHUT_WR);
    const auto until = Clock::now() + std::chrono::milliseconds(500);
    while (!Reaped() && Clock::now() < until) usleep(5000);
    Kill();
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  // Sends `line` and returns the next line the program writes, within `deadline`.
  Result<std::string> Exchange(const std::string& line, Clock::time_point deadline) {
    size_t sent = 0;
    for (;;) {
      if (size_t nl = in_.find('\n'); nl != std::string::npos && sent == line.size()) {
        std::string answer = in_.substr(0, nl);
        in_.erase(0, nl + 1);
        if (!answer.empty() && answer.back() == '\r') answer.pop_back();
        return answer;
      }
      if (in_.size() > kMaxAnswerBytes) return Status::Corruption("answered more than 64 MiB on one line");
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) return Status::DeadlineExceeded("");
      pollfd fds[2] = {{io_.get(), static_cast<short>(POLLIN | (sent < line.size() ? POLLOUT : 0)), 0},
                       {err_.get(), POLLIN, 0}};
      const int n = poll(fds, err_ ? 2 : 1, static_cast<int>(std::min<long long>(left, 1000)));
      if (n < 0 && errno != EINTR) return Status::IoError(std::string("poll: ") + std::strerror(errno));
      if (n <= 0) continue;
      if (err_ && (fds[1].revents & (POLLIN | POLLHUP)) != 0) DrainStderr();
      if (sent < line.size() && (fds[0].revents & POLLOUT) != 0) {
        const ssize_t w = send(io_.get(), line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
        if (w < 0 && errno != EAGAIN && errno != EINTR) return Ended();
        if (w > 0) sent += static_cast<size_t>(w);
      }
      if ((fds[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
        char buf[65536];
        const ssize_t r = recv(io_.get(), buf, sizeof buf, 0);
        if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) return Ended();
        if (r > 0) in_.append(buf, static_cast<size_t>(r));
      }
    }
  }

  // How the program ended, with the last line it wrote to stderr.
  Status Ended() {
    const auto until = Clock::now() + std::chrono::seconds(2);
    while (!Reaped() && Clock::now() < until) usleep(5000);
    DrainStderr();
    std::string how = "closed its output";
    if (status_) {
      how = WIFEXITED(*status_) ? "exited with code " + std::to_string(WEXITSTATUS(*status_))
                                : "was killed by signal " + std::to_string(WTERMSIG(*status_));
    }
    const std::string last = LastLine(stderr_);
    return Status::IoError(how + (last.empty() ? "" : " (stderr: " + last + ")"));
  }

  void Kill() {
    if (status_) return;
    kill(-pid_, SIGKILL);
    int st = 0;
    if (waitpid(pid_, &st, 0) == pid_) status_ = st;
  }

 private:
  Child(pid_t pid, base::UniqueFd io, base::UniqueFd err) : pid_(pid), io_(std::move(io)), err_(std::move(err)) {}

  bool Reaped() {
    if (status_) return true;
    int st = 0;
    if (waitpid(pid_, &st, WNOHANG) == pid_) status_ = st;
    return status_.has_value();
  }

  void DrainStderr() {
    char buf[4096];
    for (;;) {
      const ssize_t r = read(err_.get(), buf, sizeof buf);
      if (r <= 0) {
        if (r == 0) err_.reset();  // closed: poll no more
        return;
      }
      stderr_.append(buf, static_cast<size_t>(r));
      if (stderr_.size() > 2 * kStderrTail) stderr_.erase(0, stderr_.size() - kStderrTail);
    }
  }

  pid_t pid_;
  base::UniqueFd io_, err_;
  std::string in_, stderr_;
  std::optional<int> status_;
};

namespace {

// What `initialize` lists of one tool.
struct ListedTool {
  std::string name, revision;
  Value parameters;
  bool call = true, result = true;
  std::optional<Value> revisions{};  // {current, parameters, metaSteps}, checked when the presenter is made
};

Result<ListedTool> ParseTool(const Value& t, size_t i) {
  const std::string where = "tools[" + std::to_string(i) + "]";
  if (!t.is_object()) return Status::Corruption(where + " is not an object");
  ListedTool tool;
  const Value* name = t.Find("name");
  if (!name || !name->is_string() || name->as_string().empty()) {
    return Status::Corruption(where + ".name is not a non-empty string");
  }
  tool.name = name->as_string();
  const Value* parameters = t.Find("parameters");
  if (!parameters || !parameters->is_object()) return Status::Corruption(where + ".parameters is not an object");
  if (auto errors = schema::CheckRawSchema(*parameters); !errors.empty()) {
    return Status::Corruption("the parameters of " + tool.name + " are not a schema dsh supports: " + errors.front());
  }
  tool.parameters = *parameters;
  if (const Value* revision = t.Find("revision"); revision && !revision->is_null()) {
    if (!revision->is_string()) return Status::Corruption(where + ".revision is not a string");
    tool.revision = revision->as_string();
  }
  if (const Value* revisions = t.Find("revisions"); revisions && !revisions->is_null()) {
    if (!revisions->is_object()) return Status::Corruption(where + ".revisions is not an object");
    tool.revisions = *revisions;
  }
  for (auto [key, flag] : {std::pair{"presentCall", &tool.call}, std::pair{"presentResult", &tool.result}}) {
    if (const Value* v = t.Find(key); v && !v->is_null()) {
      if (!v->is_bool()) return Status::Corruption(where + "." + key + " is not a boolean");
      *flag = v->as_bool();
    }
  }
  return tool;
}

Result<std::vector<ListedTool>> ParseTools(const Value& result) {
  const Value* tools = result.Find("tools");
  if (!tools || !tools->is_array()) return Status::Corruption("the initialize result has no tools array");
  std::vector<ListedTool> out;
  std::set<std::string> names;
  for (size_t i = 0; i < tools->as_array().size(); ++i) {
    ASSIGN_OR_RETURN(ListedTool tool, ParseTool(tools->as_array()[i], i));
    if (!names.insert(tool.name).second) return Status::Corruption("the tool " + tool.name + " is listed twice");
    out.push_back(std::move(tool));
  }
  return out;
}

// The `result` of a JSON-RPC answer to request `id`; an error answer is the
// presenter throwing (FailedPrecondition), anything else malformed is Corruption.
Result<Value> ResultOf(const std::string& line, int64_t id) {
  auto parsed = json::Parse(line);
  if (!parsed.ok() || !parsed->is_object()) return Status::Corruption("answered a line that is not a JSON object: " + Shown(line));
  const Value* got = parsed->Find("id");
  if (!got || !got->is_number() || got->as_number() != static_cast<double>(id)) {
    return Status::Corruption("answered for another id (asked " + std::to_string(id) + "): " + Shown(line));
  }
  if (const Value* error = parsed->Find("error")) {
    const Value* message = error->is_object() ? error->Find("message") : nullptr;
    return Status::FailedPrecondition(message && message->is_string() ? message->as_string() : json::Serialize(*error));
  }
  const Value* result = parsed->Find("result");
  if (!result || !result->is_object()) return Status::Corruption("answered without a result object: " + Shown(line));
  return *result;
}

// A listed tool's revisions ({current, parameters: {"1": raw schema, ...},
// metaSteps: [from, ...]}) as a checked chain whose steps ask the program
// (`upcast {tool, from, kind, value}` → {value}).
template <class Ask>
Result<presenters::RevisionsPtr> ListedRevisions(const std::string& tool, const Value& listed, const Value& current_schema,
                                                 const Ask& ask) {
  const Value* current = listed.Find("current");
  const Value* parameters = listed.Find("parameters");
  if (!current || !current->is_number() || !parameters || !parameters->is_object()) {
    return Status::Corruption("the revisions of " + tool + " need current (a number) and parameters (an object)");
  }
  presenters::RevisionSpec spec;
  spec.current = static_cast<int>(current->as_number());
  for (const auto& [key, schema] : parameters->as_object()) {
    if (auto errors = schema::CheckRawSchema(schema); !errors.empty()) {
      return Status::Corruption("revision " + key + " of " + tool + " is not a schema dsh supports: " + errors.front());
    }
    spec.parameters[std::atoi(key.c_str())] = schema;
  }
  std::set<int> meta_steps;
  if (const Value* m = listed.Find("metaSteps"); m && m->is_array()) {
    for (const Value& from : m->as_array()) {
      if (from.is_number()) meta_steps.insert(static_cast<int>(from.as_number()));
    }
  }
  for (int from = 1; from < spec.current; ++from) {
    auto step = [ask, tool, from](const char* kind) {
      return [ask, tool, from, kind](const Value& value) {
        return *ask("upcast", Value::MakeObject({{"tool", tool},
                                                 {"from", Value(static_cast<int64_t>(from))},
                                                 {"kind", kind},
                                                 {"value", value}}),
                    "value");
      };
    };
    spec.steps.push_back({.from = from, .to = from + 1, .arguments = step("arguments"),
                          .meta = meta_steps.contains(from) ? presenters::UpcastFn(step("meta")) : nullptr});
  }
  return presenters::CompileRevisions(tool, std::move(spec), current_schema, /*dsl=*/false);
}

}  // namespace

// The program, started again after each failure, and the questions to it, one at a time.
class PresenterProcess {
 public:
  explicit PresenterProcess(ExternalPresentersOptions options) : options_(std::move(options)) {}

  // Starts the program and returns its tools.
  Result<std::vector<ListedTool>> Initialize() {
    std::lock_guard lock(mu_);
    return StartLocked();
  }

  // The view the program gives for `params` of `method`, or nullopt; throws
  // what went wrong (a presentation that throws is a `threw` finding).
  // `key` names the answer's member: "view" (an object or null), or
  // "value" (any JSON, required: an upcast step's output).
  std::optional<Value> Present(const char* method, Value params, const char* key = "view") {
    std::lock_guard lock(mu_);
    try {
      return PresentLocked(method, std::move(params), key);
    } catch (const std::exception& e) {
      ++thrown_;
      last_thrown_ = e.what();
      throw;
    }
  }

  std::pair<int, std::string> Thrown() const {
    std::lock_guard lock(mu_);
    return {thrown_, last_thrown_};
  }

 private:
  std::optional<Value> PresentLocked(const char* method, Value params, const char* key) {
    if (failures_ >= options_.max_failures) {
      throw std::runtime_error("presenters command given up after " + std::to_string(failures_) +
                               " failures in a row; the last: " + last_failure_);
    }
    auto view = AskLocked(method, std::move(params), key);
    if (view.ok()) {
      failures_ = 0;
      return *std::move(view);
    }
    if (view.status().code() == Status::Code::kFailedPrecondition) {  // the presenter threw: the program is fine
      failures_ = 0;
      throw std::runtime_error(view.status().message());
    }
    child_.reset();  // killed; the next question starts it again
    last_failure_ = std::string(method) + ": " + view.status().message();
    ++failures_;
    throw std::runtime_error("presenters command " + last_failure_);
  }

  Result<std::optional<Value>> AskLocked(const char* method, Value params, std::string_view key) {
    if (!child_) {
      auto tools = StartLocked();
      if (!tools.ok()) return Status::IoError("could not be started again: " + tools.status().message());
    }
    ASSIGN_OR_RETURN(Value result, Request(method, std::move(params)));
    if (key != "view") {
      const Value* value = result.Find(key);
      if (!value) return Status::Corruption("answered without a " + std::string(key));
      return std::optional<Value>(*value);
    }
    const Value* view = result.Find("view");
    if (!view || view->is_null()) return std::optional<Value>();
    if (!view->is_object()) return Status::Corruption("answered a view that is not an object: " + Shown(json::Serialize(*view)));
    return std::optional<Value>(*view);
  }

  Result<std::vector<ListedTool>> StartLocked() {
    ASSIGN_OR_RETURN(child_, Child::Spawn(options_.command));
    auto result = Request("initialize", Value::MakeObject({{"protocol", 1.0}}));
    if (!result.ok()) {
      child_.reset();
      return result.status().WithContext("initialize");
    }
    auto tools = ParseTools(*result);
    if (!tools.ok()) return tools.status();
    std::string listing;
    for (const ListedTool& t : *tools) {
      listing += t.name + '\n' + json::Serialize(t.parameters) + '\n' + t.revision + '\n' +
                 (t.revisions ? json::Serialize(*t.revisions) : "") + '\n';
    }
    if (listing_ && *listing_ != listing) {
      child_.reset();
      return Status::FailedPrecondition("initialize: the restarted program lists other tools than at its start");
    }
    listing_ = std::move(listing);
    return tools;
  }

  Result<Value> Request(const char* method, Value params) {
    const int64_t id = next_id_++;
    const std::string line =
        json::Serialize(Value::MakeObject({{"jsonrpc", "2.0"}, {"id", static_cast<double>(id)}, {"method", method},
                                           {"params", std::move(params)}})) + "\n";
    auto answer = child_->Exchange(line, Clock::now() + options_.timeout);
    if (!answer.ok()) {
      if (answer.status().code() == Status::Code::kDeadlineExceeded) {
        child_->Kill();
        return Status::DeadlineExceeded("did not answer within " + std::to_string(options_.timeout.count()) + " ms");
      }
      return answer.status();
    }
    return ResultOf(*answer, id);
  }

  const ExternalPresentersOptions options_;
  mutable std::mutex mu_;
  std::unique_ptr<Child> child_;
  std::optional<std::string> listing_;  // the tools as first listed, to hold a restart to
  int64_t next_id_ = 0;
  int failures_ = 0;  // in a row
  std::string last_failure_;
  int thrown_ = 0;  // presentations that threw, all told
  std::string last_thrown_;
};

ExternalPresenters::ExternalPresenters(std::shared_ptr<PresenterProcess> process, presenters::PresenterSet set)
    : process_(std::move(process)), set_(std::move(set)) {}

ExternalPresenters::~ExternalPresenters() = default;

int ExternalPresenters::failures() const { return process_->Thrown().first; }
std::string ExternalPresenters::last_failure() const { return process_->Thrown().second; }

Result<std::unique_ptr<ExternalPresenters>> ExternalPresenters::Start(ExternalPresentersOptions options) {
  const std::string command = options.command;
  auto process = std::make_shared<PresenterProcess>(std::move(options));
  auto tools = process->Initialize();
  if (!tools.ok()) {
    return Status::FailedPrecondition("presenters command '" + command + "': " + tools.status().message());
  }
  presenters::PresenterSet set;
  for (ListedTool& t : *tools) {
    presenters::PresentCallFn call;
    presenters::PresentResultFn result;
    // The process outlives the set's functions only through this object; a
    // weak pointer keeps a copied presenter from keeping the program alive.
    std::weak_ptr<PresenterProcess> weak = process;
    auto ask = [weak](const char* method, Value params, const char* key = "view") -> std::optional<Value> {
      auto p = weak.lock();
      if (!p) throw std::runtime_error("the presenters command has been stopped");
      return p->Present(method, std::move(params), key);
    };
    if (t.call) {
      call = [ask, name = t.name](const Value& args) {
        return ask("presentCall", Value::MakeObject({{"tool", name}, {"args", args}}));
      };
    }
    if (t.result) {
      result = [ask, name = t.name](const Value& args, const presenters::DurableResult& r) {
        Value durable = Value::MakeObject({{"content", Value(r.content)}, {"isError", r.is_error}});
        if (r.meta) durable.Set("meta", *r.meta);
        return ask("presentResult", Value::MakeObject({{"tool", name}, {"args", args}, {"result", std::move(durable)}}));
      };
    }
    presenters::RevisionsPtr revisions;
    if (t.revisions) {
      auto compiled = ListedRevisions(t.name, *t.revisions, t.parameters, ask);
      if (!compiled.ok()) {
        return Status::FailedPrecondition("presenters command '" + command + "': " + compiled.status().message());
      }
      revisions = std::move(compiled).value();
    }
    set.Add(presenters::MakeToolPresenter(t.name, std::move(t.parameters), std::move(call), std::move(result),
                                          t.revision.empty() ? "1" : t.revision, std::move(revisions)));
  }
  return std::unique_ptr<ExternalPresenters>(new ExternalPresenters(std::move(process), std::move(set)));
}

}  // namespace retrace::check
