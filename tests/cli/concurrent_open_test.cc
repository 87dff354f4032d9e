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

}  // namespace
}  // namespace retrace::cli
