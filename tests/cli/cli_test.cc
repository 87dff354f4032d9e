// The retrace executable as a user runs it: commands, help, typos, exit codes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <utility>

#include "tests/store/store_test_util.h"
#include "tests/test_util.h"

namespace retrace::cli {
namespace {

using ::testing::HasSubstr;
using retrace::testing::FixturePath;
using retrace::testing::ReadFile;
using retrace::testing::TempDir;

using Outcome = retrace::testing::ShellOutcome;

class CliTest : public ::testing::Test {
 protected:
  // Runs `[env] retrace --db <tmp>/t.db <args>` with stdin from /dev/null.
  Outcome Retrace(const std::string& args, const std::string& env = "") {
    return retrace::testing::Shell(env + " " + RETRACE_BUILD_DIR + "/cli/retrace --db " + dir_ / "t.db" + " " + args +
                                   " 2>&1 </dev/null");
  }
  TempDir dir_;
};

TEST_F(CliTest, HelpListsEveryCommandAndTheExitCodes) {
  Outcome r = Retrace("--help");
  EXPECT_EQ(r.code, 0);
  for (const char* c : {"import", "export", "sessions", "events", "repair", "migrate", "run", "replay", "audit", "query",
                        "search", "show", "trace", "lineage", "index"}) {
    EXPECT_THAT(r.out, HasSubstr(c));
  }
  EXPECT_THAT(r.out, HasSubstr("Exit codes: 0 ok, 1 failure, 2 usage, 3 corrupt input, 4 conflict/busy, "
                               "5 unsupported version, 6 not found, 7 time limit."));
  EXPECT_EQ(Retrace("import --help").code, 0);
}

TEST_F(CliTest, TypoGetsDidYouMean) {
  Outcome r = Retrace("sesions");
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.out, HasSubstr("unknown command 'sesions', did you mean 'sessions'?"));
  EXPECT_THAT(Retrace("exprot s").out, HasSubstr("did you mean 'export'?"));
}

TEST_F(CliTest, MissingArgumentIsAUsageError) { EXPECT_EQ(Retrace("export").code, 2); }

// Each rule an option follows, broken on the command line: exit 2 and a
// message naming the option and what is wrong, before the command runs.
TEST_F(CliTest, OptionRulesAreUsageErrorsNamingTheOption) {
  const std::pair<const char*, const char*> cases[] = {
      {"replay s --format bogus", "--format: bogus not in {cards,transcript,text,html}"},
      {"acp --page-size 0", "--page-size: Value 0 not in range 1 to 10000"},
      {"mcp --shutdown-grace 3601", "--shutdown-grace: Value 3601 not in range"},
      {"query --timeout 0 'SELECT 1'", "--timeout: Value 0 is not a positive number"},
      {"query --timeout inf 'SELECT 1'", "--timeout: Value inf is not a positive number"},
      {"replay s --presenters-timeout x", "--presenters-timeout: Value x is not a number"},
      {"check --fuzz -1 x", "--fuzz: Value -1 is not zero or a positive number"},
      {"sdk --schemas /nonexistent/schemas.json", "--schemas: File does not exist"},
      {"check --update-golden x", "--update-golden requires --golden"},
      {"query --json --csv 'SELECT 1'", "--json excludes --csv"},
      {"show s notanumber", "Could not convert: seq = notanumber"},
      {"--durability sometimes sessions", "--durability: sometimes not in {full,normal}"},
  };
  for (const auto& [args, message] : cases) {
    const Outcome r = Retrace(args);
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_THAT(r.out, HasSubstr(message)) << args;
  }
  EXPECT_EQ(Retrace("check --fuzz 0 " + FixturePath("c01-fs-read.jsonl")).code, 0);
}

// alloc/large_pages.cc: the options as mimalloc itself reports them at
// start-up (MIMALLOC_VERBOSE), so they were set before it read them; an
// operator's environment still wins.
TEST_F(CliTest, TheExecutableAsksMimallocForLargePagesUnlessTheEnvironmentSaysOtherwise) {
  if (!RETRACE_WITH_MIMALLOC) GTEST_SKIP() << "built without mimalloc (RETRACE_MIMALLOC=OFF, as under sanitizers)";
  const Outcome chosen = Retrace("--version", "MIMALLOC_VERBOSE=1");
  EXPECT_EQ(chosen.code, 0);
  EXPECT_THAT(chosen.out, HasSubstr("option 'large_os_pages': 1"));
  EXPECT_THAT(chosen.out, HasSubstr("option 'eager_commit_delay': 0"));
  const Outcome overridden =
      Retrace("--version", "MIMALLOC_VERBOSE=1 MIMALLOC_LARGE_OS_PAGES=0 MIMALLOC_EAGER_COMMIT_DELAY=2");
  EXPECT_THAT(overridden.out, HasSubstr("option 'large_os_pages': 0"));
  EXPECT_THAT(overridden.out, HasSubstr("option 'eager_commit_delay': 2"));
}

TEST_F(CliTest, VersionAndHelpExitZeroAndTheHelpShowsTheRules) {
  const Outcome version = Retrace("--version");
  EXPECT_EQ(version.code, 0);
  EXPECT_THAT(version.out, HasSubstr("retrace "));
  const Outcome help = Retrace("check --help");
  EXPECT_EQ(help.code, 0);
  EXPECT_THAT(help.out, HasSubstr("--fuzz INT:NONNEGATIVE"));
  EXPECT_THAT(help.out, HasSubstr("--update-golden Needs: --golden"));
  EXPECT_THAT(help.out, HasSubstr("inputs TEXT ... REQUIRED"));
  EXPECT_THAT(Retrace("mcp --help").out, HasSubstr("--max-frame-bytes UINT:UINT in [1024 - 1073741824]"));
}

TEST_F(CliTest, ImportListExportRoundTrip) {
  Outcome imported = Retrace("import " + FixturePath("c01-fs-read.jsonl") + " " + FixturePath("s2-interrupted-tool.crashed.jsonl"));
  EXPECT_EQ(imported.code, 0) << imported.out;
  EXPECT_THAT(imported.out, HasSubstr("session c01-fs-read: imported 290 events"));
  EXPECT_THAT(imported.out, HasSubstr("dropped a torn tail from line 26"));
  EXPECT_THAT(imported.out, ::testing::Not(HasSubstr("\r")));  // no progress line without a terminal

  Outcome listed = Retrace("sessions");
  EXPECT_THAT(listed.out, HasSubstr("c01-fs-read"));
  EXPECT_THAT(listed.out, HasSubstr("290"));
  EXPECT_THAT(Retrace("sessions --json").out, HasSubstr(R"("id":"c01-fs-read")"));

  EXPECT_EQ(Retrace("export c01-fs-read -o " + dir_ / "out.jsonl").code, 0);
  EXPECT_EQ(ReadFile(dir_ / "out.jsonl"), ReadFile(FixturePath("c01-fs-read.jsonl")));
}

TEST_F(CliTest, ReimportingIsSafeAndRepairClosesTheTurn) {
  ASSERT_EQ(Retrace("import " + FixturePath("s2-interrupted-tool.crashed.jsonl")).code, 0);
  Outcome repaired = Retrace("repair s2-interrupted-tool");
  EXPECT_EQ(repaired.code, 0);
  EXPECT_THAT(repaired.out, HasSubstr("closed the interrupted turn with 4 events (seq 34..37)"));
  EXPECT_THAT(Retrace("repair s2-interrupted-tool").out, HasSubstr("nothing to repair"));
  Outcome again = Retrace("import " + FixturePath("s2-interrupted-tool.crashed.jsonl"));
  EXPECT_EQ(again.code, 0);
  EXPECT_THAT(again.out, HasSubstr("already stored, unchanged"));
}

TEST_F(CliTest, EventsFiltersByTypeAndSeq) {
  ASSERT_EQ(Retrace("import " + FixturePath("s1-tools-inject.jsonl")).code, 0);
  Outcome calls = Retrace("events s1-tools-inject --type tool/call");
  EXPECT_THAT(calls.out, HasSubstr("read"));
  EXPECT_THAT(calls.out, HasSubstr("edit"));
  EXPECT_THAT(calls.out, ::testing::Not(HasSubstr("turn/start")));
  // Packed chunk members come out as the events they stand for.
  Outcome chunk = Retrace("events s1-tools-inject --from 23 --type assistant/chunk --json");
  EXPECT_THAT(chunk.out, HasSubstr(R"({"type":"assistant/chunk","seq":23,)"));
  EXPECT_EQ(Retrace("events s1-tools-inject --from -1").code, 2);
}

TEST_F(CliTest, ExitCodesNameTheFailureKind) {
  EXPECT_EQ(Retrace("sessions").code, 6);  // no database yet
  ASSERT_EQ(Retrace("import " + FixturePath("s1-tools-inject.jsonl")).code, 0);
  EXPECT_EQ(Retrace("export nope").code, 6);
  retrace::testing::WriteFile(dir_ / "bad.jsonl", "not json\n");
  Outcome bad = Retrace("import " + dir_ / "bad.jsonl");
  EXPECT_EQ(bad.code, 3);
  EXPECT_THAT(bad.out, HasSubstr("bad.jsonl:1: corrupt session log: header line is not valid JSON"));
}

TEST_F(CliTest, MigrateReportsStatusAndDryRun) {
  ASSERT_EQ(Retrace("import " + FixturePath("s1-tools-inject.jsonl")).code, 0);
  Outcome status = Retrace("migrate --status");
  EXPECT_EQ(status.code, 0);
  int newest = 0;  // the migrations the binary embeds: every numbered file in migrations/
  for (const auto& f : std::filesystem::directory_iterator(RETRACE_SOURCE_DIR "/migrations"))
    newest += f.path().extension() == ".sql";
  const std::string v = std::to_string(newest);
  EXPECT_THAT(status.out, HasSubstr("schema version " + v + "; this retrace knows up to version " + v));
  EXPECT_THAT(status.out, HasSubstr("up to date"));
  EXPECT_EQ(Retrace("migrate --dry-run").code, 0);
  EXPECT_EQ(Retrace("migrate").code, 0);
}

TEST_F(CliTest, ExportIntoADshRoot) {
  ASSERT_EQ(Retrace("import " + FixturePath("s1-tools-inject.jsonl")).code, 0);
  Outcome r = Retrace("export s1-tools-inject --zstd --dsh-root " + dir_ / "root");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("root/--home-dev-calc--/s1-tools-inject/session.jsonl.zstd"));
}

TEST_F(CliTest, ReplayCardsFromAFileOrTheStoreMatchUpstream) {
  const std::string golden =
      ReadFile(std::string(RETRACE_SOURCE_DIR) + "/tests/golden/cards/c06-errors-policy.cards.json");
  Outcome file = Retrace("replay " + FixturePath("c06-errors-policy.jsonl"));
  EXPECT_EQ(file.code, 0);
  EXPECT_EQ(file.out, golden);
  ASSERT_EQ(Retrace("import " + FixturePath("c06-errors-policy.jsonl")).code, 0);
  EXPECT_EQ(Retrace("replay c06-errors-policy --format cards").out, golden);
  ASSERT_EQ(Retrace("replay c06-errors-policy -o " + dir_ / "cards.json").code, 0);
  EXPECT_EQ(ReadFile(dir_ / "cards.json"), golden);
  EXPECT_EQ(Retrace("replay nope").code, 6);
  EXPECT_EQ(Retrace("replay c06-errors-policy --format pdf").code, 2);
}

// A log of a few megabytes is replayed in pieces, one per thread; whatever
// the log, the document (or the refusal) is the one a single thread writes: a
// clean log, a torn one (refused in pieces, so read whole), one whose turn
// starts between a call and its result (likewise), a corrupt one, and the
// clean one stored.
TEST_F(CliTest, ReplayCardsOnSeveralThreadsWritesWhatOneThreadWrites) {
  const std::string many = retrace::testing::RepeatedLog(ReadFile(FixturePath("c06-errors-policy.jsonl")), 40);
  ASSERT_GT(many.size(), size_t{2} << 20);  // two pieces of 1 MiB or more
  retrace::testing::WriteFile(dir_ / "many.jsonl", many);
  retrace::testing::WriteFile(dir_ / "torn.jsonl", many.substr(0, many.size() - 10));
  const std::string header = retrace::testing::Lines(ReadFile(FixturePath("s1-tools-inject.jsonl"))).front();
  retrace::testing::WriteFile(dir_ / "split-call.jsonl", retrace::testing::CallSplitFromItsResultLog(header, 3 << 20));
  for (const char* log : {"many.jsonl", "torn.jsonl", "split-call.jsonl"}) {
    const Outcome one = Retrace("replay " + dir_ / log + " --threads 1");
    ASSERT_EQ(one.code, 0) << log << ": " << one.out.substr(0, 300);
    EXPECT_EQ(Retrace("replay " + dir_ / log + " --threads 2").out, one.out) << log;
    ASSERT_EQ(Retrace("replay " + dir_ / log + " --threads 2 -o " + dir_ / "cards.json").code, 0) << log;
    EXPECT_EQ(ReadFile(dir_ / "cards.json"), one.out) << log;
  }
  // A damaged line with a turn/end after it: the same refusal either way.
  std::vector<std::string> lines = retrace::testing::Lines(many);
  lines[lines.size() / 2] = R"({"type":"step/end","seq":)";
  std::string corrupt;
  for (const std::string& line : lines) corrupt += line + "\n";
  retrace::testing::WriteFile(dir_ / "corrupt.jsonl", corrupt);
  const Outcome refused = Retrace("replay " + dir_ / "corrupt.jsonl" + " --threads 1");
  EXPECT_EQ(refused.code, 3);
  EXPECT_THAT(refused.out, HasSubstr("shows this is not a torn tail"));
  const Outcome refused_in_pieces = Retrace("replay " + dir_ / "corrupt.jsonl" + " --threads 2");
  EXPECT_EQ(refused_in_pieces.code, refused.code);
  EXPECT_EQ(refused_in_pieces.out, refused.out);
  // Stored, the same session (11,480 events) replays in pieces to the same document.
  ASSERT_EQ(Retrace("import " + dir_ / "many.jsonl").code, 0);
  const std::string from_file = Retrace("replay " + dir_ / "many.jsonl" + " --threads 1").out;
  EXPECT_EQ(Retrace("replay c06-errors-policy --threads 1").out, from_file);
  EXPECT_EQ(Retrace("replay c06-errors-policy --threads 2").out, from_file);
  ASSERT_EQ(Retrace("replay c06-errors-policy --threads 2 -o " + dir_ / "stored.json").code, 0);
  EXPECT_EQ(ReadFile(dir_ / "stored.json"), from_file);
}

TEST_F(CliTest, DemoRecordsReplaysAndWritesHtml) {
  Outcome demo = Retrace("demo --html " + dir_ / "session.html");
  EXPECT_EQ(demo.code, 0) << demo.out;
  EXPECT_THAT(demo.out, HasSubstr("⚙ Edit src/math.ts  [edit] ✓"));
  EXPECT_THAT(demo.out, HasSubstr("Error: invalid arguments: \"arguments\" must be an object"));
  EXPECT_THAT(demo.out, HasSubstr("Error: policy: lockfiles are written by the package manager"));
  EXPECT_THAT(demo.out, HasSubstr("⚙ Grep add\\( (*.ts)  [grep] ✓"));
  EXPECT_THAT(demo.out, HasSubstr("⚙ Glob **/*.ts  [glob] ✓"));
  EXPECT_THAT(demo.out, HasSubstr("2:  return a + b\n    exit 0"));
  EXPECT_THAT(demo.out, HasSubstr("no test file yet\n    exit 1"));
  EXPECT_THAT(demo.out, HasSubstr("build ok: 2 modules\n    [status: completed, exit code: 0]"));
  // The job nobody waited for announced itself through a durable injected notice.
  EXPECT_THAT(demo.out, HasSubstr("⟪tool-jobs · notice⟫ bash echo 'lint: 0 problems' [status: completed, exit code: 0]"));
  EXPECT_THAT(demo.out, HasSubstr("12 tool calls (2 failed)"));
  EXPECT_EQ(ReadFile(dir_ / "session.html").rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_THAT(Retrace("sessions").out, HasSubstr("demo-"));
}

TEST_F(CliTest, ReplayRendersTranscriptTextAndHtml) {
  ASSERT_EQ(Retrace("import " + FixturePath("s1-tools-inject.jsonl")).code, 0);
  Outcome text = Retrace("replay s1-tools-inject --format text");
  EXPECT_EQ(text.code, 0);
  EXPECT_THAT(text.out, HasSubstr("⚙ Edit src/math.ts  [edit] ✓"));
  EXPECT_THAT(text.out, ::testing::Not(HasSubstr("\x1b[")));  // not a terminal: no colours
  Outcome transcript = Retrace("replay s1-tools-inject --format transcript");
  EXPECT_THAT(transcript.out, HasSubstr(R"("kind":"context","source":"plugin","plugin":"file-watch")"));
  ASSERT_EQ(Retrace("replay " + FixturePath("s1-tools-inject.jsonl") + " --format html -o " + dir_ / "s.html").code, 0);
  const std::string html = ReadFile(dir_ / "s.html");
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_THAT(html, HasSubstr("&lt;system-reminder&gt;"));
}

TEST_F(CliTest, CheckPassesOnTheFixturesAndARecordedSessionAndFindsDivergences) {
  ASSERT_EQ(Retrace("demo --html " + dir_ / "session.html").code, 0);
  const std::string fixtures = RETRACE_FIXTURE_DIR;
  // Every fixture and the recorded demo session: clean, with 10,140 fuzzed argument sets.
  Outcome all = Retrace("check " + dir_ / "t.db" + " " + fixtures + " --fuzz 130");
  EXPECT_EQ(all.code, 0) << all.out;
  EXPECT_THAT(all.out, HasSubstr("0 hard failures, 0 divergences"));
  EXPECT_THAT(all.out, HasSubstr("— clean"));
  // The recorded session carries card snapshots: they are its reference, and a changed one diverges.
  Outcome sessions = Retrace("sessions --json");
  const std::string id = sessions.out.substr(sessions.out.find("demo-"), 18);
  ASSERT_EQ(Retrace("export " + id + " -o " + dir_ / "demo.jsonl").code, 0);
  std::string recorded = ReadFile(dir_ / "demo.jsonl");
  ASSERT_NE(recorded.find(R"("type":"retrace/cards")"), std::string::npos);
  EXPECT_EQ(Retrace("check " + dir_ / "demo.jsonl").code, 0);
  const std::string title = R"("title":"Write src/math.ts")";
  recorded.replace(recorded.find(title), title.size(), R"("title":"Write src/other.ts")");  // the first: in the snapshot
  retrace::testing::WriteFile(dir_ / "demo-changed.jsonl", recorded);
  Outcome snapshot = Retrace("check " + dir_ / "demo-changed.jsonl");
  EXPECT_EQ(snapshot.code, 1);
  EXPECT_THAT(snapshot.out, HasSubstr("differs  seq 7  call_write  write  presenter"));
  EXPECT_THAT(snapshot.out, HasSubstr("at /pending/title: expected \"Write src/other.ts\", got \"Write src/math.ts\""));
  // Fallbacks are warnings, errors with --strict.
  EXPECT_EQ(Retrace("check " + fixtures + "/c06-errors-policy.jsonl --strict").code, 1);
  // References: written, then compared clean, then a changed log diverges.
  ASSERT_EQ(Retrace("check " + fixtures + "/s1-tools-inject.jsonl --golden " + dir_ / "golden --update-golden").code, 0);
  EXPECT_EQ(Retrace("check " + fixtures + "/s1-tools-inject.jsonl --golden " + dir_ / "golden").code, 0);
  std::string log = ReadFile(fixtures + "/s1-tools-inject.jsonl");
  log.replace(log.find(R"("oldText":"export function add)"), 28, R"("oldText":"export function sum)");
  std::filesystem::create_directories(dir_ / "changed");  // same file name: same reference
  retrace::testing::WriteFile(dir_ / "changed/s1-tools-inject.jsonl", log);
  Outcome diverged = Retrace("check " + dir_ / "changed/s1-tools-inject.jsonl --golden " + dir_ / "golden --json");
  EXPECT_EQ(diverged.code, 1);
  EXPECT_THAT(diverged.out, HasSubstr(R"("finding":"differs","severity":"error","seq":65,"callId":"call_edit_02","tool":"edit")"));
  EXPECT_THAT(diverged.out, HasSubstr(R"("path":"/result/diffs/0/oldText")"));
}

TEST_F(CliTest, ImportOfADirectoryWithASymlinkLoopImportsItsLogsOnceAndEnds) {
  // logs/sub/loop -> .. and logs/self -> . : a walk that followed them would never end.
  std::filesystem::create_directories(dir_ / "logs/sub");
  std::filesystem::copy_file(FixturePath("c01-fs-read.jsonl"), dir_ / "logs/c01-fs-read.jsonl");
  std::filesystem::copy_file(FixturePath("c06-errors-policy.jsonl"), dir_ / "logs/sub/c06-errors-policy.jsonl");
  std::filesystem::create_directory_symlink("..", dir_ / "logs/sub/loop");
  std::filesystem::create_directory_symlink(".", dir_ / "logs/self");
  Outcome imported = Retrace("import " + dir_ / "logs");
  EXPECT_EQ(imported.code, 0) << imported.out;
  EXPECT_THAT(imported.out, HasSubstr("session c01-fs-read: imported"));
  EXPECT_THAT(imported.out, HasSubstr("session c06-errors-policy: imported"));
  Outcome listed = Retrace("sessions");
  EXPECT_THAT(listed.out, HasSubstr("c01-fs-read"));
  EXPECT_THAT(listed.out, HasSubstr("c06-errors-policy"));
}

TEST_F(CliTest, ReplayNamesAMissingLogFileADirectoryOrADatabaseRatherThanLookingForASession) {
  Outcome missing = Retrace("replay " + dir_ / "nope.jsonl");
  EXPECT_EQ(missing.code, 6);
  EXPECT_THAT(missing.out, HasSubstr("no such file: " + dir_ / "nope.jsonl"));
  Outcome directory = Retrace("replay " + dir_.path());
  EXPECT_EQ(directory.code, 2);  // a bad command line: a directory where a log file belongs
  EXPECT_THAT(directory.out, HasSubstr(dir_.path() + " is a directory: replay takes one log file or a stored session id"));
  ASSERT_EQ(Retrace("import " + FixturePath("c01-fs-read.jsonl")).code, 0);
  const std::string db = dir_ / "t.db";
  Outcome database = Retrace("replay " + db);  // a database where a session belongs
  EXPECT_EQ(database.code, 2);
  EXPECT_THAT(database.out, HasSubstr(db + " is a database: name one of its sessions, with --db " + db));
}

TEST_F(CliTest, CheckNamesGoldenDocumentsByLogFileAndRefusesTwoInputsSharingOne) {
  // The upstream-generated golden cards are named by fixture file: the crashed and the
  // repaired log of one session each have their own, and each fixture matches its own.
  std::string logs;
  for (const char* name : {"c01-fs-read", "c04-bash-jobs", "c06-errors-policy", "s1-tools-inject",
                           "s2-interrupted-tool.crashed", "s2-interrupted-tool.repaired-resumed"})
    logs += " " + FixturePath(std::string(name) + ".jsonl");
  Outcome upstream = Retrace("check --golden " RETRACE_SOURCE_DIR "/tests/golden/cards" + logs);
  EXPECT_EQ(upstream.code, 0) << upstream.out;
  EXPECT_THAT(upstream.out, HasSubstr("checked 6 sessions, 76 calls: 0 hard failures, 0 divergences"));
  // Two logs with one file name would share a document: the second is refused, not written over the first.
  const std::string log = ReadFile(FixturePath("s1-tools-inject.jsonl"));
  std::filesystem::create_directories(dir_ / "a");
  std::filesystem::create_directories(dir_ / "b");
  retrace::testing::WriteFile(dir_ / "a/s.jsonl", log);
  retrace::testing::WriteFile(dir_ / "b/s.jsonl", log);
  Outcome shared = Retrace("check " + dir_ / "a/s.jsonl " + dir_ / "b/s.jsonl --golden " + dir_ / "golden --update-golden");
  EXPECT_EQ(shared.code, 1);
  EXPECT_THAT(shared.out, HasSubstr("unreadable (hard failure): its reference " + dir_ / "golden/s.cards.json is also " +
                                    dir_ / "a/s.jsonl's"));
}

TEST_F(CliTest, DeleteAndRetainRemoveSessionsAndSayWhat) {
  ASSERT_EQ(Retrace("import " + FixturePath("c01-fs-read.jsonl") + " " + FixturePath("c04-bash-jobs.jsonl")).code, 0);
  // The fixtures' last events are from 2026-11-30: a dry run lists both, changes nothing.
  Outcome dry = Retrace("retain --older-than 1d --dry-run");
  EXPECT_EQ(dry.code, 0) << dry.out;
  EXPECT_THAT(dry.out, HasSubstr("would delete c01-fs-read (290 events, last at 2026-11-30T02:31:47"));
  EXPECT_THAT(dry.out, HasSubstr("2 sessions would be deleted (nothing changed)"));
  EXPECT_THAT(Retrace("retain --older-than 100000w").out, HasSubstr("no session's last event is older than 100000w"));
  Outcome bad = Retrace("retain --older-than 30x");
  EXPECT_NE(bad.code, 0);
  EXPECT_THAT(bad.out, HasSubstr("--older-than 30x: give a number and a unit"));
  Outcome unknown = Retrace("delete c01-fs-read nope");
  EXPECT_NE(unknown.code, 0);
  EXPECT_THAT(unknown.out, HasSubstr("no session \"nope\""));
  Outcome deleted = Retrace("delete c01-fs-read");
  EXPECT_EQ(deleted.code, 0) << deleted.out;
  EXPECT_THAT(deleted.out, HasSubstr("deleted c01-fs-read (290 events"));
  EXPECT_THAT(deleted.out, HasSubstr("1 sessions deleted; "));
  EXPECT_THAT(Retrace("sessions").out, ::testing::Not(HasSubstr("c01-fs-read")));
  Outcome retained = Retrace("retain --older-than 1d");
  EXPECT_EQ(retained.code, 0) << retained.out;
  EXPECT_THAT(retained.out, HasSubstr("deleted c04-bash-jobs"));
  EXPECT_THAT(Retrace("sessions").out, HasSubstr("no sessions"));
}

TEST_F(CliTest, VerifyFindsAnEditedRowAndACutAgainstThePinnedHeads) {
  ASSERT_EQ(Retrace("import " + FixturePath("c01-fs-read.jsonl") + " " + FixturePath("s1-tools-inject.jsonl")).code, 0);
  Outcome ok = Retrace("verify");
  EXPECT_EQ(ok.code, 0) << ok.out;
  EXPECT_THAT(ok.out, HasSubstr("c01-fs-read  ok  290 events in 201 rows, head "));
  EXPECT_THAT(ok.out, HasSubstr("verified 2 sessions: 0 broken"));
  const Outcome heads = Retrace("verify --head");
  ASSERT_EQ(heads.code, 0);
  retrace::testing::WriteFile(dir_ / "heads.txt", heads.out);
  EXPECT_EQ(Retrace("verify --pinned " + dir_ / "heads.txt").code, 0);
  {
    auto db = store::testing::RawDb(dir_ / "t.db");
    ASSERT_TRUE(db.Exec("UPDATE events SET json = replace(json, 'calc', 'cald') WHERE event_id = "
                        "((SELECT id FROM sessions WHERE session_id = 'c01-fs-read') << 32 | 4)").ok());
    ASSERT_TRUE(db.Exec("DELETE FROM events WHERE event_id = (SELECT max(event_id) FROM events WHERE event_id >> 32 = "
                        "(SELECT id FROM sessions WHERE session_id = 's1-tools-inject'))").ok());
  }
  Outcome broken = Retrace("verify");
  EXPECT_EQ(broken.code, 3) << broken.out;
  EXPECT_THAT(broken.out, HasSubstr("c01-fs-read  BROKEN at seq 4: the row at seq 4 is not what was chained"));
  EXPECT_THAT(broken.out, HasSubstr("s1-tools-inject  ok"));  // a cut at the end still chains
  Outcome pinned = Retrace("verify --json --pinned " + dir_ / "heads.txt");
  EXPECT_EQ(pinned.code, 3) << pinned.out;
  EXPECT_THAT(pinned.out, HasSubstr("rows were cut from the end of the log"));
  EXPECT_THAT(pinned.out, HasSubstr(R"("ok":false)"));
}

TEST_F(CliTest, RewriteUpcastsLegacyPayloadsAndVerifiesEveryCard) {
  const std::string legacy = RETRACE_SOURCE_DIR "/tests/replay/corpus/legacy/s1-tools-inject.jsonl";
  ASSERT_EQ(Retrace("import " + legacy + " " + FixturePath("c04-bash-jobs.jsonl")).code, 0);
  const std::string before = Retrace("replay s1-tools-inject --format cards").out;
  Outcome rewrite = Retrace("migrate --rewrite " + dir_ / "new.db");
  ASSERT_EQ(rewrite.code, 0) << rewrite.out;
  EXPECT_THAT(rewrite.out, HasSubstr("rewrote 2 sessions (446 events, 5 upcast to current shapes, 0 tool calls to their current revision)"));
  EXPECT_THAT(rewrite.out, HasSubstr("every card verified identical"));
  // The copy stores current shapes; the original is untouched; the cards are the same.
  const std::string copy = RETRACE_BUILD_DIR "/cli/retrace --db " + dir_ / "new.db";
  EXPECT_THAT(retrace::testing::Shell(copy + " events s1-tools-inject --type tool/result --json").out,
              HasSubstr(R"("message":{"id":"legacy-message:s1-tools-inject:39")"));
  EXPECT_THAT(Retrace("events s1-tools-inject --type tool/result --json").out, ::testing::Not(HasSubstr(R"("message")")));
  EXPECT_EQ(retrace::testing::Shell(copy + " replay s1-tools-inject --format cards").out, before);
  EXPECT_EQ(Retrace("migrate --rewrite " + dir_ / "new.db").code, 4);  // never overwrites
}

TEST_F(CliTest, MigrateBacksUpTheOldDatabaseThenMigratesIt) {
  std::filesystem::copy_file(RETRACE_SOURCE_DIR "/tests/store/testdata/foundation-v1.db", dir_ / "t.db");
  Outcome refused = Retrace("sessions");
  EXPECT_EQ(refused.code, 5);
  EXPECT_THAT(refused.out, HasSubstr("run `retrace migrate`"));
  Outcome dry = Retrace("migrate --dry-run");
  EXPECT_EQ(dry.code, 0);
  EXPECT_THAT(dry.out, HasSubstr("would apply, in order (nothing changed)"));
  EXPECT_THAT(dry.out, HasSubstr("0002  0002_read_model.sql"));
  EXPECT_EQ(Retrace("sessions").code, 5);  // still version 1
  Outcome migrated = Retrace("migrate");
  ASSERT_EQ(migrated.code, 0) << migrated.out;
  EXPECT_THAT(migrated.out, HasSubstr("backup of schema version 1: " + dir_ / "t.db.v1-"));
  std::string backup;
  for (const auto& f : std::filesystem::directory_iterator(dir_.path()))
    if (f.path().extension() == ".bak") backup = f.path().string();
  ASSERT_FALSE(backup.empty());
  EXPECT_THAT(retrace::testing::Shell(std::string(RETRACE_BUILD_DIR) + "/cli/retrace --db " + backup + " migrate --status").out,
              HasSubstr("schema version 1;"));
  EXPECT_THAT(Retrace("sessions").out, HasSubstr("c06-errors-policy"));
  EXPECT_THAT(Retrace("audit tools").out, HasSubstr("read"));
  EXPECT_THAT(Retrace("migrate").out, ::testing::Not(HasSubstr("backup")));  // nothing pending: no copy
}

TEST_F(CliTest, ARecordedSessionsGeneratedIdsAreDistinctVersion4Uuids) {
  const std::string script = dir_ / "s.jsonl";
  retrace::testing::WriteFile(script, R"({"op":"prompt","text":"x"}
{"op":"assistant","text":"a","toolCalls":[{"id":"c1","name":"glob","arguments":"{\"pattern\":\"*\"}"}]}
{"op":"assistant","text":"b"}
)");
  ASSERT_EQ(Retrace("run " + script).code, 0);
  Outcome exported = Retrace("query \"SELECT json_extract(json, '$.data.message.id') AS id FROM v_events"
                             " WHERE json_extract(json, '$.data.message.id') IS NOT NULL"
                             " UNION ALL SELECT session_id FROM v_sessions\" --csv");
  ASSERT_EQ(exported.code, 0) << exported.out;
  std::set<std::string> ids;
  std::istringstream lines(exported.out);
  std::string line;
  std::getline(lines, line);  // the header
  const std::regex v4("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
  int n = 0;
  while (std::getline(lines, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    ++n;
    EXPECT_TRUE(std::regex_match(line, v4)) << line;
    ids.insert(line);
  }
  EXPECT_GE(n, 4);  // the session, two assistant messages, the tool result
  EXPECT_EQ(ids.size(), static_cast<size_t>(n));
}

TEST_F(CliTest, AuditsQueriesAndSearchOverARecordedSessionAndFixtures) {
  ASSERT_EQ(Retrace("demo --html " + dir_ / "session.html").code, 0);
  ASSERT_EQ(Retrace("import " + FixturePath("c06-errors-policy.jsonl")).code, 0);
  // The recorded demo session has its own failed and denied calls.
  Outcome demo_failures = Retrace("audit failures --json");
  EXPECT_EQ(demo_failures.code, 0);
  EXPECT_THAT(demo_failures.out, ::testing::ContainsRegex("demo-[0-9]+\",\"call_id\":\"call_denied\",\"tool\":\"write\",\"outcome\":\"plain-error\""));
  EXPECT_THAT(demo_failures.out, HasSubstr(R"("call_id":"call_malformed","tool":"read","outcome":"error","error_code":"INVALID_ARGS")"));
  Outcome tools = Retrace("audit tools --csv");
  EXPECT_THAT(tools.out, ::testing::StartsWith("tool,calls,errors,error_codes,p50_ms,p95_ms\r\n"));
  EXPECT_THAT(Retrace("audit injections").out, HasSubstr("tool-jobs"));
  EXPECT_THAT(Retrace("audit sessions").out, HasSubstr("c06-errors-policy"));
  EXPECT_THAT(Retrace("audit turns --session c06-errors-policy").out, HasSubstr("aborted"));
  Outcome bad = Retrace("audit turns --tool read");
  EXPECT_EQ(bad.code, 2);  // a bad request, not bad data
  EXPECT_THAT(bad.out, HasSubstr("the turns report has no tool to filter on"));

  Outcome q = Retrace("query \"SELECT outcome, COUNT(*) AS n FROM v_tool_calls GROUP BY 1 ORDER BY 1\" --json");
  EXPECT_EQ(q.code, 0);
  EXPECT_THAT(q.out, HasSubstr(R"({"outcome":"plain-error","n":)"));
  Outcome write = Retrace("query \"DELETE FROM events\"");
  EXPECT_EQ(write.code, 2);
  EXPECT_THAT(write.out, HasSubstr("refused: queries are read-only, and this one asks for DELETE from events"));
  // A storage table holds internal keys where its view has session ids: people query the view.
  Outcome storage = Retrace("query \"SELECT * FROM tool_calls\"");
  EXPECT_EQ(storage.code, 2);
  EXPECT_THAT(storage.out, HasSubstr("query the view v_tool_calls instead"));
  EXPECT_THAT(Retrace("query \"SELECT DISTINCT session_id FROM v_tool_calls\"").out, HasSubstr("c06-errors-policy"));
  // A runaway query is interrupted at its time limit: exit code 7, not a plain failure.
  Outcome slow = Retrace("query \"WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT count(*) FROM r\""
                         " --timeout 1");
  EXPECT_EQ(slow.code, 7);
  EXPECT_THAT(slow.out, HasSubstr("ran past its time limit"));

  // The demo's appends are searchable at once: the search catches the index up first.
  Outcome found = Retrace("search \"lockfiles are written\" --json");
  EXPECT_EQ(found.code, 0);
  EXPECT_THAT(found.out, HasSubstr(R"("type":"tool/result")"));
  EXPECT_THAT(found.out, HasSubstr("package manager"));
  // More hits than the page: the hint to continue is a line of its own.
  Outcome paged = retrace::testing::Shell(std::string(RETRACE_BUILD_DIR) + "/cli/retrace --db " + dir_ / "t.db" +
                                          " search \"the\" --limit 1 2>&1 >/dev/null </dev/null");
  EXPECT_THAT(paged.out, ::testing::MatchesRegex("more: add --cursor [A-Za-z0-9_=-]+\n"));
  Outcome blank = Retrace("search \"  \"");
  EXPECT_EQ(blank.code, 2);
  EXPECT_THAT(blank.out, HasSubstr("SESSION_QUERY_INVALID_QUERY"));
  EXPECT_EQ(Retrace("index").code, 0);
  EXPECT_EQ(Retrace("index --rebuild").code, 0);

  Outcome show = Retrace("show c06-errors-policy 110 --before 1 --after 1");
  EXPECT_EQ(show.code, 0);
  EXPECT_THAT(show.out, HasSubstr("> {\"type\":\"tool/result\",\"seq\":110"));
  EXPECT_THAT(Retrace("trace c06-errors-policy 109").out, HasSubstr("later events cite it: 110"));
  EXPECT_THAT(Retrace("lineage c06-errors-policy").out, HasSubstr("c06-errors-policy  (created"));
  EXPECT_EQ(Retrace("show c06-errors-policy 110 --before 51").code, 2);
  EXPECT_EQ(Retrace("trace nope 1").code, 6);
}

TEST_F(CliTest, SdkOfASchemaFileIsUpstreamsTextInBothLanguages) {
  const std::string golden = std::string(RETRACE_SOURCE_DIR) + "/tests/golden/sdk/types";
  Outcome ts = Retrace("sdk --schemas " + golden + ".schemas.json");
  EXPECT_EQ(ts.code, 0);
  EXPECT_EQ(ts.out, ReadFile(golden + ".ts.txt"));
  Outcome py = Retrace("sdk --language python --schemas " + golden + ".schemas.json -o " + dir_ / "sdk.py.txt");
  EXPECT_EQ(py.code, 0) << py.out;
  EXPECT_EQ(py.out, "");
  EXPECT_EQ(ReadFile(dir_ / "sdk.py.txt"), ReadFile(golden + ".py.txt"));
}

TEST_F(CliTest, SdkWithoutAFileDeclaresTheBuiltinTools) {
  Outcome ts = Retrace("sdk");
  EXPECT_EQ(ts.code, 0);
  for (const char* tool : {"bash", "edit", "glob", "grep", "job_kill", "job_list", "job_output", "read", "web_fetch", "write"}) {
    EXPECT_THAT(ts.out, HasSubstr("\n  " + std::string(tool) + ": ")) << tool;
  }
  EXPECT_THAT(ts.out, ::testing::EndsWith("Promise<ToolOutputMap[K]>;\n}\n```"));
  Outcome py = Retrace("sdk --language python");
  EXPECT_EQ(py.code, 0);
  EXPECT_THAT(py.out, HasSubstr("    async def read(self, args: ReadArgs) -> ReadOutput:\n        \"\"\"Read a UTF-8"));
  EXPECT_THAT(py.out, HasSubstr("\ntools: Tools\n```"));
}

TEST_F(CliTest, ADashAsTheOutputFileIsStandardOutput) {
  // Run from the temporary directory: a file named "-" would appear there.
  Outcome dash = Retrace("sdk -o -", "cd " + dir_.path() + " &&");
  EXPECT_EQ(dash.code, 0);
  EXPECT_EQ(dash.out, Retrace("sdk").out);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "-"));
}

TEST_F(CliTest, SdkRefusesWhatIsNotASchemaSetNamingTheFileAndEntry) {
  const std::string bad = dir_ / "bad.json";
  retrace::testing::WriteFile(bad, R"([{"name":"ok","parameters":{}}, {"description":"no name"}])");
  Outcome r = Retrace("sdk --schemas " + bad);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_THAT(r.out, HasSubstr(bad + ": entry 1: \"name\" must be a string"));
  retrace::testing::WriteFile(bad, "[{");
  EXPECT_THAT(Retrace("sdk --schemas " + bad).out, HasSubstr(bad + ": "));
  EXPECT_EQ(Retrace("sdk --language rust").code, 2);
  EXPECT_EQ(Retrace("sdk --schemas " + dir_ / "missing.json").code, 2);
}

}  // namespace
}  // namespace retrace::cli
