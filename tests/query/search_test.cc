// Full-text search: dsh §10.3's query, ranking, snippet, cursor and limit rules.
#include "query/search.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <tuple>

#include "store/importer.h"
#include "tests/store/store_test_util.h"

namespace retrace::query {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using store::testing::OpenStoreOrDie;
using testing::TempDir;

class SearchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = OpenStoreOrDie(dir_ / "s.db");
    for (const char* f : {"c01-fs-read.jsonl", "c04-bash-jobs.jsonl", "c06-errors-policy.jsonl"})
      ASSERT_TRUE(store::ImportJsonl(*store, testing::FixturePath(f)).ok()) << f;
    ASSERT_TRUE(store->CatchUpSearchIndex().ok());
  }
  ReadOnlyDb Db() {
    auto db = ReadOnlyDb::Open(dir_ / "s.db");
    EXPECT_TRUE(db.ok()) << db.status().message();
    return std::move(db).value();
  }
  Result<SearchPage> Find(SearchRequest r) {
    ReadOnlyDb db = Db();
    return Search(db, r);
  }
  std::vector<SearchHit> All(SearchRequest r) {
    r.limit = kSearchMaxLimit;
    auto page = Find(r);
    EXPECT_TRUE(page.ok()) << page.status().message();
    return page.ok() ? page->hits : std::vector<SearchHit>{};
  }

  TempDir dir_;
};

std::vector<int64_t> Seqs(const std::vector<SearchHit>& hits) {
  std::vector<int64_t> out;
  for (const SearchHit& h : hits) out.push_back(h.seq);
  return out;
}

TEST_F(SearchTest, TheQueryIsOneLiteralPhraseAndFtsSyntaxIsData) {
  ASSERT_FALSE(All({.query = "error"}).empty());
  // Operators are words of the phrase, not operators.
  EXPECT_TRUE(All({.query = "error OR nothing"}).empty());
  EXPECT_TRUE(All({.query = "NEAR(error offset)"}).empty());
  EXPECT_EQ(Seqs(All({.query = "error -offset"})), Seqs(All({.query = "error offset"})));
  ASSERT_FALSE(All({.query = "error offset"}).empty());
  // Quotes and '*' are punctuation: no nested phrase, no prefix match.
  EXPECT_EQ(Seqs(All({.query = "\"error\""})), Seqs(All({.query = "error"})));
  EXPECT_EQ(Seqs(All({.query = "err*"})), Seqs(All({.query = "err"})));
  EXPECT_NE(All({.query = "err*"}).size(), All({.query = "error"}).size());
  // Tokens, not substrings; case-insensitive; whitespace runs fold.
  EXPECT_TRUE(All({.query = "rro"}).empty());
  EXPECT_EQ(Seqs(All({.query = "  UNKNOWN \n\t tool "})), Seqs(All({.query = "unknown tool"})));
}

TEST_F(SearchTest, BlankNulAndBadLimitsAreRefusedWithDshCodes) {
  for (const char* blank : {"", "   ", "\n\t\xE3\x80\x80"}) {
    auto page = Find({.query = blank});
    ASSERT_FALSE(page.ok());
    EXPECT_THAT(page.status().message(), StartsWith("SESSION_QUERY_INVALID_QUERY"));
  }
  auto nul = Find({.query = std::string("a\0b", 3)});
  ASSERT_FALSE(nul.ok());
  EXPECT_THAT(nul.status().message(), HasSubstr("must not contain NUL"));
  for (int64_t limit : {0, -1, 101}) {
    auto page = Find({.query = "error", .limit = limit});
    ASSERT_FALSE(page.ok()) << limit;
    EXPECT_THAT(page.status().message(), StartsWith("SESSION_QUERY_INVALID_LIMIT"));
  }
  auto missing = Find({.query = "error", .session = "nope"});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Status::Code::kNotFound);
  EXPECT_THAT(missing.status().message(), StartsWith("SESSION_QUERY_SESSION_NOT_FOUND"));
  std::vector<std::string> too_many(40000, "tool/result");
  auto filters = Find({.query = "error", .types = too_many});
  ASSERT_FALSE(filters.ok());
  EXPECT_THAT(filters.status().message(), StartsWith("SESSION_QUERY_INVALID_FILTER"));
  auto surface = Find({.query = "error", .surfaces = {"everywhere"}});
  ASSERT_FALSE(surface.ok());
  EXPECT_THAT(surface.status().message(), StartsWith("SESSION_QUERY_INVALID_FILTER"));
}

TEST_F(SearchTest, HitsRankByMatchCountThenLengthThenNewest) {
  const auto hits = All({.query = "error", .session = "c06-errors-policy"});
  ASSERT_GT(hits.size(), 5u);
  ReadOnlyDb db = Db();
  auto length = [&](const SearchHit& h) {
    const store::SqlValue p[] = {h.session_id, h.seq};
    return std::get<int64_t>(db.Run("SELECT codepoint_length FROM v_search_docs WHERE session_id = ? AND seq = ?", p)
                                 ->rows.at(0)
                                 .at(0));
  };
  for (size_t i = 1; i < hits.size(); ++i) {
    const auto key = [&](const SearchHit& h) { return std::make_tuple(-h.match_count, length(h), -h.time, -h.seq); };
    EXPECT_LE(key(hits[i - 1]), key(hits[i])) << "hit " << i;
  }
  // "unknown tool" occurs twice in an UNKNOWN_TOOL result (the code tokenizes as two words).
  EXPECT_EQ(hits.front().match_count >= 1, true);
  EXPECT_EQ(All({.query = "unknown tool", .session = "c06-errors-policy"}).front().match_count, 2);
}

TEST_F(SearchTest, SessionSearchReturnsTheBestHitOfEachSession) {
  const auto sessions = All({.query = "error"});
  std::set<std::string> seen;
  for (const SearchHit& h : sessions) EXPECT_TRUE(seen.insert(h.session_id).second) << h.session_id;
  EXPECT_EQ(seen.size(), 3u);
  for (const SearchHit& best : sessions) {
    const auto within = All({.query = "error", .session = best.session_id});
    ASSERT_FALSE(within.empty());
    EXPECT_EQ(within.front().seq, best.seq) << best.session_id;
  }
}

TEST_F(SearchTest, FiltersNarrowByTypeAndSurface) {
  for (const SearchHit& h : All({.query = "read", .types = {"tool/call"}})) EXPECT_EQ(h.type, "tool/call");
  const auto log_only = All({.query = "read", .session = "c01-fs-read", .surfaces = {"log-only"}});
  ASSERT_FALSE(log_only.empty());
  for (const SearchHit& h : log_only) EXPECT_EQ(h.surface, "log-only");  // tool calls are log-only
  EXPECT_TRUE(All({.query = "read", .session = "c01-fs-read", .surfaces = {"shadowed"}}).empty());
}

TEST_F(SearchTest, CursorsPageStablyAndFailClearlyWhenStaleOrForeign) {
  const SearchRequest base{.query = "error", .session = "c06-errors-policy"};
  const auto whole = All(base);
  std::vector<SearchHit> paged;
  SearchRequest r = base;
  r.limit = 3;
  while (true) {
    auto page = Find(r);
    ASSERT_TRUE(page.ok()) << page.status().message();
    paged.insert(paged.end(), page->hits.begin(), page->hits.end());
    if (!page->next_cursor) break;
    r.cursor = *page->next_cursor;
  }
  ASSERT_EQ(paged.size(), whole.size());
  for (size_t i = 0; i < paged.size(); ++i) EXPECT_EQ(paged[i].seq, whole[i].seq);

  SearchRequest first = base;
  first.limit = 3;
  const std::string cursor = *Find(first)->next_cursor;
  SearchRequest other = first;
  other.query = "offset";
  other.cursor = cursor;
  auto foreign = Find(other);
  ASSERT_FALSE(foreign.ok());
  EXPECT_THAT(foreign.status().message(), StartsWith("SESSION_QUERY_INVALID_CURSOR"));
  SearchRequest garbage = first;
  garbage.cursor = "not-a-cursor!";
  EXPECT_THAT(Find(garbage).status().message(), StartsWith("SESSION_QUERY_INVALID_CURSOR"));

  // Cross-session cursors go stale when anything is indexed; a session's own only when it changes.
  SearchRequest across{.query = "error", .limit = 1};
  const std::string across_cursor = *Find(across)->next_cursor;
  {
    auto store = OpenStoreOrDie(dir_ / "s.db");
    ASSERT_TRUE(store::ImportJsonl(*store, testing::FixturePath("s1-tools-inject.jsonl")).ok());
    // Until the index catches up, a search refuses rather than answer from part of the documents.
    ReadOnlyDb db = Db();
    auto behind = Search(db, {.query = "error"});
    ASSERT_FALSE(behind.ok());
    EXPECT_EQ(behind.status().code(), Status::Code::kFailedPrecondition);
    ASSERT_TRUE(store->CatchUpSearchIndex().ok());
  }
  across.cursor = across_cursor;
  auto stale = Find(across);
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.status().code(), Status::Code::kConflict);
  EXPECT_THAT(stale.status().message(), StartsWith("SESSION_QUERY_STALE_CURSOR"));
  SearchRequest same = first;
  same.cursor = cursor;
  EXPECT_TRUE(Find(same).ok());
}

TEST(SnippetTest, FollowsDshPlacementRules) {
  const std::string open = "\xEF\xB7\x90", close = "\xEF\xB7\x91";
  // Short text: whole, markers dropped, whitespace folded, no leading or trailing space.
  EXPECT_EQ(MakeSnippet("  a \n\n " + open + "b" + close + "  c  ", 240), "a b c");
  EXPECT_EQ(MakeSnippet("abcdef", 1), "…");
  // Match at the start: no prefix, suffix.
  EXPECT_EQ(MakeSnippet(open + "abc" + close + "defghij", 5), "abcd…");
  // Match in the middle: a third of the room before it.
  EXPECT_EQ(MakeSnippet("0123456789" + open + "X" + close + "0123456789", 9), "…789X012…");
  // Match near the end: the window ends at the end, without suffix.
  EXPECT_EQ(MakeSnippet("0123456789012345" + open + "X" + close + "9", 6), "…345X9");
  // Code points, not bytes.
  EXPECT_EQ(MakeSnippet("ééééé" + open + "ü" + close + "ééééé", 5), "…éüé…");
  // No match marker: from the start.
  EXPECT_EQ(MakeSnippet("abcdefghij", 4), "abc…");
}

}  // namespace
}  // namespace retrace::query
