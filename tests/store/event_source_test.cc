// EventSource (event_source.h): what names a source, and reading one in
// pieces on several threads — where the cuts fall, and that the pieces give
// exactly one sequential read's events or nothing at all, for log files and
// stored sessions alike.
#include "store/event_source.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <memory>

#include "engine/json/writer.h"
#include "store/importer.h"
#include "tests/store/store_test_util.h"

namespace retrace::store {
namespace {

using testing::FixturePath;
using testing::ReadFile;
using testing::TempDir;
using testing::WriteFile;

bool Any(std::string_view) { return true; }

// Any source is cut, however small its pieces.
constexpr PiecePolicy kAnySize{.min_piece_bytes = 1, .min_piece_events = 1};

EventSource FileSource(const std::string& path) {
  auto source = EventSource::File(path);
  EXPECT_TRUE(source.ok()) << source.status().message();
  return std::move(source).value();
}

std::vector<Piece> FileCuts(const std::string& path, size_t max_pieces, int64_t min_piece_bytes) {
  return FileSource(path).PlanPieces(max_pieces, {.min_piece_bytes = min_piece_bytes});
}

// Each event as one line of text: what a consumer could tell apart.
std::string Describe(const log::Event& e) {
  return std::to_string(e.seq) + " " + e.type + " " + json::Serialize(e.data);
}

std::vector<std::string> Sequential(const std::string& path) {
  std::vector<std::string> events;
  auto id = ReadFileEvents(path, Any, [&](log::Event&& e) {
    events.push_back(Describe(e));
    return Status::Ok();
  });
  EXPECT_TRUE(id.ok()) << id.status().message();
  return events;
}

// The events `read` gives to one sink per piece, joined in piece order;
// nullopt when it refused.
std::optional<std::vector<std::string>> Joined(size_t pieces,
                                               const std::function<bool(const std::vector<EventSink>&)>& read) {
  std::vector<std::vector<std::string>> per_piece(pieces);
  std::vector<EventSink> sinks;
  for (auto& events : per_piece) {
    sinks.push_back([&events](log::Event&& e) {
      events.push_back(Describe(e));
      return Status::Ok();
    });
  }
  if (!read(sinks)) return std::nullopt;
  std::vector<std::string> joined;
  for (auto& events : per_piece) joined.insert(joined.end(), events.begin(), events.end());
  return joined;
}

std::optional<std::vector<std::string>> Pieced(const EventSource& source, const std::vector<Piece>& pieces) {
  return Joined(pieces.size(), [&](const std::vector<EventSink>& sinks) { return source.ReadPieces(pieces, Any, sinks); });
}

std::optional<std::vector<std::string>> Pieced(const std::string& path, const std::vector<Piece>& pieces) {
  return Pieced(FileSource(path), pieces);
}

// A log of many turns: c06 (four turns) twenty times over, about 1.2 MB.
std::string ManyTurnsLog(const TempDir& dir) {
  const std::string path = dir.path() + "/many-turns.jsonl";
  WriteFile(path, retrace::testing::RepeatedLog(ReadFile(FixturePath("c06-errors-policy.jsonl")), 20));
  return path;
}

TEST(FilePiecesTest, CutsOnlyBeforeTurnStartLinesAndCoverTheFile) {
  TempDir dir;
  const std::string path = ManyTurnsLog(dir);
  const std::string text = ReadFile(path);
  const std::vector<Piece> pieces = FileCuts(path, 4, 1 << 16);
  ASSERT_EQ(pieces.size(), 4u);
  EXPECT_EQ(pieces.front().begin, 0);
  EXPECT_EQ(pieces.back().end, static_cast<int64_t>(text.size()));
  for (size_t i = 1; i < pieces.size(); ++i) {
    EXPECT_EQ(pieces[i].begin, pieces[i - 1].end);
    EXPECT_EQ(text.substr(pieces[i].begin, 20), "{\"type\":\"turn/start\"") << "piece " << i;
    EXPECT_EQ(text[pieces[i].begin - 1], '\n');
  }
}

TEST(FilePiecesTest, OnePieceWhenTheFileCannotBeCut) {
  TempDir dir;
  const std::string path = ManyTurnsLog(dir);
  EXPECT_EQ(FileCuts(path, 1, 1 << 16).size(), 1u);  // one thread
  EXPECT_EQ(FileCuts(path, 4, 1 << 30).size(), 1u);  // pieces would be too small
  EXPECT_EQ(FileCuts(FixturePath("s1-tools-inject.node22.jsonl.zstd"), 4, 1).size(), 1u);  // compressed
  EXPECT_EQ(FileCuts(FixturePath("c01-fs-read.jsonl"), 4, 1).size(), 1u);  // one turn: nowhere to cut
  EXPECT_EQ(FileSource(path).PlanPieces(4, {.min_piece_bytes = 1, .max_file_bytes = 1 << 16}).size(), 1u);  // too big
  EXPECT_FALSE(EventSource::File(dir.path() + "/missing.jsonl").ok());
}

TEST(FilePiecesTest, PiecesGiveExactlyTheEventsOfOneSequentialRead) {
  TempDir dir;
  std::vector<std::string> paths = {ManyTurnsLog(dir)};
  for (const std::string& fixture : retrace::testing::RawFixtures()) paths.push_back(FixturePath(fixture));
  for (const std::string& path : paths) {
    for (size_t max_pieces : {2, 3, 8}) {
      const std::vector<Piece> pieces = FileCuts(path, max_pieces, 1);
      if (path == paths.front()) {
        EXPECT_EQ(pieces.size(), max_pieces);
      }
      const auto pieced = Pieced(path, pieces);
      if (path.ends_with(".crashed.jsonl")) {  // a torn tail: the sequential read's to report
        EXPECT_FALSE(pieced.has_value());
        continue;
      }
      ASSERT_TRUE(pieced.has_value()) << path << " in " << pieces.size() << " pieces";
      EXPECT_EQ(*pieced, Sequential(path)) << path << " in " << pieces.size() << " pieces";
    }
  }
}

// Each of these is a log ReadFileEvents reads with its own rules (an issue
// ends the committed region, a later turn/end makes it corrupt): a piece
// cannot apply them alone, so the read in pieces refuses.
TEST(FilePiecesTest, RefusesWhatOnlyASequentialReadCanJudge) {
  TempDir dir;
  const std::string good = ReadFile(ManyTurnsLog(dir));
  const std::vector<std::string> lines = retrace::testing::Lines(good);
  auto write = [&](const std::string& name, const std::string& text) {
    WriteFile(dir.path() + "/" + name, text);
    return dir.path() + "/" + name;
  };
  auto join = [](const std::vector<std::string>& ls) {
    std::string out;
    for (const auto& l : ls) out += l + "\n";
    return out;
  };
  std::vector<std::string> unparsable = lines, gap = lines;
  unparsable[lines.size() - 30] = "{\"type\":\"step/end\",\"seq\":";  // deep in the last piece
  gap.erase(gap.end() - 30);
  const std::vector<std::string> logs = {
      write("unparsable.jsonl", join(unparsable)),
      write("gap.jsonl", join(gap)),
      write("torn.jsonl", good.substr(0, good.size() - 10)),
  };
  for (const std::string& path : logs) {
    const std::vector<Piece> pieces = FileCuts(path, 3, 1);
    ASSERT_GT(pieces.size(), 1u) << path;
    EXPECT_FALSE(Pieced(path, pieces).has_value()) << path;
  }
}

TEST(FilePiecesTest, RefusesWhenASinkFails) {
  TempDir dir;
  const std::string path = ManyTurnsLog(dir);
  const std::vector<Piece> pieces = FileCuts(path, 2, 1);
  ASSERT_EQ(pieces.size(), 2u);
  int events = 0;
  std::vector<EventSink> sinks = {
      [](log::Event&&) { return Status::Ok(); },
      [&](log::Event&&) { return ++events == 5 ? Status::IoError("disk full") : Status::Ok(); },
  };
  EXPECT_FALSE(FileSource(path).ReadPieces(pieces, Any, sinks));
}

// --- stored sessions ---

std::vector<std::string> StoredSequential(EventStore& store, const std::string& id) {
  std::vector<std::string> events;
  EXPECT_TRUE(ReadStoredEvents(store, id, Any, [&](log::Event&& e) {
                events.push_back(Describe(e));
                return Status::Ok();
              }).ok());
  return events;
}

EventSource StoredSource(const std::shared_ptr<EventStore>& store, const std::string& id) {
  auto source = EventSource::Stored(store, id);
  EXPECT_TRUE(source.ok()) << source.status().message();
  return std::move(source).value();
}

TEST(StoredPiecesTest, CutsAtTurnStartsAndGiveExactlyTheEventsOfOneSequentialRead) {
  TempDir dir;
  std::shared_ptr<EventStore> store = testing::OpenStoreOrDie(dir / "t.db");
  ASSERT_TRUE(ImportJsonl(*store, ManyTurnsLog(dir)).ok());
  const std::vector<std::string> whole = StoredSequential(*store, "c06-errors-policy");
  const int64_t events = store->NextSeq(store->SessionKey("c06-errors-policy").value()).value();
  const EventSource source = StoredSource(store, "c06-errors-policy");
  for (size_t max_pieces : {2, 3, 8, 80}) {
    const std::vector<Piece> cuts = source.PlanPieces(max_pieces, kAnySize);
    const std::vector<Piece>* pieces = &cuts;
    // Eighty cut points fall about one turn apart, and two may find the same turn start.
    if (max_pieces < 80) {
      ASSERT_EQ(pieces->size(), max_pieces);
    } else {
      ASSERT_GT(pieces->size(), 20u);
    }
    EXPECT_EQ(pieces->front().begin, 0);
    EXPECT_EQ(pieces->back().end, events);
    for (size_t i = 1; i < pieces->size(); ++i) {
      EXPECT_EQ((*pieces)[i].begin, (*pieces)[i - 1].end);
      std::string text;
      ASSERT_TRUE(store
                      ->ForEachEvent("c06-errors-policy", {(*pieces)[i].begin, std::nullopt},
                                     [&](const StoredEvent& e) {
                                       if (text.empty()) text = e.type;
                                       return Status::Ok();
                                     })
                      .ok());
      EXPECT_EQ(text, "turn/start") << "piece " << i;
    }
    EXPECT_EQ(Pieced(source, *pieces), whole) << max_pieces << " pieces";
  }
}

TEST(StoredPiecesTest, OnePieceWhenTheSessionCannotBeCutAndNotFoundForNoSession) {
  TempDir dir;
  std::shared_ptr<EventStore> store = testing::OpenStoreOrDie(dir / "t.db");
  ASSERT_TRUE(ImportJsonl(*store, FixturePath("c01-fs-read.jsonl")).ok());  // one turn
  ASSERT_TRUE(ImportJsonl(*store, ManyTurnsLog(dir)).ok());
  EXPECT_EQ(StoredSource(store, "c01-fs-read").PlanPieces(4, kAnySize).size(), 1u);
  const EventSource many = StoredSource(store, "c06-errors-policy");
  EXPECT_EQ(many.PlanPieces(1, kAnySize).size(), 1u);
  EXPECT_EQ(many.PlanPieces(4, {.min_piece_events = 1 << 20}).size(), 1u);  // pieces would be too small
  EXPECT_EQ(many.PlanPieces(4, {.min_piece_events = 1, .max_session_events = 10}).size(), 1u);  // too big
  EXPECT_EQ(EventSource::Stored(store, "nope").status().code(), Status::Code::kNotFound);
}

// Legacy shapes are upcast on read, and an upcaster may need earlier events:
// a piece after the first that holds one voids the read in pieces.
TEST(StoredPiecesTest, RefusesWhenALaterPieceNeedsAnUpcast) {
  TempDir dir;
  const std::string legacy = dir / "legacy.jsonl";
  WriteFile(legacy,
            retrace::testing::RepeatedLog(
                ReadFile(std::string(RETRACE_SOURCE_DIR) + "/tests/replay/corpus/legacy/s1-tools-inject.jsonl"), 3));
  std::shared_ptr<EventStore> store = testing::OpenStoreOrDie(dir / "t.db");
  ASSERT_TRUE(ImportJsonl(*store, legacy).ok());
  const EventSource source = StoredSource(store, "s1-tools-inject");
  const std::vector<Piece> pieces = source.PlanPieces(3, kAnySize);
  ASSERT_EQ(pieces.size(), 3u);
  EXPECT_FALSE(Pieced(source, pieces).has_value());
  EXPECT_EQ(Pieced(source, {{0, pieces.back().end}}), StoredSequential(*store, "s1-tools-inject"));
}

// --- what names a source ---

TEST(ResolveTest, AFileIsALogAnythingElseASessionAndEachMistakeIsNamed) {
  TempDir dir;
  const std::string db = dir / "t.db";
  {
    auto store = testing::OpenStoreOrDie(db);
    ASSERT_TRUE(ImportJsonl(*store, FixturePath("c01-fs-read.jsonl")).ok());
  }
  int opened = 0;
  auto open = [&]() -> Result<std::shared_ptr<EventStore>> {
    ++opened;
    ASSIGN_OR_RETURN(std::unique_ptr<EventStore> store, EventStore::Open(db));
    return std::shared_ptr<EventStore>(std::move(store));
  };
  auto file = EventSource::Resolve(FixturePath("c01-fs-read.jsonl"), open);
  ASSERT_TRUE(file.ok()) << file.status().message();
  EXPECT_TRUE(file->is_file());
  EXPECT_EQ(file->session_id(), "c01-fs-read");
  EXPECT_EQ(opened, 0);  // a log file needs no database
  auto stored = EventSource::Resolve("c01-fs-read", open);
  ASSERT_TRUE(stored.ok()) << stored.status().message();
  EXPECT_FALSE(stored->is_file());
  EXPECT_EQ(stored->label(), db + " c01-fs-read");
  EXPECT_EQ(opened, 1);
  // Both give the same events.
  std::vector<std::string> from_file, from_store;
  auto into = [](std::vector<std::string>& out) {
    return [&out](log::Event&& e) {
      out.push_back(Describe(e));
      return Status::Ok();
    };
  };
  ASSERT_TRUE(file->Read(Any, into(from_file)).ok());
  ASSERT_TRUE(stored->Read(Any, into(from_store)).ok());
  EXPECT_EQ(from_file, from_store);
  EXPECT_EQ(EventSource::Resolve(dir.path(), open).status().code(), Status::Code::kInvalidArgument);
  const auto database = EventSource::Resolve(db, open);
  EXPECT_EQ(database.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(database.status().message().find("is a database"), std::string::npos) << database.status().message();
  EXPECT_EQ(EventSource::Resolve(dir / "gone.jsonl", open).status().code(), Status::Code::kNotFound);
  EXPECT_EQ(EventSource::Resolve("no-such-session", open).status().code(), Status::Code::kNotFound);
  EXPECT_EQ(opened, 2);
}

TEST(ExpandTest, ADirectoryGivesItsLogsInPathOrderAndADatabaseItsSessionsInIdOrder) {
  TempDir dir;
  std::filesystem::create_directories(dir / "logs/sub");
  WriteFile(dir / "logs/sub/b.jsonl", ReadFile(FixturePath("c06-errors-policy.jsonl")));
  WriteFile(dir / "logs/a.jsonl", ReadFile(FixturePath("c01-fs-read.jsonl")));
  WriteFile(dir / "logs/notes.txt", "not a log");
  WriteFile(dir / "logs/broken.jsonl", "not json\n");
  auto logs = EventSource::Expand(dir / "logs");
  ASSERT_TRUE(logs.ok()) << logs.status().message();
  std::vector<std::string> labels;
  for (const EventSource& s : *logs) labels.push_back(s.label() + "=" + s.session_id());
  EXPECT_EQ(labels, (std::vector<std::string>{dir / "logs/a.jsonl=c01-fs-read", dir / "logs/broken.jsonl=",
                                              dir / "logs/sub/b.jsonl=c06-errors-policy"}));
  EXPECT_FALSE((*logs)[1].Read(Any, [](log::Event&&) { return Status::Ok(); }).ok());  // unreadable: its own error
  const std::string db = dir / "t.db";
  {
    auto store = testing::OpenStoreOrDie(db);
    ASSERT_TRUE(ImportJsonl(*store, FixturePath("c06-errors-policy.jsonl")).ok());
    ASSERT_TRUE(ImportJsonl(*store, FixturePath("c01-fs-read.jsonl")).ok());
  }
  auto sessions = EventSource::Expand(db);
  ASSERT_TRUE(sessions.ok()) << sessions.status().message();
  ASSERT_EQ(sessions->size(), 2u);
  EXPECT_EQ((*sessions)[0].session_id(), "c01-fs-read");
  EXPECT_EQ((*sessions)[1].session_id(), "c06-errors-policy");
  EXPECT_EQ(EventSource::Expand(dir / "nothing").status().code(), Status::Code::kNotFound);
}

}  // namespace
}  // namespace retrace::store
