// Exact reads (show, trace, lineage): dsh §10.1's rules, and parity with the
// upstream query service's readEvent / traceEvent / traceSession.
#include "query/exact_reads.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/json/parser.h"
#include "engine/json/writer.h"
#include "store/exporter.h"
#include "store/importer.h"
#include "tests/store/store_test_util.h"

namespace retrace::query {
namespace {

using json::Value;
using ::testing::StartsWith;
using store::testing::OpenStoreOrDie;
using testing::TempDir;

std::string TestData(const std::string& name) { return std::string(RETRACE_SOURCE_DIR) + "/tests/store/testdata/" + name; }

class ExactReadsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = OpenStoreOrDie(dir_ / "s.db");
    for (const std::string& f : {TestData("compacted.jsonl"), TestData("child.jsonl"), TestData("orphan.jsonl"),
                                 testing::FixturePath("c06-errors-policy.jsonl"), testing::FixturePath("s1-tools-inject.jsonl")}) {
      auto report = store::ImportJsonl(*store_, f);
      ASSERT_TRUE(report.ok()) << f << ": " << report.status().message();
      ids_.push_back(report->session_id);
    }
  }
  TempDir dir_;
  std::unique_ptr<store::EventStore> store_;
  std::vector<std::string> ids_;
};

std::string Seqs(const Value& v) { return json::Serialize(v); }

TEST_F(ExactReadsTest, TraceFollowsACompactionBothWays) {
  auto shadowed = TraceEvent(*store_, "compacted", 2);
  ASSERT_TRUE(shadowed.ok()) << shadowed.status().message();
  EXPECT_EQ(shadowed->Find("target")->Find("surface")->as_string(), "shadowed");
  EXPECT_EQ(Seqs(*shadowed->Find("replacementChain")), "[6]");
  EXPECT_EQ(Seqs(*shadowed->Find("derivedEventSeqs")), "[6]");
  auto replacer = TraceEvent(*store_, "compacted", 6);
  ASSERT_TRUE(replacer.ok());
  EXPECT_EQ(replacer->Find("replacedBy"), nullptr);
  EXPECT_EQ(Seqs(*replacer->Find("replacedEventSeqs")), "[2,3]");
  EXPECT_EQ(Seqs(*replacer->Find("sourceEventSeqs")), "[4,5,2,3]");
}

TEST_F(ExactReadsTest, AReplacementsRowHoldingANonIntegerSeqIsCorruption) {
  // Its seqs were cast to int64 unchecked: a string threw, 1e300 was undefined.
  for (const char* seqs : {R"([2,"x"])", "[2,1e300]"}) {
    ASSERT_TRUE(store::testing::RawDb(store_->path())
                    .Exec(std::string("UPDATE replacements SET shadowed_seqs = '") + seqs + "' WHERE seq = 6")
                    .ok());
    auto traced = TraceEvent(*store_, "compacted", 2);
    ASSERT_FALSE(traced.ok()) << seqs;
    EXPECT_EQ(traced.status().code(), Status::Code::kCorruption);
    EXPECT_THAT(traced.status().message(), ::testing::HasSubstr("replacements row at seq 6 holds a seq that is not an integer"));
  }
}

TEST_F(ExactReadsTest, WindowsAreBoundedAndMissingThingsAreNamed) {
  auto window = ReadEventWindow(*store_, "compacted", 1, 5, 2);
  ASSERT_TRUE(window.ok());
  EXPECT_EQ(window->Find("startSeq")->as_number(), 0);
  EXPECT_EQ(window->Find("endSeq")->as_number(), 3);
  EXPECT_EQ(window->Find("events")->as_array().size(), 4u);
  EXPECT_THAT(ReadEventWindow(*store_, "compacted", 1, 51, 0).status().message(), StartsWith("SESSION_QUERY_INVALID_WINDOW"));
  EXPECT_THAT(ReadEventWindow(*store_, "compacted", 1, 0, -1).status().message(), StartsWith("SESSION_QUERY_INVALID_WINDOW"));
  EXPECT_THAT(ReadEventWindow(*store_, "compacted", 99, 0, 0).status().message(), StartsWith("SESSION_QUERY_EVENT_NOT_FOUND"));
  EXPECT_THAT(TraceEvent(*store_, "nope", 0).status().message(), StartsWith("SESSION_QUERY_SESSION_NOT_FOUND"));
  EXPECT_THAT(TraceLineage(*store_, "nope").status().message(), StartsWith("SESSION_QUERY_SESSION_NOT_FOUND"));
}

TEST_F(ExactReadsTest, LineageNamesParentsForksAndAMissingParent) {
  auto child = TraceLineage(*store_, "child");
  ASSERT_TRUE(child.ok());
  EXPECT_TRUE(child->Find("complete")->as_bool());
  EXPECT_EQ(child->Find("root")->Find("header")->Find("id")->as_string(), "compacted");
  auto parent = TraceLineage(*store_, "compacted");
  ASSERT_TRUE(parent.ok());
  ASSERT_EQ(parent->Find("descendants")->as_array().size(), 1u);
  auto orphan = TraceLineage(*store_, "orphan");
  ASSERT_TRUE(orphan.ok());
  EXPECT_FALSE(orphan->Find("complete")->as_bool());
  EXPECT_EQ(orphan->Find("unresolvedParentId")->as_string(), "gone");
}

TEST_F(ExactReadsTest, SameResultsAsTheUpstreamQueryService) {
  const std::string upstream = retrace::testing::UpstreamDir({"dsh-session-query-sqlite", "dsh-session-title"});
  if (upstream.empty()) GTEST_SKIP() << "Node 22 or dsh-session-query-sqlite missing (run bench/setup_upstream.sh)";
  for (const std::string& id : ids_) ASSERT_TRUE(store::ExportToDshRoot(*store_, id, false, dir_ / "root").ok()) << id;
  struct Read {
    std::string op, session;
    int64_t seq = 0, before = 0, after = 0;
  };
  const std::vector<Read> reads = {
      {"traceEvent", "compacted", 2},     {"traceEvent", "compacted", 3},     {"traceEvent", "compacted", 6},
      {"traceEvent", "compacted", 0},     {"traceEvent", "c06-errors-policy", 107},
      {"traceEvent", "c06-errors-policy", 108}, {"traceEvent", "s1-tools-inject", 39},
      {"readEvent", "compacted", 3, 1, 1}, {"readEvent", "compacted", 0, 50, 50},
      {"readEvent", "c06-errors-policy", 110, 2, 3}, {"readEvent", "compacted", 3, 51, 0},
      {"readEvent", "compacted", 42},     {"traceEvent", "nope", 0},
      {"traceSession", "compacted"},      {"traceSession", "child"},          {"traceSession", "orphan"},
      {"traceSession", "s1-tools-inject"},
  };
  Value::Array requests;
  for (const Read& r : reads) {
    Value v = Value::MakeObject({{"op", r.op}, {"sessionId", r.session}});
    if (r.op != "traceSession") v.Set("seq", r.seq);
    if (r.op == "readEvent") {
      v.Set("before", r.before);
      v.Set("after", r.after);
    }
    requests.push_back(std::move(v));
  }
  auto theirs = store::testing::RunUpstreamQueries(upstream, dir_, Value(std::move(requests)));
  ASSERT_TRUE(theirs.ok()) << theirs.status().message();
  const auto& results = theirs->Find("results")->as_array();
  ASSERT_EQ(results.size(), reads.size());
  for (size_t i = 0; i < reads.size(); ++i) {
    const Read& r = reads[i];
    Result<Value> ours = r.op == "traceEvent"  ? TraceEvent(*store_, r.session, r.seq)
                         : r.op == "readEvent" ? ReadEventWindow(*store_, r.session, r.seq, r.before, r.after)
                                               : TraceLineage(*store_, r.session);
    const Value* error = results[i].Find("error");
    const std::string mine = ours.ok() ? json::Serialize(*ours) : "error " + ours.status().message().substr(0, ours.status().message().find(':'));
    EXPECT_EQ(mine, error ? "error " + error->as_string() : json::Serialize(*results[i].Find("result")))
        << r.op << " " << r.session << " " << r.seq;
  }
}

}  // namespace
}  // namespace retrace::query
