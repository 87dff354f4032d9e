// Subprocess (real processes: groups, caps, spill, escalation) and the
// background job runtime (ids, ownership, kill, wait, notices).
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <set>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/runtime/cancellation.h"
#include "tests/test_util.h"
#include "tools/job_tools.h"
#include "tools/jobs.h"
#include "tools/subprocess.h"

namespace retrace::tools {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using retrace::testing::ReadFile;
using retrace::testing::TempDir;

std::shared_ptr<Subprocess> Start(const std::string& script, SpawnSpec spec = {}) {
  spec.argv = {"bash", "-c", script};
  spec.base_env = {"PATH=/usr/local/bin:/usr/bin:/bin"};
  return std::move(Subprocess::Spawn(std::move(spec))).value();
}

// True while `pid` is a live (not zombie) process.
bool Alive(const std::string& pid) {
  const std::string stat = ReadFile("/proc/" + pid + "/stat");
  return !stat.empty() && stat.find(") Z") == std::string::npos;
}

TEST(SubprocessTest, ReportsTheExitCodeAndBothStreams) {
  auto proc = Start("printf out; printf err >&2; exit 7");
  ProcessOutcome o = proc->Wait();
  EXPECT_EQ(o.exit_code, 7);
  EXPECT_EQ(o.signal, std::nullopt);
  EXPECT_EQ(proc->FinalStdout().text, "out");
  EXPECT_EQ(proc->FinalStderr().text, "err");
  EXPECT_FALSE(proc->FinalStdout().truncated);
}

// The descriptors open now, by number (the listing's own is closed again, so checked afterwards).
std::set<int> OpenFds() {
  std::set<int> listed, open;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) listed.insert(std::stoi(e.path().filename()));
  for (int fd : listed) {
    if (fcntl(fd, F_GETFD) != -1) open.insert(fd);
  }
  return open;
}

// The descriptor limit under which exactly `spare` more can be opened. The
// limit bounds descriptor numbers, not their count, and a process may have
// inherited some with high numbers (a shell's, a test runner's).
rlim_t LimitLeaving(rlim_t spare, const std::set<int>& open) {
  rlim_t limit = 0, free = 0;
  while (free < spare || open.count(static_cast<int>(limit))) {
    if (!open.count(static_cast<int>(limit))) ++free;
    ++limit;
  }
  return limit;
}

// GCC names its sanitizers with macros; clang answers __has_feature.
#if defined(__has_feature)
#define RETRACE_CLANG_SANITIZER (__has_feature(address_sanitizer) || __has_feature(thread_sanitizer))
#else
#define RETRACE_CLANG_SANITIZER 0
#endif

TEST(SubprocessTest, ASpawnThatRunsOutOfDescriptorsClosesWhatItOpened) {
  // Spawn needs three pipes and /dev/null. With room for only some of them,
  // it must fail with a clear error and leave no descriptor open, at every
  // point; with room for all, it runs.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || RETRACE_CLANG_SANITIZER
  // UBSan's vptr check opens a pipe to probe memory: with the table full it
  // reports objects it cannot read as invalid (scripts/sanitize).
  GTEST_SKIP() << "the sanitizer runtime needs descriptors of its own; an exhausted table gives false reports";
#endif
  struct rlimit old {};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &old), 0);
  int failures = 0;
  for (rlim_t spare = 0; spare < 16; ++spare) {
    const std::set<int> before = OpenFds();
    struct rlimit low = old;
    low.rlim_cur = LimitLeaving(spare, before);
    ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &low), 0);
    SpawnSpec spec;
    spec.argv = {"true"};
    Result<std::shared_ptr<Subprocess>> proc = Subprocess::Spawn(std::move(spec));
    ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &old), 0);
    if (proc.ok()) {
      EXPECT_EQ((*proc)->Wait().exit_code, 0);
      break;
    }
    ++failures;
    EXPECT_THAT(proc.status().message(), HasSubstr("EMFILE"));  // names what ran out
    EXPECT_EQ(OpenFds(), before) << "descriptors left open with room for " << spare;
  }
  EXPECT_GE(failures, 6);  // the eventfd, each pipe end, /dev/null and the child's copies each failed once
}

TEST(SubprocessTest, ADeathBySignalIsNamed) {
  EXPECT_EQ(Start("kill -9 $$")->Wait().signal, "SIGKILL");
}

TEST(SubprocessTest, TerminateStopsTheWholeProcessGroup) {
  TempDir dir;
  auto proc = Start("sleep 30 & echo $! > " + dir / "child" + "; wait");
  while (ReadFile(dir / "child").empty()) std::this_thread::sleep_for(5ms);
  std::string child = ReadFile(dir / "child");
  child.pop_back();
  ASSERT_TRUE(Alive(child));
  proc->Terminate();
  EXPECT_EQ(proc->Wait().signal, "SIGTERM");
  for (int i = 0; i < 200 && Alive(child); ++i) std::this_thread::sleep_for(5ms);
  EXPECT_FALSE(Alive(child)) << "the background grandchild survived";
}

TEST(SubprocessTest, AProcessIgnoringSigtermIsKilledAfterTheGrace) {
  SpawnSpec spec;
  spec.grace = 200ms;
  auto proc = Start("trap '' TERM; echo ready; while :; do sleep 0.05; done", spec);
  while (proc->ReadStdout(0).text.empty()) std::this_thread::sleep_for(5ms);
  const auto start = std::chrono::steady_clock::now();
  proc->Terminate();
  EXPECT_EQ(proc->Wait().signal, "SIGKILL");
  EXPECT_GE(std::chrono::steady_clock::now() - start, 190ms);
}

TEST(SubprocessTest, OutputOverTheCapKeepsTheTailAndSpillsTheWhole) {
  TempDir dir;
  SpawnSpec spec;
  spec.stdout_max_bytes = 1000;
  spec.spill_max_bytes = 1 << 20;
  spec.spill_dir = dir.path();
  auto proc = Start("seq 1 20000", spec);
  proc->Wait();
  std::string all;
  for (int i = 1; i <= 20000; ++i) all += std::to_string(i) + "\n";
  CollectedOutput out = proc->FinalStdout();
  EXPECT_TRUE(out.truncated);
  EXPECT_EQ(out.text, all.substr(all.size() - 1000));
  ASSERT_TRUE(out.spill_path.has_value());
  EXPECT_EQ(ReadFile(*out.spill_path), all);
  EXPECT_EQ(std::filesystem::status(*out.spill_path).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  // A reader that fell behind the tail learns it lost output.
  EXPECT_TRUE(proc->ReadStdout(0).lossy);
  EXPECT_FALSE(proc->ReadStdout(all.size() - 10).lossy);
  EXPECT_EQ(proc->ReadStdout(all.size() - 6).text, "20000\n");
}

TEST(SubprocessTest, AStreamBeyondTheSpillCapKeepsNoFile) {
  TempDir dir;
  SpawnSpec spec;
  spec.stdout_max_bytes = 100;
  spec.spill_max_bytes = 5000;
  spec.spill_dir = dir.path();
  auto proc = Start("seq 1 20000", spec);
  proc->Wait();
  EXPECT_EQ(proc->FinalStdout().spill_path, std::nullopt);
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(SubprocessTest, ChildrenGetTheScrubbedEnvironmentPlusOverrides) {
  SpawnSpec spec;
  spec.argv = {"/usr/bin/env"};
  spec.base_env = {"KEEP=1", "OPENAI_API_KEY=x", "db_password=y", "GH_TOKEN=z", "DSH_HOME=/h", "TERM=xterm"};
  spec.env = {{"TERM", "dumb"}};
  auto proc = std::move(Subprocess::Spawn(spec)).value();
  proc->Wait();
  EXPECT_EQ(proc->FinalStdout().text, "KEEP=1\nTERM=dumb\n");
}

TEST(SubprocessTest, AProgramThatCannotStartIsAnError) {
  SpawnSpec spec;
  spec.argv = {"no-such-program-here"};
  Result<std::shared_ptr<Subprocess>> r = Subprocess::Spawn(spec);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "spawn no-such-program-here ENOENT");
  spec.argv = {"true"};
  spec.cwd = "/no/such/dir";
  EXPECT_FALSE(Subprocess::Spawn(spec).ok());
}

TEST(SubprocessTest, AGrandchildHoldingThePipeDoesNotHoldTheResult) {
  SpawnSpec spec;
  spec.grace = 200ms;
  const auto start = std::chrono::steady_clock::now();
  auto proc = Start("sleep 5 & echo started", spec);
  EXPECT_EQ(proc->Wait().exit_code, 0);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
  EXPECT_EQ(proc->FinalStdout().text, "started\n");
  proc->Terminate();  // reap the sleeper
}

// ---------------------------------------------------------------- jobs

// A producer whose work the test settles (`settle` is the latest job's); by
// default a cancel settles its job at once.
struct FakeWork {
  JobSettleFn settle;
  std::atomic<int> cancels{0};
  bool settle_on_cancel = true;
  std::string output = "partial";
};

JobSpec Spec(std::shared_ptr<FakeWork> work, std::optional<std::string> owner = std::nullopt,
             std::string kind = "bash") {
  return {.kind = std::move(kind),
          .label = "make build",
          .owner = std::move(owner),
          .output_limit_bytes = std::nullopt,
          .run = [work](JobSettleFn settle) {
            work->settle = settle;
            return JobHooks{.cancel =
                                [work, settle](const std::string&) {
                                  ++work->cancels;
                                  if (work->settle_on_cancel) settle({"killed", "killed before exit", std::nullopt});
                                },
                            .read_output = [work] { return std::exchange(work->output, ""); }};
          }};
}

class JobRegistryTest : public ::testing::Test {
 protected:
  JobRegistryTest() {
    jobs_.AttachController();
    jobs_.OnJobDone([this](const JobSnapshot& s) { done_.push_back(s); });
  }
  JobRegistry jobs_{[] { return int64_t{5}; }};
  std::vector<JobSnapshot> done_;
};

TEST(JobRegistryNoControllerTest, StartingWithoutTheJobToolsIsRefused) {
  JobRegistry jobs([] { return int64_t{0}; });
  EXPECT_THAT(jobs.Start(Spec(std::make_shared<FakeWork>())).status().message(),
              HasSubstr("no job controller serves this agent"));
}

TEST_F(JobRegistryTest, IdsCountPerKindAndAFailedStartBurnsNone) {
  auto w = std::make_shared<FakeWork>();
  EXPECT_EQ(*jobs_.Start(Spec(w)), "bash-1");
  JobSpec failing = Spec(w);
  failing.run = [](JobSettleFn) -> JobHooks { throw std::runtime_error("no"); };
  EXPECT_THROW((void)jobs_.Start(std::move(failing)), std::runtime_error);
  EXPECT_EQ(*jobs_.Start(Spec(w)), "bash-2");
  EXPECT_EQ(*jobs_.Start(Spec(w, std::nullopt, "agent")), "agent-1");
  EXPECT_EQ(jobs_.Start(JobSpec{.kind = "", .label = "x", .owner = {}, .output_limit_bytes = {}, .run = {}})
                .status()
                .message(),
            "invalid job kind: expected a non-empty string");
}

TEST_F(JobRegistryTest, AnOwnedJobIsOnlyVisibleToItsSession) {
  auto w = std::make_shared<FakeWork>();
  const std::string id = *jobs_.Start(Spec(w, "s1"));
  EXPECT_EQ(jobs_.Read(id, "s2").status().message(), "job bash-1 belongs to another session");
  EXPECT_EQ(jobs_.Kill(id, std::nullopt, "").status().message(), "job bash-1 belongs to another session");
  EXPECT_EQ(jobs_.Get("bash-7", "s1").status().message(), "unknown job bash-7");
  EXPECT_EQ(jobs_.List("s2").size(), 0u);
  EXPECT_EQ(jobs_.List("s1").size(), 1u);
  EXPECT_EQ(jobs_.Read(id, "s1")->text, "partial");
  EXPECT_EQ(jobs_.Read(id, "s1")->text, "");  // reads consume
}

TEST_F(JobRegistryTest, KillRequestsCancellationAndSettlementIsFirstWins) {
  auto w = std::make_shared<FakeWork>();
  w->settle_on_cancel = false;
  const std::string id = *jobs_.Start(Spec(w, "s1"));
  EXPECT_EQ(*jobs_.Kill(id, "s1", "no longer needed"), "requested");
  EXPECT_EQ(w->cancels, 1);
  EXPECT_EQ(jobs_.Get(id, "s1")->status, "stopping");
  w->settle({"killed", "signal: SIGTERM", std::nullopt});
  w->settle({"completed", "exit code: 0", std::nullopt});
  JobSnapshot s = *jobs_.Get(id, "s1");
  EXPECT_EQ(s.StatusLine(), "[status: killed, signal: SIGTERM]");
  EXPECT_EQ(s.finished_at, 5);
  EXPECT_EQ(*jobs_.Kill(id, "s1", ""), "already-finished");
  ASSERT_EQ(done_.size(), 1u);
  EXPECT_TRUE(done_[0].reported);  // killed by the model: no completion notice is owed
}

TEST_F(JobRegistryTest, AnUnreportedFinishedJobOwesANotice) {
  auto w = std::make_shared<FakeWork>();
  (void)jobs_.Start(Spec(w, "s1"));
  w->settle({"completed", "exit code: 0", std::nullopt});
  ASSERT_EQ(done_.size(), 1u);
  EXPECT_FALSE(done_[0].reported);
  EXPECT_EQ(CompletionNotice(done_[0]),
            "background job bash-1 (bash: make build) finished [status: completed, exit code: 0]. Read its output with "
            "job_output.");
  EXPECT_EQ(CompletionNoticeSource(done_[0]).Find("summary")->as_string(),
            "bash make build [status: completed, exit code: 0]");
}

TEST_F(JobRegistryTest, WaitTimesOutWithTheLiveJobAndStopsOnAbort) {
  auto w = std::make_shared<FakeWork>();
  const std::string id = *jobs_.Start(Spec(w));
  EXPECT_EQ(jobs_.Wait(id, 30, std::nullopt, runtime::Signal())->status, "running");
  EXPECT_EQ(jobs_.Wait(id, 0, std::nullopt, runtime::Signal()).status().message(),
            "invalid wait timeout: expected a positive number of milliseconds, got 0");
  runtime::AbortController abort;
  std::thread aborter([&] {
    std::this_thread::sleep_for(20ms);
    abort.Abort();
  });
  EXPECT_EQ(jobs_.Wait(id, 10000, std::nullopt, abort.signal()).status().message(), "wait aborted");
  aborter.join();
  std::thread finisher([&] {
    std::this_thread::sleep_for(20ms);
    w->settle({"completed", "exit code: 0", std::nullopt});
  });
  JobSnapshot s = *jobs_.Wait(id, 10000, std::nullopt, runtime::Signal());
  finisher.join();
  EXPECT_EQ(s.status, "completed");
  EXPECT_TRUE(s.reported);  // a waiter saw it: no notice owed
}

TEST_F(JobRegistryTest, TheOwnersCapacityIsBounded) {
  auto w = std::make_shared<FakeWork>();
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(jobs_.Start(Spec(w, "s1")).ok());
  EXPECT_EQ(jobs_.Start(Spec(w, "s1")).status().message(),
            "background job limit reached for this owner (limit: 10); use job_kill to stop an unneeded job, wait for "
            "it to finish, then retry");
  EXPECT_TRUE(jobs_.Start(Spec(w, "s2")).ok());  // another owner has its own bucket
}

TEST_F(JobRegistryTest, ClosingCancelsLiveJobsAndWaitsForThem) {
  auto w = std::make_shared<FakeWork>();
  w->settle_on_cancel = false;
  (void)jobs_.Start(Spec(w, "s1"));
  std::thread settler([&] {
    while (w->cancels == 0) std::this_thread::sleep_for(1ms);
    w->settle({"killed", "killed before exit", std::nullopt});
  });
  jobs_.Close();
  settler.join();
  EXPECT_TRUE(done_.empty());  // teardown delivers no notices
  EXPECT_FALSE(jobs_.Start(Spec(w)).ok());
}

}  // namespace
}  // namespace retrace::tools
