// A real full disk: a small tmpfs that an import, a `retrace run` recording
// and a `retrace mcp` session fill up. Each fails with a clear error and exit
// code, nothing stored before is lost, the database passes integrity_check,
// and no tool body runs whose `tool/call` could not be made durable: every
// file the `write` tool made is named by a stored call. Mounting needs root;
// other users skip with the reason.
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/json/parser.h"
#include "store/sqlite.h"
#include "tests/test_util.h"

namespace retrace::cli {
namespace {

using ::testing::HasSubstr;
using retrace::testing::FixturePath;
using retrace::testing::Shell;
using retrace::testing::ShellOutcome;
using retrace::testing::TempDir;
using retrace::testing::WriteFile;

const std::string kRetrace = std::string(RETRACE_BUILD_DIR) + "/cli/retrace";
constexpr int kDiskBytes = 3 << 20;         // the tmpfs: 3 MiB
constexpr int kFileBytes = 96 << 10;        // each file the model writes
constexpr int kWrites = 48;                 // 48 × 96 KiB: the files alone need 4.5 MiB

class FullDiskTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "mounting a small tmpfs needs root; the full-disk tests did not run";
    std::filesystem::create_directories(Disk());
    const std::string size = "size=" + std::to_string(kDiskBytes);
    if (mount("tmpfs", Disk().c_str(), "tmpfs", MS_NOSUID | MS_NODEV, size.c_str()) != 0) {
      GTEST_SKIP() << "cannot mount a tmpfs at " << Disk() << ": " << std::strerror(errno)
                   << "; the full-disk tests did not run";
    }
    mounted_ = true;
    std::filesystem::create_directories(Workspace());
  }
  void TearDown() override {
    if (mounted_) umount2(Disk().c_str(), MNT_DETACH);
  }
  std::string Disk() const { return dir_ / "disk"; }
  std::string Db() const { return Disk() + "/t.db"; }
  std::string Workspace() const { return Disk() + "/ws"; }
  ShellOutcome Retrace(const std::string& args) const {
    return Shell("cd " + Workspace() + " && " + kRetrace + " --db " + Db() + " " + args + " 2>&1 </dev/null");
  }
  // The database's own verdict, over a connection of the test's own.
  std::string IntegrityCheck() const {
    auto db = store::Db::Open(Db(), store::Db::Mode::kReadOnly);
    if (!db.ok()) return db.status().message();
    auto st = store::Statement::Prepare(*db, "PRAGMA integrity_check");
    if (!st.ok()) return st.status().message();
    auto row = st->Step();
    if (!row.ok() || !*row) return "no answer";
    return std::string(st->Text(0));
  }
  // The files the session's stored tool/call events ask to write.
  std::set<std::string> StoredWritePaths(const std::string& session) const {
    std::set<std::string> paths;
    const ShellOutcome events = Retrace("events " + session + " --type tool/call --json");
    for (const std::string& line : retrace::testing::Lines(events.out)) {
      Result<json::Value> event = json::Parse(line);
      if (!event.ok()) continue;
      const json::Value* args = event->Find("data") ? event->Find("data")->Find("arguments") : nullptr;
      Result<json::Value> parsed = args && args->is_string() ? json::Parse(args->as_string()) : Status::NotFound("");
      const json::Value* path = parsed.ok() ? parsed->Find("file_path") : nullptr;
      if (path && path->is_string()) paths.insert(path->as_string());
    }
    return paths;
  }
  // Every file the write tool made is named by a stored call; some ran, not all.
  void ExpectEveryWrittenFileHasItsCall(const std::string& session) const {
    const std::set<std::string> calls = StoredWritePaths(session);
    int files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(Workspace())) {
      const std::string name = entry.path().filename().string();
      ++files;
      EXPECT_TRUE(calls.count(name)) << name << " exists, but no stored call asked for it";
    }
    EXPECT_GT(files, 0) << "no write ran at all: the disk filled too early to test anything";
    EXPECT_LT(files, kWrites) << "every write ran: the disk never filled";
  }
  void FreeTheWorkspace() const {
    for (const auto& entry : std::filesystem::directory_iterator(Workspace())) std::filesystem::remove(entry.path());
  }
  // The write of w<i>.txt, kFileBytes long.
  static std::string WriteArguments(int i) {
    return R"({"file_path":"w)" + std::to_string(i) + R"(.txt","content":")" + std::string(kFileBytes, 'x') + R"("})";
  }

  TempDir dir_;
  bool mounted_ = false;
};

TEST_F(FullDiskTest, AnImportThatFillsTheDiskFailsClearlyAndLosesNothing) {
  ASSERT_EQ(Retrace("import " + FixturePath("c01-fs-read.jsonl")).code, 0);
  const std::string before = Retrace("replay c01-fs-read --format text").out;
  // A log four times the disk (outside it): the c04 fixture's events over and over.
  const std::string big = dir_ / "big.jsonl";
  const std::string text = retrace::testing::ReadFile(FixturePath("c04-bash-jobs.jsonl"));
  WriteFile(big, retrace::testing::RepeatedLog(text, static_cast<int>(4 * kDiskBytes / text.size()) + 1));

  const ShellOutcome full = Retrace("import " + big);
  EXPECT_EQ(full.code, 1) << full.out;
  EXPECT_THAT(full.out, HasSubstr("full")) << full.out;
  EXPECT_THAT(full.out, HasSubstr(Db())) << "the error names the database";

  EXPECT_EQ(IntegrityCheck(), "ok");
  const ShellOutcome sessions = Retrace("sessions");
  EXPECT_THAT(sessions.out, HasSubstr("c01-fs-read"));
  EXPECT_THAT(sessions.out, ::testing::Not(HasSubstr("c04-bash-jobs"))) << "nothing half-imported";
  EXPECT_EQ(Retrace("replay c01-fs-read --format text").out, before);
  // Once there is room again (the failed import's space is the database's to reuse), imports work.
  const ShellOutcome again = Retrace("import " + FixturePath("c06-errors-policy.jsonl"));
  EXPECT_EQ(again.code, 0) << again.out;
}

TEST_F(FullDiskTest, ARecordingStopsBeforeRunningACallThatCouldNotBeStored) {
  ASSERT_EQ(Retrace("import " + FixturePath("c01-fs-read.jsonl")).code, 0);
  std::string script = R"({"op":"prompt","text":"write many notes"})" "\n";
  for (int i = 0; i < kWrites; ++i) {
    script += R"({"op":"assistant","toolCalls":[{"id":"w)" + std::to_string(i) + R"(","name":"write","arguments":)" +
                                     WriteArguments(i) + "}]}\n";
  }
  WriteFile(dir_ / "notes.jsonl", script);

  const ShellOutcome run = Retrace("run " + dir_ / "notes.jsonl" + " --session notes");
  EXPECT_NE(run.code, 0) << run.out;
  EXPECT_THAT(run.out, HasSubstr("full")) << run.out;
  ExpectEveryWrittenFileHasItsCall("notes");
  EXPECT_EQ(IntegrityCheck(), "ok");
  EXPECT_THAT(Retrace("sessions").out, HasSubstr("c01-fs-read"));
  // The turn the failure stopped is ended as dsh ends one a non-LLM error stopped.
  EXPECT_THAT(Retrace("events notes --type turn/end --json").out, HasSubstr(R"("reason":{"kind":"error")"));

  // With room again, the session opens (its open call closed as dsh does) and replays.
  FreeTheWorkspace();
  const ShellOutcome repaired = Retrace("repair notes");
  EXPECT_EQ(repaired.code, 0) << repaired.out;
  EXPECT_EQ(Retrace("replay notes --format text").code, 0);
  const ShellOutcome check = Retrace("check " + Db());
  EXPECT_EQ(check.code, 0) << check.out;
  EXPECT_EQ(IntegrityCheck(), "ok");
}

TEST_F(FullDiskTest, AnMcpSessionAnswersErrorsOnceTheDiskIsFullAndRunsNothingUnrecorded) {
  std::string frames =
      R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"full-disk","version":"1"}}})"
      "\n" R"({"jsonrpc":"2.0","method":"notifications/initialized"})" "\n";
  for (int i = 0; i < kWrites; ++i) {
    frames += R"({"jsonrpc":"2.0","id":)" + std::to_string(i + 1) +
              R"(,"method":"tools/call","params":{"name":"write","arguments":)" + WriteArguments(i) + "}}\n";
  }
  frames += R"({"jsonrpc":"2.0","id":999,"method":"ping"})" "\n";
  WriteFile(dir_ / "in.jsonl", frames);
  const ShellOutcome served = Shell("cd " + Workspace() + " && " + kRetrace + " --db " + Db() +
                                    " mcp --workspace " + Workspace() + " --session mcp-notes --max-parallel 1 <" +
                                    dir_ / "in.jsonl" + " 2>" + dir_ / "err.txt");
  // The server kept serving: the ping after the failures is answered.
  EXPECT_THAT(served.out, HasSubstr(R"("id":999,"result":{})")) << served.out.substr(0, 2000);
  EXPECT_THAT(served.out, HasSubstr("full")) << "a failed call says the disk is full";
  ExpectEveryWrittenFileHasItsCall("mcp-notes");
  EXPECT_EQ(IntegrityCheck(), "ok");
}

}  // namespace
}  // namespace retrace::cli
