// The service layer every front end calls (service/): the catalog of a
// database, and replay with its choice of pieces or one thread made once.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <utility>
#include <vector>

#include "engine/json/parser.h"
#include "service/catalog.h"
#include "service/export.h"
#include "service/import.h"
#include "service/live_session.h"
#include "service/record.h"
#include "service/replay.h"
#include "store/importer.h"
#include "tests/store/store_test_util.h"

namespace retrace::service {
namespace {

using retrace::testing::FixturePath;
using retrace::testing::ReadFile;
using retrace::testing::TempDir;

std::string Golden(const std::string& fixture) {
  return ReadFile(std::string(RETRACE_SOURCE_DIR) + "/tests/golden/cards/" + fixture.substr(0, fixture.find(".jsonl")) +
                  ".cards.json");
}

std::string Cards(const store::EventSource& source, const ReplayOptions& options) {
  std::string out;
  const Status st = WriteCards(source, options, [&](std::string_view text) {
    out += text;
    return Status::Ok();
  });
  EXPECT_TRUE(st.ok()) << st.message();
  return out;
}

// Every fixture, from its file and from the store, on one thread or two,
// drained in small blocks or not: the upstream-generated golden document.
TEST(ReplayServiceTest, CardsAreTheGoldenDocumentWhateverTheSourceThreadsOrDraining) {
  TempDir dir;
  Catalog catalog({.db_path = dir / "t.db"});
  {
    auto store = catalog.Open(Access::kCreate);
    ASSERT_TRUE(store.ok()) << store.status().message();
    for (const std::string& f : retrace::testing::RawFixtures()) {
      if (f.ends_with(".crashed.jsonl")) continue;  // its repaired twin shares the session id
      ASSERT_TRUE(store::ImportJsonl(**store, FixturePath(f)).ok()) << f;
    }
  }
  int compared = 0;
  for (const std::string& f : retrace::testing::RawFixtures()) {
    auto file = catalog.Resolve(FixturePath(f));
    ASSERT_TRUE(file.ok()) << file.status().message();
    for (unsigned threads : {1u, 2u}) {
      for (size_t drain : {size_t{0}, size_t{512}}) {
        EXPECT_EQ(Cards(*file, {.threads = threads, .drain_bytes = drain}), Golden(f)) << f;
        ++compared;
      }
    }
    if (f.ends_with(".crashed.jsonl")) continue;
    auto stored = catalog.Resolve(file->session_id());
    ASSERT_TRUE(stored.ok()) << stored.status().message();
    EXPECT_FALSE(stored->is_file());
    EXPECT_EQ(Cards(*stored, {.threads = 2}), Golden(f)) << f << " from the store";
    ++compared;
  }
  const size_t fixtures = retrace::testing::RawFixtures().size();
  ASSERT_GE(fixtures, 6u);
  EXPECT_EQ(compared, static_cast<int>(fixtures * 4 + fixtures - 1));  // one crashed log is not stored
}

std::string Replayed(const store::EventSource& source, ReplayFormat format, const ReplayOptions& options = {}) {
  std::string out;
  const Status st = WriteReplay(source, format, options, [&](std::string_view text) {
    out += text;
    return Status::Ok();
  });
  EXPECT_TRUE(st.ok()) << st.message();
  return out;
}

// The transcript, text and HTML of each fixture (and of a log with Code-Mode
// sub-calls, a pruned result and a compaction), from its file and from the
// store, whole or handed on in small blocks: the committed golden, byte for
// byte. (The goldens were written by the one-pass builder this streamed
// replay replaced; RETRACE_UPDATE_GOLDEN=1 rewrites them after a deliberate
// change of a format.)
TEST(ReplayServiceTest, TranscriptTextAndHtmlAreTheGoldenWhateverTheSourceOrDraining) {
  TempDir dir;
  Catalog catalog({.db_path = dir / "t.db"});
  std::vector<std::string> logs;
  for (const std::string& f : retrace::testing::RawFixtures()) logs.push_back(FixturePath(f));
  logs.push_back(FixturePath("synthetic/compacted-code-mode.jsonl"));
  const bool update = std::getenv("RETRACE_UPDATE_GOLDEN") != nullptr;
  int compared = 0;
  for (const std::string& log : logs) {
    const std::string name = std::filesystem::path(log).filename().string();
    const std::string stem = std::string(RETRACE_SOURCE_DIR) + "/tests/golden/replay/" + name.substr(0, name.find(".jsonl"));
    auto file = catalog.Resolve(log);
    ASSERT_TRUE(file.ok()) << file.status().message();
    std::vector<store::EventSource> sources{*file};
    if (!name.ends_with(".crashed.jsonl")) {  // its repaired twin shares the session id
      auto store = catalog.Open(Access::kCreate);
      ASSERT_TRUE(store.ok()) << store.status().message();
      ASSERT_TRUE(store::ImportJsonl(**store, log).ok()) << log;
      auto stored = catalog.Resolve(file->session_id());
      ASSERT_TRUE(stored.ok()) << stored.status().message();
      sources.push_back(*stored);
    }
    for (auto [format, suffix] : {std::pair{ReplayFormat::kTranscript, ".transcript.json"},
                                  std::pair{ReplayFormat::kText, ".txt"}, std::pair{ReplayFormat::kHtml, ".html"}}) {
      if (update) retrace::testing::WriteFile(stem + suffix, Replayed(*file, format));
      const std::string golden = ReadFile(stem + suffix);
      for (const store::EventSource& source : sources) {
        for (size_t drain : {size_t{0}, size_t{256}}) {
          EXPECT_EQ(Replayed(source, format, {.drain_bytes = drain}), golden) << stem + suffix;
          ++compared;
        }
      }
    }
  }
  EXPECT_EQ(compared, 3 * 2 * (2 * static_cast<int>(logs.size()) - 1));
}

TEST(ReplayServiceTest, TextIsColouredOnlyWhenAskedAndFormatsAreNamed) {
  auto source = store::EventSource::File(FixturePath("s1-tools-inject.jsonl"));
  ASSERT_TRUE(source.ok());
  EXPECT_EQ(Replayed(*source, ReplayFormat::kCards), Golden("s1-tools-inject.jsonl"));
  EXPECT_TRUE(json::Parse(Replayed(*source, ReplayFormat::kTranscript)).ok());
  EXPECT_EQ(Replayed(*source, ReplayFormat::kText).find('\x1b'), std::string::npos);
  EXPECT_NE(Replayed(*source, ReplayFormat::kText, {.color = true}).find('\x1b'), std::string::npos);
  EXPECT_EQ(ReplayFormatNamed("html"), ReplayFormat::kHtml);
  EXPECT_FALSE(ReplayFormatNamed("pdf").has_value());
}

// A reader that goes away (a closed pipe) stops the replay: the write error
// comes back, and nothing more is read or written.
TEST(ReplayServiceTest, AWriteErrorStopsATranscriptReplayAndIsReturned) {
  auto source = store::EventSource::File(FixturePath("c04-bash-jobs.jsonl"));
  ASSERT_TRUE(source.ok());
  int writes = 0;
  const Status st = WriteReplay(*source, ReplayFormat::kText, {.drain_bytes = 64}, [&](std::string_view) {
    ++writes;
    return Status::IoError("cannot write to stdout");
  });
  EXPECT_EQ(st.code(), Status::Code::kIoError);
  EXPECT_EQ(writes, 1);
}

TEST(CatalogTest, ListsSessionsAsJsonAndSaysWhenThereIsNoDatabase) {
  TempDir dir;
  Catalog catalog({.db_path = dir / "t.db"});
  EXPECT_EQ(catalog.Sessions().status().code(), Status::Code::kNotFound);
  EXPECT_EQ(catalog.Resolve("some-session").status().code(), Status::Code::kNotFound);  // never created
  EXPECT_FALSE(std::filesystem::exists(dir / "t.db"));
  {
    auto store = catalog.Open(Access::kCreate);
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE(store::ImportJsonl(**store, FixturePath("c01-fs-read.jsonl")).ok());
  }
  auto sessions = catalog.Sessions();
  ASSERT_TRUE(sessions.ok());
  ASSERT_EQ(sessions->size(), 1u);
  const json::Value v = SessionJson(sessions->front());
  EXPECT_EQ(v.Find("id")->as_string(), "c01-fs-read");
  EXPECT_TRUE(v.Find("toolCalls")->is_number());
}

// A directory's logs are imported one by one in path order; a refused file
// is reported and leaves nothing behind, and the others are stored.
TEST(ImportServiceTest, ImportsEachLogOfADirectoryReportsTheOneItRefusesAndExportsTheRestByteExact) {
  TempDir dir;
  std::filesystem::create_directories(dir / "logs/sub");
  retrace::testing::WriteFile(dir / "logs/a.jsonl", ReadFile(FixturePath("c01-fs-read.jsonl")));
  retrace::testing::WriteFile(dir / "logs/b.jsonl", "{\"not\": \"a dsh log\"}\n");
  retrace::testing::WriteFile(dir / "logs/sub/c.jsonl", ReadFile(FixturePath("c06-errors-policy.jsonl")));
  retrace::testing::WriteFile(dir / "logs/notes.txt", "not a log");
  Catalog catalog({.db_path = dir / "t.db"});
  std::vector<std::string> outcomes;
  int progress = 0;
  auto summary = ImportLogs(catalog, {dir / "logs"},
                            {.progress = [&](const std::string&, const store::ImportProgress&) { ++progress; },
                             .done = [&](const std::string& path, const Result<store::ImportReport>& r) {
                               outcomes.push_back(std::filesystem::path(path).filename().string() + "=" +
                                                  (r.ok() ? r->session_id : "refused"));
                             }});
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_EQ(outcomes, (std::vector<std::string>{"a.jsonl=c01-fs-read", "b.jsonl=refused", "c.jsonl=c06-errors-policy"}));
  EXPECT_EQ(summary->files, 3u);
  EXPECT_EQ(summary->refused, 1u);
  EXPECT_FALSE(summary->first_error.ok());
  EXPECT_GE(progress, 2);  // at least each stored file's end
  EXPECT_EQ(catalog.Sessions()->size(), 2u);
  // Each stored session exports byte-exact, to a sink or a file; a file and a dsh root at once is refused.
  std::string exported;
  ASSERT_TRUE(ExportSession(catalog, "c01-fs-read", {}, [&](std::string_view b) {
                exported += b;
                return Status::Ok();
              }).ok());
  EXPECT_EQ(exported, ReadFile(FixturePath("c01-fs-read.jsonl")));
  EXPECT_EQ(*ExportSession(catalog, "c06-errors-policy", {.file = dir / "c06.jsonl"}), dir / "c06.jsonl");
  EXPECT_EQ(ReadFile(dir / "c06.jsonl"), ReadFile(FixturePath("c06-errors-policy.jsonl")));
  EXPECT_EQ(ExportSession(catalog, "c01-fs-read", {.file = dir / "x", .dsh_root = dir / "root"}).status().code(),
            Status::Code::kInvalidArgument);
  EXPECT_EQ(ImportLogs(catalog, {dir / "nothing-here"}).status().code(), Status::Code::kNotFound);
  std::filesystem::create_directories(dir / "empty");
  EXPECT_EQ(ImportLogs(catalog, {dir / "empty"}).status().code(), Status::Code::kNotFound);
}

// A live session recorded through the runtime with the built-in tools: the
// call ran in the workspace, and the store holds it with its card snapshot.
TEST(RecordServiceTest, RecordsAScriptWithTheBuiltinToolsAndTheirCardSnapshots) {
  TempDir dir;
  std::filesystem::create_directories(dir / "ws");
  auto ops = service::ParseScript(
      R"({"op":"prompt","text":"write it"})" "\n"
      R"({"op":"assistant","text":"","toolCalls":[{"id":"c1","name":"write","arguments":"{\"file_path\":\"a.txt\",\"content\":\"hi\\n\"}"}]})" "\n"
      R"({"op":"end","reason":"completed"})" "\n",
      "test script");
  ASSERT_TRUE(ops.ok()) << ops.status().message();
  Catalog catalog({.db_path = dir / "t.db"});
  int64_t clock = 1'800'000'000'000;
  int ids = 0;
  std::vector<std::string> warnings;
  auto outcome = RecordScript(catalog, *ops,
                              {.session_id = "rec-1",
                               .workspace = dir / "ws",
                               .now_ms = [&] { return clock++; },
                               .new_id = [&] { return "id-" + std::to_string(++ids); },
                               .warn = [&](const std::string& w) { warnings.push_back(w); }});
  ASSERT_TRUE(outcome.ok()) << outcome.status().message();
  EXPECT_EQ(outcome->report.tool_calls, 1);
  EXPECT_EQ(outcome->report.tool_errors, 0);
  EXPECT_EQ(ReadFile(dir / "ws/a.txt"), "hi\n");
  EXPECT_EQ(Summary(*outcome).rfind("session rec-1: 1 turn, 1 tool call (0 failed)", 0), 0u) << Summary(*outcome);
  EXPECT_TRUE(warnings.empty());
  auto source = catalog.Resolve("rec-1");
  ASSERT_TRUE(source.ok());
  int snapshots = 0;
  ASSERT_TRUE(source->Read([](std::string_view) { return true; }, [&](log::Event&& e) {
                snapshots += e.type == "retrace/cards";
                return Status::Ok();
              }).ok());
  EXPECT_EQ(snapshots, 1);
  EXPECT_EQ(RecordScript(catalog, *ops, {.session_id = "rec-2"}).status().code(), Status::Code::kInvalidArgument);
}

// Where MCP clients start servers (/, the home directory) and system
// directories are no workspace by default; a project directory is.
TEST(WorkspacePolicyTest, RootHomeAndSystemDirectoriesAreNoWorkspaceAProjectIs) {
  TempDir dir;
  const std::string home = dir.path() + "/home";
  std::filesystem::create_directories(home + "/project");
  EXPECT_NE(WhyNotAWorkspace("/", home), std::nullopt);
  EXPECT_NE(WhyNotAWorkspace(home, home), std::nullopt);
  EXPECT_NE(WhyNotAWorkspace(home + "/.", home), std::nullopt);  // the same directory, another spelling
  for (const char* system : {"/usr", "/etc", "/tmp"}) EXPECT_NE(WhyNotAWorkspace(system, home), std::nullopt) << system;
  EXPECT_EQ(WhyNotAWorkspace(home + "/project", home), std::nullopt);
  EXPECT_EQ(WhyNotAWorkspace(home + "/project", ""), std::nullopt);
  EXPECT_NE(WhyNotAWorkspace("/", "")->find("started in /"), std::string::npos);
}

}  // namespace
}  // namespace retrace::service
