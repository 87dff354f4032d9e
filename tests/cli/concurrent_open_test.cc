// Many processes opening one database that does not exist yet: creation and
// migration happen once, the others wait and proceed, and every session each
// of them writes is stored.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "tests/test_util.h"

namespace retrace::cli {
namespace {

using ::testing::HasSubstr;
using retrace::testing::FixturePath;
using retrace::testing::Shell;
using retrace::testing::TempDir;

// A one-turn script: the model writes a file and ends the turn.
void WriteScript(const std::string& path) {
  std::ofstream(path) << R"({"op":"prompt","text":"write a note"})" << "\n"
                      << R"({"op":"assistant","toolCalls":[{"id":"w1","name":"write","arguments":{"file_path":"note.txt","content":"hi\n"}}]})"
                      << "\n" << R"({"op":"assistant","text":"done"})" << "\n";
}

// Runs `retrace --db <db> <command>` for each command at once (each child
// blocks opening a FIFO until the parent opens it for writing) and returns
// each one's exit code and output.
std::vector<std::pair<int, std::string>> RunAtOnce(const TempDir& dir, const std::string& db,
                                                   const std::vector<std::string>& commands) {
  const std::string retrace = std::string(RETRACE_BUILD_DIR) + "/cli/retrace";
  std::string script = "cd " + dir.path() + " || exit 1\nrm -f go\nmkfifo go || exit 1\nmkdir -p ws\n";
  for (size_t i = 0; i < commands.size(); ++i) {
    script += "( exec 3<go; cd ws; " + retrace + " --db " + db + " " + commands[i] + " > ../out" +
              std::to_string(i) + " 2>&1; echo $? > ../rc" + std::to_string(i) + " ) &\n";
  }
  script += "sleep 0.3\nexec 4>go\nexec 4>&-\nwait\n";
  retrace::testing::WriteFile(dir / "race.sh", script);
  std::vector<std::pair<int, std::string>> out;
  if (Shell("bash " + dir / "race.sh").code != 0) return out;
  for (size_t i = 0; i < commands.size(); ++i) {
    const std::string rc = retrace::testing::ReadFile(dir / ("rc" + std::to_string(i)));
    out.emplace_back(rc.empty() ? -1 : std::stoi(rc), retrace::testing::ReadFile(dir / ("out" + std::to_string(i))));
  }
  return out;
}

TEST(ConcurrentOpenTest, TenProcessesOnABrandNewDatabaseAllSucceedAndEverySessionIsStored) {
  const std::string retrace = std::string(RETRACE_BUILD_DIR) + "/cli/retrace";
  for (int round = 0; round < 5; ++round) {
    TempDir dir;
    const std::string db = dir / "fresh.db";
    WriteScript(dir / "note.jsonl");
    // Imports and recordings, released at once.
    const std::vector<std::string> commands = {
        "import " + FixturePath("c01-fs-read.jsonl"),
        "import " + FixturePath("c04-bash-jobs.jsonl"),
        "import " + FixturePath("c06-errors-policy.jsonl"),
        "import " + FixturePath("s1-tools-inject.jsonl"),
        "run " + dir / "note.jsonl" + " --session run-a",
        "run " + dir / "note.jsonl" + " --session run-b",
        "run " + dir / "note.jsonl" + " --session run-c",
        "run " + dir / "note.jsonl" + " --session run-d",
        "import " + FixturePath("s2-interrupted-tool.crashed.jsonl"),
        "run " + dir / "note.jsonl" + " --session run-e",
    };
    const auto outcomes = RunAtOnce(dir, db, commands);
    ASSERT_EQ(outcomes.size(), commands.size());
    for (size_t i = 0; i < commands.size(); ++i) {
      EXPECT_EQ(outcomes[i].first, 0) << "round " << round << ": `retrace " << commands[i] << "` failed:\n"
                                      << outcomes[i].second;
    }
    const std::string listed = Shell(retrace + " --db " + db + " sessions 2>&1").out;
    for (const char* id : {"c01-fs-read", "c04-bash-jobs", "c06-errors-policy", "s1-tools-inject",
                           "s2-interrupted-tool", "run-a", "run-b", "run-c", "run-d", "run-e"}) {
      EXPECT_THAT(listed, HasSubstr(id)) << "round " << round;
    }
  }
}

TEST(ConcurrentOpenTest, RunsContinuingOneSessionAtOnceAreWritersInTurnNotCreators) {
  // `--session` creates the session or continues it. Started together, one
  // creates it; the others continue it, or, while it is being written, are
  // told that another writer holds it. None is told that it "already exists".
  TempDir dir;
  const std::string db = dir / "s.db";
  WriteScript(dir / "note.jsonl");
  for (int round = 0; round < 3; ++round) {
    const std::string run = "run " + dir / "note.jsonl" + " --session same-" + std::to_string(round);
    const auto outcomes = RunAtOnce(dir, db, {run, run, run});
    ASSERT_EQ(outcomes.size(), 3u);
    int succeeded = 0;
    for (const auto& [code, out] : outcomes) {
      EXPECT_THAT(out, ::testing::Not(HasSubstr("already exists"))) << out;
      EXPECT_TRUE(code == 0 || code == 4) << "exit " << code << ": " << out;
      if (code == 4) {
        EXPECT_THAT(out, HasSubstr("another writer")) << out;
      }
      succeeded += code == 0;
    }
    EXPECT_GE(succeeded, 1);
  }
}

TEST(ConcurrentLoadTest, WritersAndReadersAtOnceAllSucceedAndEveryEventIsStored) {
  // Four writer processes each record ten sessions in turn (imports and
  // `retrace run`), while two readers run every audit report and a search in
  // a loop: nobody fails (busy included), and every session is stored whole.
  TempDir dir;
  const std::string retrace = std::string(RETRACE_BUILD_DIR) + "/cli/retrace --db " + dir / "load.db";
  WriteScript(dir / "note.jsonl");
  // The database exists before the readers start (a reader of none is told so).
  std::string script = "cd " + dir.path() + " || exit 1\nmkdir -p ws\nfail=0\n" + retrace + " import " +
                       FixturePath("c01-fs-read.jsonl") + " >/dev/null || exit 1\n";
  for (int w = 0; w < 4; ++w) {
    script += "( cd ws; for i in 0 1 2 3 4 5 6 7 8 9; do " + retrace + " run ../note.jsonl --session w" +
              std::to_string(w) + "-$i >/dev/null 2>>../err || exit 1; done ) & writers=\"$writers $!\"\n";
  }
  script += "( for f in c04-bash-jobs c06-errors-policy s1-tools-inject; do " + retrace + " import " +
            RETRACE_FIXTURE_DIR + "/$f.jsonl >/dev/null 2>>err || exit 1; done ) & writers=\"$writers $!\"\n";
  for (int r = 0; r < 2; ++r) {
    script += "( while [ ! -e done ]; do for report in tools failures injections sessions turns; do " + retrace +
              " audit $report >/dev/null 2>>err || exit 1; done; " + retrace +
              " search write --limit 100 >/dev/null 2>>err || exit 1; done ) & readers=\"$readers $!\"\n";
  }
  script += "for p in $writers; do wait $p || fail=1; done\ntouch done\n"
            "for p in $readers; do wait $p || fail=1; done\nexit $fail\n";
  retrace::testing::WriteFile(dir / "load.sh", script);
  const auto ran = Shell("bash " + dir / "load.sh");
  EXPECT_EQ(ran.code, 0) << retrace::testing::ReadFile(dir / "err");
  const std::string listed = Shell(retrace + " sessions 2>&1").out;
  auto events = [&](const std::string& id) { return retrace::testing::Lines(Shell(retrace + " events " + id).out).size(); };
  const size_t whole = events("w0-0");
  EXPECT_GT(whole, 5u);
  for (int w = 0; w < 4; ++w) {
    for (int i = 0; i < 10; ++i) {
      const std::string id = "w" + std::to_string(w) + "-" + std::to_string(i);
      EXPECT_EQ(events(id), whole) << id << " is not stored whole";
    }
  }
  for (const char* id : {"c01-fs-read", "c04-bash-jobs", "c06-errors-policy", "s1-tools-inject"}) {
    EXPECT_THAT(listed, HasSubstr(id));
  }
}

}  // namespace
}  // namespace retrace::cli
