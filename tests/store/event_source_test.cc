// Reading a log file in pieces on several threads (event_source.h): where the
// cuts fall, and that the pieces give exactly ReadFileEvents' events or
// nothing at all.
#include "store/event_source.h"

#include <gtest/gtest.h>

#include <functional>

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

std::optional<std::vector<std::string>> Pieced(const std::string& path, const std::vector<FilePiece>& pieces) {
  return Joined(pieces.size(), [&](const std::vector<EventSink>& sinks) {
    return ReadFilePieces(path, pieces, Any, sinks).has_value();
  });
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
  const std::vector<FilePiece> pieces = PlanFilePieces(path, 4, 1 << 16);
  ASSERT_EQ(pieces.size(), 4u);
  EXPECT_EQ(pieces.front().begin, 0u);
  EXPECT_EQ(pieces.back().end, text.size());
  for (size_t i = 1; i < pieces.size(); ++i) {
    EXPECT_EQ(pieces[i].begin, pieces[i - 1].end);
    EXPECT_EQ(text.substr(pieces[i].begin, 20), "{\"type\":\"turn/start\"") << "piece " << i;
    EXPECT_EQ(text[pieces[i].begin - 1], '\n');
  }
}

TEST(FilePiecesTest, OnePieceWhenTheFileCannotBeCut) {
  TempDir dir;
  const std::string path = ManyTurnsLog(dir);
  EXPECT_EQ(PlanFilePieces(path, 1, 1 << 16).size(), 1u);  // one thread
  EXPECT_EQ(PlanFilePieces(path, 4, 1 << 30).size(), 1u);  // pieces would be too small
  EXPECT_EQ(PlanFilePieces(FixturePath("s1-tools-inject.node22.jsonl.zstd"), 4, 1).size(), 1u);  // compressed
  EXPECT_EQ(PlanFilePieces(FixturePath("c01-fs-read.jsonl"), 4, 1).size(), 1u);  // one turn: nowhere to cut
  EXPECT_TRUE(PlanFilePieces(dir.path() + "/missing.jsonl", 4, 1).empty());
}

TEST(FilePiecesTest, PiecesGiveExactlyTheEventsOfOneSequentialRead) {
  TempDir dir;
  std::vector<std::string> paths = {ManyTurnsLog(dir)};
  for (const std::string& fixture : retrace::testing::RawFixtures()) paths.push_back(FixturePath(fixture));
  for (const std::string& path : paths) {
    for (size_t max_pieces : {2, 3, 8}) {
      const std::vector<FilePiece> pieces = PlanFilePieces(path, max_pieces, 1);
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
    const std::vector<FilePiece> pieces = PlanFilePieces(path, 3, 1);
    ASSERT_GT(pieces.size(), 1u) << path;
    EXPECT_FALSE(Pieced(path, pieces).has_value()) << path;
  }
}

TEST(FilePiecesTest, RefusesWhenASinkFails) {
  TempDir dir;
  const std::string path = ManyTurnsLog(dir);
  const std::vector<FilePiece> pieces = PlanFilePieces(path, 2, 1);
  ASSERT_EQ(pieces.size(), 2u);
  int events = 0;
  std::vector<EventSink> sinks = {
      [](log::Event&&) { return Status::Ok(); },
      [&](log::Event&&) { return ++events == 5 ? Status::IoError("disk full") : Status::Ok(); },
  };
  EXPECT_FALSE(ReadFilePieces(path, pieces, Any, sinks).has_value());
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

std::optional<std::vector<std::string>> StoredPieced(EventStore& store, const std::string& id,
                                                     const std::vector<SeqRange>& pieces) {
  return Joined(pieces.size(),
                [&](const std::vector<EventSink>& sinks) { return ReadStoredPieces(store, id, pieces, Any, sinks); });
}

TEST(StoredPiecesTest, CutsAtTurnStartsAndGiveExactlyTheEventsOfOneSequentialRead) {
  TempDir dir;
  auto store = testing::OpenStoreOrDie(dir / "t.db");
  ASSERT_TRUE(ImportJsonl(*store, ManyTurnsLog(dir)).ok());
  const std::vector<std::string> whole = StoredSequential(*store, "c06-errors-policy");
  const int64_t events = store->NextSeq(store->SessionKey("c06-errors-policy").value()).value();
  for (size_t max_pieces : {2, 3, 8, 80}) {
    auto pieces = PlanStoredPieces(*store, "c06-errors-policy", max_pieces, 1);
    ASSERT_TRUE(pieces.ok()) << pieces.status().message();
    // Eighty cut points fall about one turn apart, and two may find the same turn start.
    if (max_pieces < 80) {
      ASSERT_EQ(pieces->size(), max_pieces);
    } else {
      ASSERT_GT(pieces->size(), 20u);
    }
    EXPECT_EQ(pieces->front().from, 0);
    EXPECT_EQ(pieces->back().to, events);
    for (size_t i = 1; i < pieces->size(); ++i) {
      EXPECT_EQ((*pieces)[i].from, (*pieces)[i - 1].to);
      std::string text;
      ASSERT_TRUE(store
                      ->ForEachEvent("c06-errors-policy", {(*pieces)[i].from, std::nullopt},
                                     [&](const StoredEvent& e) {
                                       if (text.empty()) text = e.type;
                                       return Status::Ok();
                                     })
                      .ok());
      EXPECT_EQ(text, "turn/start") << "piece " << i;
    }
    EXPECT_EQ(StoredPieced(*store, "c06-errors-policy", *pieces), whole) << max_pieces << " pieces";
  }
}

TEST(StoredPiecesTest, OnePieceWhenTheSessionCannotBeCutAndNotFoundForNoSession) {
  TempDir dir;
  auto store = testing::OpenStoreOrDie(dir / "t.db");
  ASSERT_TRUE(ImportJsonl(*store, FixturePath("c01-fs-read.jsonl")).ok());  // one turn
  ASSERT_TRUE(ImportJsonl(*store, ManyTurnsLog(dir)).ok());
  EXPECT_EQ(PlanStoredPieces(*store, "c01-fs-read", 4, 1)->size(), 1u);
  EXPECT_EQ(PlanStoredPieces(*store, "c06-errors-policy", 1, 1)->size(), 1u);
  EXPECT_EQ(PlanStoredPieces(*store, "c06-errors-policy", 4, 1 << 20)->size(), 1u);  // pieces would be too small
  EXPECT_EQ(PlanStoredPieces(*store, "nope", 4, 1).status().code(), Status::Code::kNotFound);
}

// Legacy shapes are upcast on read, and an upcaster may need earlier events:
// a piece after the first that holds one voids the read in pieces.
TEST(StoredPiecesTest, RefusesWhenALaterPieceNeedsAnUpcast) {
  TempDir dir;
  const std::string legacy = dir / "legacy.jsonl";
  WriteFile(legacy,
            retrace::testing::RepeatedLog(
                ReadFile(std::string(RETRACE_SOURCE_DIR) + "/tests/replay/corpus/legacy/s1-tools-inject.jsonl"), 3));
  auto store = testing::OpenStoreOrDie(dir / "t.db");
  ASSERT_TRUE(ImportJsonl(*store, legacy).ok());
  auto pieces = PlanStoredPieces(*store, "s1-tools-inject", 3, 1);
  ASSERT_TRUE(pieces.ok());
  ASSERT_EQ(pieces->size(), 3u);
  EXPECT_FALSE(StoredPieced(*store, "s1-tools-inject", *pieces).has_value());
  EXPECT_EQ(StoredPieced(*store, "s1-tools-inject", {{0, pieces->back().to}}),
            StoredSequential(*store, "s1-tools-inject"));
}

}  // namespace
}  // namespace retrace::store
