#include "tools/jobs.h"

#include <cmath>

#include "engine/json/writer.h"
#include "engine/runtime/tool_error.h"

namespace retrace::tools {

using json::Value;

Value JobSnapshot::Public() const {
  Value v = Value::MakeObject({{"id", id}, {"kind", kind}, {"label", label}, {"status", status}});
  if (detail) v.Set("detail", *detail);
  v.Set("startedAt", started_at);
  if (finished_at) v.Set("finishedAt", *finished_at);
  return v;
}

std::string JobStatusLine(std::string_view status, const std::optional<std::string>& detail) {
  const std::string s(status);
  return detail ? "[status: " + s + ", " + *detail + "]" : "[status: " + s + "]";
}

JobRegistry::JobRegistry(std::function<int64_t()> now_ms, int max_concurrent_per_owner)
    : now_ms_(std::move(now_ms)), max_per_owner_(max_concurrent_per_owner) {}

JobRegistry::~JobRegistry() { Close(); }

void JobRegistry::Close() {
  std::vector<JobHooks> live;
  {
    std::lock_guard lock(mu_);
    closing_ = true;
    listeners_.clear();
    for (auto& [id, job] : jobs_) {
      if (job.snap.terminal()) continue;
      job.snap.reported = true;
      live.push_back(job.hooks);
    }
  }
  for (JobHooks& hooks : live) {
    try {
      if (hooks.cancel) hooks.cancel("registry closed");
    } catch (...) {
      // dsh force-fails a job whose cancel threw at teardown; we only need it gone.
    }
  }
  std::unique_lock lock(mu_);
  changed_.wait(lock, [this] {
    for (const auto& [id, job] : jobs_) {
      if (!job.snap.terminal()) return false;
    }
    return true;
  });
}

void JobRegistry::OnJobDone(DoneListener fn) {
  std::lock_guard lock(mu_);
  listeners_.push_back(std::move(fn));
}

Result<std::string> JobRegistry::Start(JobSpec spec) {
  if (!controller_attached_ || closing_) {
    return Status::FailedPrecondition(
        "background jobs unavailable: no job controller serves this agent (load @deepseek-ai/dsh-tool-jobs in its "
        "composition)");
  }
  if (spec.kind.empty()) return Status::InvalidArgument("invalid job kind: expected a non-empty string");
  if (spec.label.empty()) return Status::InvalidArgument("invalid job label: expected a non-empty string");
  if (spec.output_limit_bytes && *spec.output_limit_bytes <= 0) {
    return Status::InvalidArgument("invalid outputLimitBytes: expected a positive safe integer, got " +
                                   json::FormatNumber(static_cast<double>(*spec.output_limit_bytes)));
  }
  {
    std::lock_guard lock(mu_);
    int live = 0;
    for (const auto& [id, job] : jobs_) {
      if (job.snap.owner == spec.owner && !job.snap.terminal()) ++live;
    }
    if (live >= max_per_owner_) {
      return Status::FailedPrecondition("background job limit reached for this owner (limit: " +
                                        std::to_string(max_per_owner_) +
                                        "); use job_kill to stop an unneeded job, wait for it to finish, then retry");
    }
  }
  // The producer may settle before run() returns, before the job has an id:
  // the outcome waits here until the record exists.
  struct Pending {
    std::mutex mu;
    std::optional<std::string> id;
    std::optional<JobOutcome> early;
  };
  auto pending = std::make_shared<Pending>();
  JobSettleFn settle = [this, pending](JobOutcome outcome) {
    std::unique_lock lock(pending->mu);
    if (!pending->id) {
      if (!pending->early) pending->early = std::move(outcome);
      return;
    }
    const std::string id = *pending->id;
    lock.unlock();
    Settle(id, outcome);
  };
  JobHooks hooks = spec.run(settle);  // a throw propagates and burns no id
  std::string id;
  {
    std::lock_guard lock(mu_);
    id = spec.kind + "-" + std::to_string(++counters_[spec.kind]);
    Job job;
    job.snap = {.id = id,
                .kind = spec.kind,
                .label = spec.label,
                .output_limit_bytes = spec.output_limit_bytes,
                .owner = spec.owner,
                .status = "running",
                .detail = std::nullopt,
                .started_at = now_ms_(),
                .finished_at = std::nullopt,
                .reported = false};
    job.hooks = std::move(hooks);
    jobs_.emplace(id, std::move(job));
    order_.push_back(id);
  }
  std::optional<JobOutcome> early;
  {
    std::lock_guard lock(pending->mu);
    pending->id = id;
    early = std::move(pending->early);
  }
  if (early) Settle(id, *early);
  return id;
}

void JobRegistry::Settle(const std::string& id, const JobOutcome& outcome) {
  JobSnapshot snap;
  std::vector<DoneListener> listeners;
  {
    std::lock_guard lock(mu_);
    auto it = jobs_.find(id);
    if (it == jobs_.end() || it->second.snap.terminal()) return;  // first settlement wins
    Job& job = it->second;
    job.snap.status = outcome.status;
    job.snap.detail = outcome.detail;
    job.output = outcome.output;
    job.snap.finished_at = std::max(now_ms_(), job.snap.started_at);
    if (job.waiters > 0) job.snap.reported = true;
    snap = job.snap;
    if (!closing_) listeners = listeners_;
  }
  changed_.notify_all();
  for (const DoneListener& fn : listeners) {
    try {
      fn(snap);
    } catch (...) {
      // contained, as dsh contains each listener
    }
  }
}

Result<JobRegistry::Job*> JobRegistry::Access(const std::string& id, const std::optional<std::string>& caller) const {
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return Status::NotFound("unknown job " + id);
  const Job& job = it->second;
  if (job.snap.owner && job.snap.owner != caller) return Status::FailedPrecondition("job " + id + " belongs to another session");
  return const_cast<Job*>(&job);
}

Result<JobSnapshot> JobRegistry::Get(const std::string& id, const std::optional<std::string>& caller) const {
  std::lock_guard lock(mu_);
  ASSIGN_OR_RETURN(Job * job, Access(id, caller));
  return job->snap;
}

Result<JobRead> JobRegistry::Read(const std::string& id, const std::optional<std::string>& caller) {
  std::function<std::string()> reader;
  {
    std::lock_guard lock(mu_);
    ASSIGN_OR_RETURN(Job * job, Access(id, caller));
    reader = job->hooks.read_output;
    if (!reader) {  // a final-output job: nothing while live, the output once terminal (idempotent)
      if (job->snap.terminal()) job->snap.reported = true;
      return JobRead{job->snap.terminal() ? job->output.value_or("") : "", job->snap};
    }
  }
  std::string text = reader();  // outside the lock: the producer has its own
  std::lock_guard lock(mu_);
  ASSIGN_OR_RETURN(Job * job, Access(id, caller));
  if (job->snap.terminal()) job->snap.reported = true;
  return JobRead{std::move(text), job->snap};
}

Result<std::string> JobRegistry::Kill(const std::string& id, const std::optional<std::string>& caller,
                                      const std::string& reason) {
  std::function<void(const std::string&)> cancel;
  {
    std::lock_guard lock(mu_);
    ASSIGN_OR_RETURN(Job * job, Access(id, caller));
    if (job->snap.terminal()) {
      job->snap.reported = true;
      return std::string("already-finished");
    }
    cancel = job->hooks.cancel;
  }
  if (cancel) cancel(reason);  // may settle synchronously; a throw leaves the state unchanged
  {
    std::lock_guard lock(mu_);
    ASSIGN_OR_RETURN(Job * job, Access(id, caller));
    if (!job->snap.terminal()) job->snap.status = "stopping";
    job->snap.reported = true;
  }
  changed_.notify_all();
  return std::string("requested");
}

Result<JobSnapshot> JobRegistry::Wait(const std::string& id, double timeout_ms, const std::optional<std::string>& caller,
                                      const runtime::Signal& signal) {
  std::unique_lock lock(mu_);
  ASSIGN_OR_RETURN(Job * job, Access(id, caller));
  if (!std::isfinite(timeout_ms) || timeout_ms <= 0) {
    return Status::InvalidArgument("invalid wait timeout: expected a positive number of milliseconds, got " +
                                   (std::isfinite(timeout_ms) ? json::FormatNumber(timeout_ms) : std::string("null")));
  }
  if (job->snap.terminal()) {
    job->snap.reported = true;
    return job->snap;
  }
  if (signal.aborted()) return Status::FailedPrecondition("wait aborted");
  bool aborted = false;
  lock.unlock();
  runtime::Subscription sub = signal.OnAbort([this, &aborted](const std::string&) {
    {
      std::lock_guard inner(mu_);
      aborted = true;
    }
    changed_.notify_all();
  });
  lock.lock();
  ++job->waiters;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double, std::milli>(timeout_ms);
  changed_.wait_until(lock, std::chrono::time_point_cast<std::chrono::steady_clock::duration>(deadline),
                      [&] { return aborted || job->snap.terminal(); });
  --job->waiters;
  Result<JobSnapshot> result = job->snap;
  if (job->snap.terminal()) {
    job->snap.reported = true;
    result = job->snap;
  } else if (aborted) {
    result = Status::FailedPrecondition("wait aborted");
  }
  lock.unlock();
  sub.Reset();  // not under mu_: an abort racing in takes the signal's lock, then mu_
  return result;
}

std::vector<JobSnapshot> JobRegistry::List(const std::optional<std::string>& caller) const {
  std::lock_guard lock(mu_);
  std::vector<JobSnapshot> out;
  for (const std::string& id : order_) {
    const Job& job = jobs_.at(id);
    if (!job.snap.owner || job.snap.owner == caller) out.push_back(job.snap);
  }
  return out;
}

}  // namespace retrace::tools
