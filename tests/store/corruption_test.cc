// Bad input: each case gets a precise error (what, which file, which line or
// seq) and leaves the database exactly as it was.
#include <gtest/gtest.h>

#include "store/migrations.h"
#include "store/importer.h"
#include "format/zstd_frames.h"
#include "tests/store/store_test_util.h"

namespace retrace::store {
namespace {

using namespace retrace::store::testing;
using ::testing::HasSubstr;

class CorruptionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = dir_ / "c.db";
    auto store = OpenStoreOrDie(db_);
    ASSERT_TRUE(ImportJsonl(*store, FixturePath("c04-bash-jobs.jsonl")).ok());
    before_ = Fingerprint(db_);
  }

  // Imports `bytes` as a file named `name`; expects a refusal and no change.
  Status Refuse(const std::string& name, const std::string& bytes) {
    const std::string path = dir_ / name;
    WriteFile(path, bytes);
    auto store = EventStore::Open(db_);
    EXPECT_TRUE(store.ok()) << store.status().message();
    if (!store.ok()) return store.status();
    auto report = ImportJsonl(**store, path);
    EXPECT_FALSE(report.ok()) << name << " was accepted";
    EXPECT_EQ(Fingerprint(db_), before_) << name << " changed the database";
    return report.ok() ? Status::Ok() : report.status();
  }

  std::string S1() const { return ReadFile(FixturePath("s1-tools-inject.jsonl")); }

  TempDir dir_;
  std::string db_;
  std::string before_;
};

TEST_F(CorruptionTest, SeqGapBeforeTheLastTurnEnd) {
  auto lines = retrace::testing::Lines(S1());
  lines.erase(lines.begin() + 9);  // drop file line 10 (seq 8 region)
  std::string text;
  for (const auto& l : lines) text += l + "\n";
  Status st = Refuse("gap.jsonl", text);
  EXPECT_EQ(st.code(), Status::Code::kCorruption);
  EXPECT_THAT(st.message(), HasSubstr(dir_ / "gap.jsonl:10: corrupt session log: seq gap in committed region at line 9"));
  EXPECT_THAT(st.message(), HasSubstr("later turn/end"));
}

TEST_F(CorruptionTest, UnknownNonIgnorableEventType) {
  const std::string line3 = retrace::testing::Lines(S1())[2];
  std::string bad = line3;
  bad.replace(bad.find("turn/start"), 10, "future/evt");
  Status st = Refuse("unknown.jsonl", WithLine(S1(), 3, bad));
  EXPECT_THAT(st.message(), HasSubstr("unknown.jsonl:3"));
  EXPECT_THAT(st.message(), HasSubstr("contains event type \"future/evt\" (seq 1) unknown to this harness"));
}

TEST_F(CorruptionTest, HeaderVersionOne) {
  std::string header = retrace::testing::Lines(S1())[0];
  header.replace(header.find("\"version\":0"), 11, "\"version\":1");
  Status st = Refuse("v1.jsonl", WithLine(S1(), 1, header));
  EXPECT_EQ(st.code(), Status::Code::kUnsupported);
  EXPECT_THAT(st.message(), HasSubstr("session \"s1-tools-inject\" uses log format v1, but this harness reads only v0"));
  EXPECT_THAT(st.message(), HasSubstr("(raw log: " + dir_ / "v1.jsonl)"));
}

TEST_F(CorruptionTest, MalformedPackedRowBeforeATurnEnd) {
  auto lines = retrace::testing::Lines(S1());
  size_t n = 0;
  while (lines[n].find("\"type\":\"text-chunks\"") == std::string::npos) ++n;
  std::string bad = lines[n];
  bad.replace(bad.find("\"dt\":["), 6, "\"dt\":[1,");  // one dt too many
  Status st = Refuse("row.jsonl", WithLine(S1(), n + 1, bad));
  EXPECT_THAT(st.message(), HasSubstr("row.jsonl:" + std::to_string(n + 1)));
  EXPECT_THAT(st.message(), HasSubstr("malformed text-chunks storage row: dt length"));
}

TEST_F(CorruptionTest, ExtraEnvelopeKey) {
  std::string bad = retrace::testing::Lines(S1())[2];
  bad.insert(bad.size() - 1, ",\"extra\":1");
  Status st = Refuse("extra.jsonl", WithLine(S1(), 3, bad));
  EXPECT_THAT(st.message(), HasSubstr("extra.jsonl:3: event at seq 1 has an invalid event envelope: unknown envelope key \"extra\""));
}

TEST_F(CorruptionTest, TruncatedZstdFrameInTheMiddle) {
  const auto lines = retrace::testing::Lines(S1());
  std::string a, b;
  for (size_t i = 1; i < lines.size(); ++i) (i < 20 ? a : b) += lines[i] + "\n";
  const std::string f1 = *format::CompressFrame(lines[0] + "\n"), f2 = *format::CompressFrame(a), f3 = *format::CompressFrame(b);
  Status st = Refuse("mid.jsonl.zstd", f1 + f2.substr(0, f2.size() - 9) + f3);
  EXPECT_EQ(st.code(), Status::Code::kCorruption);
  EXPECT_THAT(st.message(), HasSubstr("mid.jsonl.zstd"));
  EXPECT_THAT(st.message(), HasSubstr("corrupt Zstandard session log: frame at byte " + std::to_string(f1.size())));
}

TEST_F(CorruptionTest, CorruptedZstdChecksum) {
  const auto lines = retrace::testing::Lines(S1());
  std::string rest;
  for (size_t i = 1; i < lines.size(); ++i) rest += lines[i] + "\n";
  const std::string f1 = *format::CompressFrame(lines[0] + "\n");
  std::string f2 = *format::CompressFrame(rest);
  f2[f2.size() - 2] ^= 0x5A;  // inside the XXH64 content checksum
  Status st = Refuse("sum.jsonl.zstd", f1 + f2);
  EXPECT_THAT(st.message(), HasSubstr("frame at byte " + std::to_string(f1.size()) + " failed validation"));
}

TEST_F(CorruptionTest, EmptyFile) {
  Status st = Refuse("empty.jsonl", "");
  EXPECT_THAT(st.message(), HasSubstr("empty.jsonl: empty file"));
}

TEST_F(CorruptionTest, ADeviceIsNotADshLogNotAnEmptyFile) {
  // /dev/zero has no size, and NULs without end: it is named for what it is, at once.
  auto store = EventStore::Open(db_);
  ASSERT_TRUE(store.ok());
  auto report = ImportJsonl(**store, "/dev/zero");
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), Status::Code::kCorruption);
  EXPECT_THAT(report.status().message(), HasSubstr("/dev/zero: not a dsh log (a character device"));
  EXPECT_EQ(Fingerprint(db_), before_);
}

TEST_F(CorruptionTest, NulBytesAreNotADshLog) {
  Status st = Refuse("zeros.jsonl", std::string(1 << 20, '\0'));
  EXPECT_THAT(st.message(), HasSubstr("zeros.jsonl:1: corrupt session log: header line is not valid JSON"));
}

TEST_F(CorruptionTest, BinaryFile) {
  std::string bytes = "\x89PNG\r\n\x1a\n";
  for (int i = 0; i < 512; ++i) bytes += static_cast<char>((i * 37) & 0xff);
  Status st = Refuse("image.jsonl", bytes);
  EXPECT_THAT(st.message(), HasSubstr("image.jsonl:1: corrupt session log: header line is not valid JSON"));
}

TEST_F(CorruptionTest, HeaderOnlyWithoutNewline) {
  Status st = Refuse("headless.jsonl", retrace::testing::Lines(S1())[0]);
  EXPECT_THAT(st.message(), HasSubstr("empty or header-less session log"));
}

TEST_F(CorruptionTest, NonContiguousAppendToAnExistingSession) {
  // c04 is stored; a different c04 history at the same seqs is a conflict.
  std::string text = ReadFile(FixturePath("c04-bash-jobs.jsonl"));
  const std::string line3 = retrace::testing::Lines(text)[2];
  std::string changed = line3;
  changed.replace(changed.find("\"time\":"), 7, "\"time\":1");
  Status st = Refuse("c04-other.jsonl", WithLine(text, 3, changed));
  EXPECT_EQ(st.code(), Status::Code::kConflict);
  EXPECT_THAT(st.message(), HasSubstr("c04-other.jsonl:3"));
}

TEST_F(CorruptionTest, DeeplyNestedToolResultMetaImportsWithoutCrashing) {
  // A valid log whose tool/result meta nests 200k levels (simdjson refuses
  // more than 1024; the reference parser takes over). Import, fingerprinting
  // and export must not recurse on it.
  auto lines = retrace::testing::Lines(S1());
  size_t n = 0;
  while (lines[n].find("\"type\":\"tool/result\"") == std::string::npos) ++n;
  std::string deep;
  for (int i = 0; i < 200000; ++i) deep += "[";
  for (int i = 0; i < 200000; ++i) deep += "]";
  std::string line = lines[n];
  line.replace(line.find("\"meta\":{"), 8, "\"meta\":{\"deep\":" + deep + ",");
  std::string text;
  for (size_t i = 0; i < lines.size(); ++i) text += (i == n ? line : lines[i]) + "\n";
  WriteFile(dir_ / "deep.jsonl", text);
  auto store = EventStore::Open(dir_ / "deep.db");
  ASSERT_TRUE(store.ok());
  auto report = ImportJsonl(**store, dir_ / "deep.jsonl");
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->events_added, 92);
}

TEST(StoredRowCorruptionTest, APackedRowHoldingFewerEventsThanItsCountIsCorruptionNotACrash) {
  TempDir dir;
  auto store = OpenStoreOrDie(dir / "p.db");
  ASSERT_TRUE(ImportJsonl(*store, FixturePath("c01-fs-read.jsonl")).ok());
  // Tamper behind the store's back: the first packed row becomes the last
  // row and claims five more events than its text holds.
  Db raw = RawDb(store->path());
  ASSERT_TRUE(raw.Exec("DELETE FROM events WHERE event_id >"
                               " (SELECT min(event_id) FROM events WHERE packed IS NOT NULL);"
                               "UPDATE events SET count = count + 5 WHERE event_id ="
                               " (SELECT min(event_id) FROM events WHERE packed IS NOT NULL)").ok());
  auto st = Statement::Prepare(raw, "SELECT seq + count - 1 FROM events WHERE packed IS NOT NULL ORDER BY event_id LIMIT 1");
  ASSERT_TRUE(st.ok());
  ASSERT_TRUE(*st->Step());
  const int64_t last_claimed = st->Int(0);
  Result<std::string> text = store->EventText(1, last_claimed);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().code(), Status::Code::kCorruption);
  EXPECT_THAT(text.status().message(), HasSubstr("its count column says"));
}

TEST(DatabaseRefusalTest, DatabaseFromANewerRetraceIsRefusedUnchanged) {
  TempDir dir;
  { auto store = OpenStoreOrDie(dir / "n.db"); }
  {
    auto db = Db::Open(dir / "n.db", Db::Mode::kReadWrite);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(db->Exec("PRAGMA user_version = 99").ok());
  }
  const std::string before = Fingerprint(dir / "n.db");
  auto store = EventStore::Open(dir / "n.db");
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), Status::Code::kUnsupported);
  const std::string known = std::to_string(EmbeddedMigrations().size());
  EXPECT_THAT(store.status().message(), HasSubstr("has schema version 99, newer than this retrace supports (" + known + ")"));
  EXPECT_EQ(Fingerprint(dir / "n.db"), before);
}

TEST(DatabaseRefusalTest, ForeignSqliteFileIsRefusedAndNeverModified) {
  TempDir dir;
  {
    auto db = Db::Open(dir / "f.db", Db::Mode::kReadWriteCreate);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(db->Exec("CREATE TABLE notes(x TEXT); INSERT INTO notes VALUES('mine')").ok());
  }
  const std::string bytes = ReadFile(dir / "f.db");
  auto store = EventStore::Open(dir / "f.db");
  ASSERT_FALSE(store.ok());
  EXPECT_THAT(store.status().message(), HasSubstr("is not a retrace database (application_id 0x00000000, holds other tables)"));
  EXPECT_EQ(ReadFile(dir / "f.db"), bytes);
  EXPECT_FALSE(std::filesystem::exists(dir / "f.db-wal"));
}

TEST(DatabaseRefusalTest, NonSqliteFileIsRefusedAndNeverModified) {
  TempDir dir;
  WriteFile(dir / "t.db", "this is a text file, not a database\n");
  auto store = EventStore::Open(dir / "t.db");
  ASSERT_FALSE(store.ok());
  EXPECT_THAT(store.status().message(), HasSubstr("is not a retrace database (not an SQLite file"));
  EXPECT_EQ(ReadFile(dir / "t.db"), "this is a text file, not a database\n");
}

TEST(DatabaseRefusalTest, ADatabaseTruncatedAtAnyPageBoundaryIsRefusedAndNeverRepaired) {
  // A whole database cut short at every page (as a bad copy or a full disk
  // leaves it, its WAL checkpointed first): refused as damaged, the file left
  // byte for byte as it was, never opened as a smaller, different database.
  TempDir dir;
  const std::string whole = dir / "whole.db";
  {
    auto store = OpenStoreOrDie(whole);
    for (const char* f : {"c01-fs-read.jsonl", "c04-bash-jobs.jsonl", "c06-errors-policy.jsonl", "s1-tools-inject.jsonl"})
      ASSERT_TRUE(ImportJsonl(*store, FixturePath(f)).ok()) << f;
  }
  ASSERT_FALSE(std::filesystem::exists(whole + "-wal")) << "the last close checkpoints the WAL";
  const std::string bytes = ReadFile(whole);
  const size_t pages = bytes.size() / kPageSize;
  ASSERT_GT(pages, 10u);
  for (size_t kept = 1; kept < pages; ++kept) {
    const std::string cut = dir / ("cut" + std::to_string(kept) + ".db");
    WriteFile(cut, bytes.substr(0, kept * kPageSize));
    auto store = EventStore::Open(cut, {.create = false});
    ASSERT_FALSE(store.ok()) << "a database cut to " << kept << " of " << pages << " pages was opened";
    EXPECT_EQ(store.status().code(), Status::Code::kCorruption) << store.status().message();
    EXPECT_THAT(store.status().message(), HasSubstr("is a damaged SQLite file")) << kept << " pages";
    EXPECT_EQ(ReadFile(cut), bytes.substr(0, kept * kPageSize)) << kept << " pages: the file was changed";
    EXPECT_FALSE(std::filesystem::exists(cut + "-wal"));
  }
}

}  // namespace
}  // namespace retrace::store
