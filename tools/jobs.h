// JobRegistry: the background job runtime (dsh-reference-tools §4; dsh-jobs
// with dsh-jobs-local's behaviour). A producer (bash with run_in_background)
// starts a job with hooks; the job tools read, wait on, list and kill it.
//
// - Ids are `<kind>-<n>`, one counter per kind, advanced only after the
//   producer's run() returned, never reused.
// - Status: running → (stopping) → exactly one of completed | killed | failed;
//   settlement is first-wins, from any thread.
// - Owner isolation: an owned job (owner = the caller's session id) is open
//   only to that session; unowned jobs are open to all and never notify.
// - At settlement, listeners get the snapshot (the completion notice), unless
//   the registry is closing.
// Thread-safe. Destruction cancels every live job and waits for it to settle.
#ifndef RETRACE_TOOLS_JOBS_H_
#define RETRACE_TOOLS_JOBS_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <retrace/engine/base/status.h>
#include <retrace/engine/json/value.h>
#include <retrace/engine/runtime/cancellation.h>

namespace retrace::tools {

// `[status: <status>, <detail>]` or `[status: <status>]`.
std::string JobStatusLine(std::string_view status, const std::optional<std::string>& detail);

struct JobSnapshot {
  std::string id, kind, label;
  std::optional<int64_t> output_limit_bytes;
  std::optional<std::string> owner;  // the owning session id
  std::string status;                // running | stopping | completed | killed | failed
  std::optional<std::string> detail;
  int64_t started_at = 0;
  std::optional<int64_t> finished_at;
  bool reported = false;

  bool terminal() const { return status != "running" && status != "stopping"; }
  // dsh's PublicJob: {id, kind, label, status, detail?, startedAt, finishedAt?}.
  json::Value Public() const;
  std::string StatusLine() const { return JobStatusLine(status, detail); }
};

struct JobOutcome {
  std::string status;  // completed | killed | failed
  std::optional<std::string> detail;
  std::optional<std::string> output;  // the result of a final-output job
};

// What a producer hands back from run().
struct JobHooks {
  // Synchronous and idempotent; must eventually lead to settle(). May throw.
  std::function<void(const std::string& reason)> cancel;
  // A consuming delta read; empty for a final-output-only job.
  std::function<std::string()> read_output;
};

using JobSettleFn = std::function<void(JobOutcome)>;

struct JobSpec {
  std::string kind, label;
  std::optional<std::string> owner;
  std::optional<int64_t> output_limit_bytes;
  // Starts the work; calls settle exactly once when the work has stopped
  // (possibly before returning). A throw fails start() and burns no id.
  std::function<JobHooks(JobSettleFn settle)> run;
};

struct JobRead {
  std::string text;
  JobSnapshot job;
};

class JobRegistry {
 public:
  using DoneListener = std::function<void(const JobSnapshot&)>;

  JobRegistry(std::function<int64_t()> now_ms, int max_concurrent_per_owner = 10);
  ~JobRegistry();
  JobRegistry(const JobRegistry&) = delete;
  JobRegistry& operator=(const JobRegistry&) = delete;

  // Teardown: listeners are dropped, every live job is cancelled (marked
  // reported, so no notice) and awaited. Idempotent; the destructor calls it.
  void Close();

  // The job tools attach a controller; without one, start() refuses.
  void AttachController() { controller_attached_ = true; }
  void OnJobDone(DoneListener fn);

  // Errors carry dsh's texts (InvalidArgument / FailedPrecondition).
  Result<std::string> Start(JobSpec spec);
  Result<JobSnapshot> Get(const std::string& id, const std::optional<std::string>& caller) const;
  Result<JobRead> Read(const std::string& id, const std::optional<std::string>& caller);
  // "requested" or "already-finished".
  Result<std::string> Kill(const std::string& id, const std::optional<std::string>& caller, const std::string& reason);
  // Waits for settlement up to timeout_ms; a timeout returns the live snapshot.
  Result<JobSnapshot> Wait(const std::string& id, double timeout_ms, const std::optional<std::string>& caller,
                           const runtime::Signal& signal);
  std::vector<JobSnapshot> List(const std::optional<std::string>& caller) const;

 private:
  struct Job {
    JobSnapshot snap;
    JobHooks hooks;
    std::optional<std::string> output;
    int waiters = 0;
  };
  Result<Job*> Access(const std::string& id, const std::optional<std::string>& caller) const;
  void Settle(const std::string& id, const JobOutcome& outcome);

  std::function<int64_t()> now_ms_;
  int max_per_owner_;
  bool controller_attached_ = false;
  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::vector<std::string> order_;  // registration order
  std::map<std::string, Job> jobs_;
  std::map<std::string, int64_t> counters_;
  std::vector<DoneListener> listeners_;
  bool closing_ = false;
};

}  // namespace retrace::tools

#endif  // RETRACE_TOOLS_JOBS_H_
