// Search parity with the upstream dsh query service (dsh-session-query-sqlite
// on node:sqlite, Node 22): the same sessions, the same requests, the same
// hits in the same order with the same snippets, and the same error codes.
// Skipped, with the reason printed, when Node 22 and the packages are absent
// (bench/setup_upstream.sh installs them).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/json/parser.h"
#include "engine/json/writer.h"
#include "store/exporter.h"
#include "store/importer.h"
#include "query/search.h"
#include "tests/store/store_test_util.h"

namespace retrace::query {
namespace {

using json::Value;
using store::testing::OpenStoreOrDie;
using testing::TempDir;

struct Request {
  std::string query{};
  std::string session{};  // "" = across sessions
  int64_t limit = 20;
  std::vector<std::string> types{}, surfaces{};
};

Value RequestJson(const Request& r) {
  Value v = Value::MakeObject({{"query", r.query}, {"limit", r.limit}});
  if (!r.session.empty()) v.Set("sessionId", r.session);
  auto list = [](const std::vector<std::string>& xs) {
    Value::Array a;
    for (const auto& x : xs) a.emplace_back(x);
    return Value(std::move(a));
  };
  if (!r.types.empty()) v.Set("types", list(r.types));
  if (!r.surfaces.empty()) v.Set("surfaces", list(r.surfaces));
  return v;
}

// What upstream prints for one request: its hits, or its error code.
std::string Ours(ReadOnlyDb& db, const Request& r) {
  SearchRequest s{.query = r.query, .types = r.types, .surfaces = r.surfaces, .limit = r.limit};
  if (!r.session.empty()) s.session = r.session;
  auto page = Search(db, s);
  if (!page.ok()) {
    const std::string& m = page.status().message();
    return "error " + m.substr(0, m.find(':'));
  }
  Value::Array hits;
  for (const SearchHit& h : page->hits) {
    hits.push_back(Value::MakeObject({{"sessionId", h.session_id},
                                      {"seq", h.seq},
                                      {"type", h.type},
                                      {"surface", h.surface},
                                      {"snippet", h.snippet}}));
  }
  return json::Serialize(Value(std::move(hits)));
}

TEST(SearchParityTest, SameHitsOrderSnippetsAndErrorsAsTheUpstreamQueryService) {
  const std::string upstream = retrace::testing::UpstreamDir({"dsh-session-query-sqlite", "dsh-session-title"});
  if (upstream.empty()) GTEST_SKIP() << "Node 22 or dsh-session-query-sqlite missing (run bench/setup_upstream.sh)";
  TempDir dir;
  {
    auto store = OpenStoreOrDie(dir / "s.db");
    for (const std::string& f :
         {testing::FixturePath("c01-fs-read.jsonl"), testing::FixturePath("c04-bash-jobs.jsonl"),
          testing::FixturePath("c06-errors-policy.jsonl"), testing::FixturePath("s1-tools-inject.jsonl"),
          testing::FixturePath("s2-interrupted-tool.repaired-resumed.jsonl"),
          std::string(RETRACE_SOURCE_DIR) + "/tests/store/testdata/compacted.jsonl"}) {
      auto report = store::ImportJsonl(*store, f);
      ASSERT_TRUE(report.ok()) << f;
      ASSERT_TRUE(store::ExportToDshRoot(*store, report->session_id, false, dir / "root").ok());
    }
    ASSERT_TRUE(store->CatchUpSearchIndex().ok());
  }
  const std::vector<Request> requests = {
      {"error"},
      {"Error"},
      {"read"},
      {"src math ts"},
      {"unknown tool"},
      {"tool call aborted"},
      {"  exit \n code "},
      {"err*"},
      {"error OR nothing"},
      {"\"quoted\" phrase"},
      {"interrupted"},
      {"completed"},
      {"system-reminder"},
      {"file_path"},
      {"NEAR(error offset)"},
      {"error", "c06-errors-policy"},
      {"error", "c06-errors-policy", 3},
      {"read", "c01-fs-read", 5, {"tool/call"}},
      {"read", "c01-fs-read", 100, {}, {"log-only"}},
      {"bash", "", 20, {"tool/result", "assistant/message"}},
      {"the", "c04-bash-jobs", 100},
      {"src", "c01-fs-read", 100},
      {"job", "c04-bash-jobs", 100},
      {"error", "c06-errors-policy", 100, {}, {"current", "log-only"}},
      {"request"},
      {"request", "compacted", 20, {}, {"shadowed"}},
      {"summary", "", 20, {"user/message"}, {"current"}},
      {"a", "", 100},
      {"error", "", 0},
      {"error", "", 101},
      {"   "},
      {"error", "no-such-session"},
  };
  Value::Array all;
  for (const Request& r : requests) all.push_back(RequestJson(r));
  auto theirs = store::testing::RunUpstreamQueries(upstream, dir, Value(std::move(all)));
  ASSERT_TRUE(theirs.ok()) << theirs.status().message();
  const Value* results = theirs->Find("results");
  ASSERT_TRUE(results && results->is_array() && results->as_array().size() == requests.size());
  auto db = ReadOnlyDb::Open(dir / "s.db");
  ASSERT_TRUE(db.ok());
  int compared_hits = 0;
  for (size_t i = 0; i < requests.size(); ++i) {
    const Value& r = results->as_array()[i];
    const Value* error = r.Find("error");
    const std::string expected = error ? "error " + error->as_string() : json::Serialize(*r.Find("hits"));
    EXPECT_EQ(Ours(*db, requests[i]), expected) << "request " << i << ": " << json::Serialize(RequestJson(requests[i]));
    if (!error) compared_hits += static_cast<int>(r.Find("hits")->as_array().size());
  }
  EXPECT_GT(compared_hits, 100);
}

}  // namespace
}  // namespace retrace::query
