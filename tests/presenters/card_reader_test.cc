#include "presenters/card_reader.h"

#include <gtest/gtest.h>

#include <string>

#include "engine/json/parser.h"
#include "engine/json/writer.h"
#include "presenters/presenter.h"
#include "presenters/reference_tools.h"

namespace retrace::presenters {
namespace {

using json::Value;

Value Parse(const std::string& text) { return json::Parse(text).value(); }

std::string Num(Number n) { return n ? json::Serialize(*n) : "absent"; }

TEST(CardReaderTest, EachKindReadsItsOwnFields) {
  const Value terminal = Parse(R"({"card":"terminal","title":"ls","output":"a\n","exitCode":0})");
  const CardView t = ReadCard(terminal);
  EXPECT_EQ(t.kind, kTerminalCard);
  EXPECT_EQ(t.title, "ls");
  ASSERT_NE(t.As<TerminalCard>(), nullptr);
  EXPECT_EQ(t.As<TerminalCard>()->output, "a\n");
  EXPECT_EQ(Num(t.As<TerminalCard>()->exit_code), "0");
  EXPECT_FALSE(t.As<TerminalCard>()->signal);

  const Value diff = Parse(R"({"card":"diff","diffs":[{"path":"a","oldText":null,"newText":"x"},{"path":"b","oldText":"y","newText":"z"}]})");
  const CardView d_card = ReadCard(diff);
  const DiffCard* d = d_card.As<DiffCard>();
  ASSERT_NE(d, nullptr);
  ASSERT_EQ(d->diffs.size(), 2u);
  EXPECT_FALSE(d->diffs[0].old_text);  // a new file
  EXPECT_EQ(d->diffs[1].old_text.value_or("?"), "y");
  EXPECT_EQ(d->diffs[1].new_text.value_or("?"), "z");

  const Value read = Parse(R"({"card":"read","path":"a.ts","offset":3,"lines":[{"number":3,"text":"x"}],"totalLines":9})");
  const CardView r_card = ReadCard(read);
  const ReadCardView* r = r_card.As<ReadCardView>();
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->path, "a.ts");
  EXPECT_EQ(Num(r->offset), "3");
  ASSERT_EQ(r->lines.size(), 1u);
  EXPECT_EQ(Num(r->lines[0].number), "3");
  EXPECT_EQ(Num(r->total_lines), "9");

  const Value matches = Parse(
      R"({"card":"search","shape":"matches","files":[{"path":"a","matches":[{"lineNumber":2,"line":"hit"}]}],"truncated":true,"total":7})");
  const CardView m_card = ReadCard(matches);
  const SearchCard* m = m_card.As<SearchCard>();
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(m->by_file);
  ASSERT_EQ(m->files.size(), 1u);
  EXPECT_EQ(m->files[0].matches[0].line, "hit");
  EXPECT_TRUE(m->truncated);
  EXPECT_EQ(Num(m->total), "7");
  const Value paths = Parse(R"({"card":"search","shape":"paths","paths":["a","b"],"truncated":false,"total":2})");
  const CardView p_card = ReadCard(paths);
  const SearchCard* p = p_card.As<SearchCard>();
  ASSERT_NE(p, nullptr);
  EXPECT_FALSE(p->by_file);
  EXPECT_EQ(p->paths, (std::vector<std::string_view>{"a", "b"}));

  const Value web = Parse(R"({"card":"web","kind":"search","answer":"42","sources":[{"title":"T","url":"u","snippet":"s"}]})");
  const CardView w_card = ReadCard(web);
  const WebCard* w = w_card.As<WebCard>();
  ASSERT_NE(w, nullptr);
  EXPECT_FALSE(w->fetch);
  EXPECT_EQ(w->answer.value_or("?"), "42");
  ASSERT_EQ(w->sources.size(), 1u);
  EXPECT_EQ(w->sources[0].snippet.value_or("?"), "s");
}

TEST(CardReaderTest, FieldsOfAnotherKindReadAsAbsent) {
  const Value card = Parse(
      R"({"card":"terminal","title":7,"description":[],"locations":{"path":"a"},"output":null,"exitCode":"0","signal":9})");
  const CardView t = ReadCard(card);
  EXPECT_EQ(t.title, "");
  EXPECT_FALSE(t.description);
  EXPECT_TRUE(t.locations.empty());
  ASSERT_NE(t.As<TerminalCard>(), nullptr);
  EXPECT_EQ(t.As<TerminalCard>()->output, "");
  EXPECT_EQ(t.As<TerminalCard>()->exit_code, nullptr);
  EXPECT_FALSE(t.As<TerminalCard>()->signal);

  const Value search = Parse(R"({"card":"search","files":[7,{"path":1,"matches":"x"}],"truncated":"yes"})");
  const CardView s_card = ReadCard(search);
  const SearchCard* s = s_card.As<SearchCard>();
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->files.size(), 2u);  // elements that are not objects read with every field absent
  EXPECT_EQ(s->files[0].path, "");
  EXPECT_TRUE(s->files[1].matches.empty());
  EXPECT_FALSE(s->truncated);  // only the boolean true is true
}

TEST(CardReaderTest, AnUnknownKindOrNoCardReadsAsGeneric) {
  const Value custom = Parse(R"({"card":"chart","title":"Sales","kind":"read","content":[{"type":"text","text":"x"}]})");
  const CardView c = ReadCard(custom);
  EXPECT_EQ(c.kind, "chart");  // as written
  ASSERT_NE(c.As<GenericCard>(), nullptr);
  EXPECT_EQ(c.As<GenericCard>()->kind, "read");
  ASSERT_NE(c.As<GenericCard>()->content, nullptr);
  EXPECT_EQ(c.As<GenericCard>()->content->as_array().size(), 1u);

  for (const Value& none : {Value(), Value("generic"), Value(Value::Array{})}) {
    const CardView n = ReadCard(none);
    EXPECT_EQ(n.kind, "");
    ASSERT_NE(n.As<GenericCard>(), nullptr);
    EXPECT_EQ(n.As<GenericCard>()->content, nullptr);
  }
  EXPECT_NE(ReadCard(static_cast<const Value*>(nullptr)).As<GenericCard>(), nullptr);
}

// What the presenters write, the reader reads: the fallback card round-trips.
TEST(CardReaderTest, TheFallbackCardsReadBack) {
  const Value call = FallbackCall("deploy", Value::MakeObject({{"env", "prod"}}));
  EXPECT_EQ(ReadCard(call).kind, kGenericCard);
  EXPECT_EQ(ReadCard(call).title, "deploy");
}

}  // namespace
}  // namespace retrace::presenters
