// Subprocess: one real child process in its own process group, with both
// output streams collected into bounded in-memory tails (dsh-subprocess-local's
// collect mode), the over-cap head spilled to a private file, and SIGTERM →
// SIGKILL escalation of the whole group.
//
// A reader thread owns the pipes and the reaping: it polls stdout, stderr and
// a pidfd, and settles once both pipes closed after exit — or `grace` after
// exit when a grandchild keeps a pipe open (dsh's pipe-drain timer). Every
// method is thread-safe; `on_done` runs on the reader thread after settlement.
//
// POSIX calls instead of Boost.Process: the tools need a process *group*
// (so `bash -c 'sleep 9 & wait'` dies whole), SIGTERM with a timed SIGKILL,
// and pidfd-based reaping, none of which Boost 1.74's process v1 expresses.
#ifndef RETRACE_TOOLS_SUBPROCESS_H_
#define RETRACE_TOOLS_SUBPROCESS_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <retrace/engine/base/status.h>
#include <retrace/engine/base/unique_fd.h>

namespace retrace::tools {

// What a stream retained at the end.
struct CollectedOutput {
  std::string text;
  bool truncated = false;                 // bytes were dropped from memory
  std::optional<std::string> spill_path;  // the complete stream, when it was spilled
};

// An incremental read in whole-stream byte offsets.
struct StreamRead {
  std::string text;
  uint64_t next_offset = 0;
  bool lossy = false;  // the requested offset slid out of the in-memory tail
  std::optional<std::string> spill_path;
};

// One stream's bounded tail (dsh's OutputCollector). On the first overflow of
// `max_bytes` the whole stream so far goes to a spill file (0600, exclusive
// create) and every later chunk follows, until the stream passes
// `max_spill_bytes`, when the file is deleted. Not thread-safe by itself.
class OutputCollector {
 public:
  OutputCollector(size_t max_bytes, std::optional<uint64_t> max_spill_bytes, std::string spill_dir, std::string label);
  ~OutputCollector();
  OutputCollector(const OutputCollector&) = delete;
  OutputCollector& operator=(const OutputCollector&) = delete;

  void Push(std::string_view chunk);
  StreamRead ReadFrom(uint64_t from) const;
  void Seal();  // closes the spill file (idempotent)
  CollectedOutput Final() const;

 private:
  void Spill(std::string_view chunk);
  void DiscardSpill();

  size_t max_bytes_;
  std::optional<uint64_t> max_spill_bytes_;
  std::string spill_dir_, label_;
  std::string tail_;     // the last ≤ max_bytes_ bytes
  uint64_t total_ = 0;   // bytes ever pushed
  bool dropped_ = false;
  base::UniqueFd spill_fd_;
  std::optional<std::string> spill_path_;
  bool spill_disabled_;
};

struct SpawnSpec {
  std::vector<std::string> argv;  // argv[0] is looked up on PATH
  std::string cwd;
  // The child's environment: `base_env` ("NAME=value" entries, the host's
  // own) after dsh's credential scrub (names matching KEY|PASSWORD|SECRET|
  // TOKEN, and DSH_*, are dropped), then `env` over it.
  std::vector<std::string> base_env;
  std::map<std::string, std::string> env;
  size_t stdout_max_bytes = 64000;
  size_t stderr_max_bytes = 64000;
  std::optional<uint64_t> spill_max_bytes;  // nullopt: tails only, no spill files
  std::string spill_dir;                    // where spill files go (must exist)
  std::chrono::milliseconds grace{3000};    // SIGTERM → SIGKILL, and exit → pipe-drain
};

struct ProcessOutcome {
  std::optional<int> exit_code;       // nullopt when killed by a signal
  std::optional<std::string> signal;  // "SIGTERM", …
};

class Subprocess {
 public:
  using DoneFn = std::function<void(const ProcessOutcome&)>;

  // Starts the process. Fails when it cannot start (no such program, a
  // missing cwd), with the OS's reason, as Node's spawn 'error' does.
  static Result<std::shared_ptr<Subprocess>> Spawn(SpawnSpec spec, DoneFn on_done = nullptr);
  ~Subprocess();

  // SIGTERM to the group now, SIGKILL `grace` later if it still lives.
  // Idempotent; a no-op once the group is gone.
  void Terminate();

  // Blocks until settled; returns the outcome.
  ProcessOutcome Wait();
  // Waits up to `d`; nullopt if still running.
  std::optional<ProcessOutcome> WaitFor(std::chrono::milliseconds d);
  bool settled() const;

  StreamRead ReadStdout(uint64_t from) const;
  StreamRead ReadStderr(uint64_t from) const;
  CollectedOutput FinalStdout() const;
  CollectedOutput FinalStderr() const;

 private:
  Subprocess(SpawnSpec spec, DoneFn on_done);
  void ReaderLoop(base::UniqueFd out_fd, base::UniqueFd err_fd, base::UniqueFd pid_fd);
  bool GroupAlive() const;

  SpawnSpec spec_;
  DoneFn on_done_;
  int pid_ = -1;
  mutable std::mutex mu_;
  std::condition_variable settled_cv_;
  OutputCollector stdout_, stderr_;
  std::optional<ProcessOutcome> outcome_;
  std::optional<std::chrono::steady_clock::time_point> kill_at_;  // pending SIGKILL
  base::UniqueFd wake_fd_;  // eventfd: wakes the reader when Terminate() schedules a kill
  std::thread reader_;
};

// glibc's abbreviation with the SIG prefix ("SIGKILL"), or "SIG<n>".
std::string SignalName(int sig);

}  // namespace retrace::tools

#endif  // RETRACE_TOOLS_SUBPROCESS_H_
