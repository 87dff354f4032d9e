// The card fold upcasts old calls of a tool that declares revisions before
// presenting them: the one place every reader of cards (replay in every
// format, check, ACP, the renderers) gets its arguments from. A revision
// record holds for the rest of its turn.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/json/parser.h"
#include "engine/json/writer.h"
#include "engine/log/event_types.h"
#include "engine/replay/cards.h"
#include "engine/schema/schema_spec.h"
#include "presenters/presenter.h"

namespace retrace::replay {
namespace {

using json::Value;
using ::testing::HasSubstr;

Value J(std::string_view text) { return json::Parse(text).value(); }

// `note` takes {town} (1), then {city} (2); its views show the city and the meta's `degrees`.
presenters::RevisionSpec NoteRevisions() {
  return {.current = 2,
          .parameters = {{1, schema::Parameters({{"town", schema::String().Required()}})}},
          .steps = {{.from = 1,
                     .to = 2,
                     .arguments =
                         [](const Value& a) {
                           return Value::MakeObject({{"city", *a.Find("town")}});
                         },
                     .meta =
                         [](const Value& m) {
                           return Value::MakeObject({{"degrees", *m.Find("temp")}});
                         }}}};
}

presenters::PresenterSet NotePresenters(presenters::RevisionSpec revisions = NoteRevisions()) {
  presenters::PresenterSet set;
  Status st = set.Add(
      "note", schema::Parameters({{"city", schema::String().Required()}}),
      [](const Value& args) -> std::optional<Value> {
        return Value::MakeObject({{"card", "generic"}, {"title", "Note for " + args.Find("city")->as_string()}});
      },
      [](const Value& args, const presenters::DurableResult& r) -> std::optional<Value> {
        std::string title = "Noted " + args.Find("city")->as_string();
        if (r.meta && r.meta->Find("degrees")) title += " at " + json::Serialize(*r.meta->Find("degrees"));
        return Value::MakeObject({{"card", "generic"}, {"title", title}});
      },
      "1", std::move(revisions));
  EXPECT_TRUE(st.ok()) << st.message();
  return set;
}

log::Event E(std::string type, int64_t seq, std::string_view data) {
  log::Event e;
  e.type = std::move(type);
  e.seq = seq;
  e.data = J(data);
  if (e.type == log::kToolResult) e.surface_op = log::SurfaceOp{};
  e.ignorable = e.type.starts_with("retrace/");
  return e;
}

log::Event Call(int64_t seq, const std::string& id, const std::string& args) {
  return E(std::string(log::kToolCall), seq,
           json::Serialize(Value::MakeObject({{"turn", Value(int64_t{1})},
                                              {"step", Value(int64_t{1})},
                                              {"callId", id},
                                              {"name", "note"},
                                              {"arguments", args}})));
}

log::Event Result(int64_t seq, const std::string& id, std::string_view meta) {
  return E(std::string(log::kToolResult), seq,
           R"({"turn":1,"step":1,"message":{"content":[{"type":"tool-result","toolCallId":")" + id +
               R"(","content":[{"type":"text","text":"ok"}]}],"role":"user"},"meta":)" + std::string(meta) + "}");
}

Value Cards(const presenters::PresenterSet& set, std::vector<log::Event> events) {
  CardBuilder builder("s", set);
  for (log::Event& e : events) builder.Add(std::move(e));
  return builder.Finish();
}

std::string Title(const Value& cards, size_t i, const char* phase) {
  const Value* v = cards.Find("calls")->as_array()[i].Find("display")->Find(phase)->Find("title");
  return v ? v->as_string() : "";
}

TEST(UpcastReplayTest, AnOldCallReplaysToTheCurrentViewsWithItsMetaUpcast) {
  const presenters::PresenterSet set = NotePresenters();
  const Value cards = Cards(
      set, {E("turn/start", 0, R"({"turn":1})"), Call(1, "a", R"({"town":"Oslo"})"), Result(2, "a", R"({"temp":21})"),
            Call(3, "b", R"({"city":"Lima"})"), Result(4, "b", R"({"degrees":30})")});
  EXPECT_EQ(Title(cards, 0, "pending"), "Note for Oslo");
  EXPECT_EQ(Title(cards, 0, "result"), "Noted Oslo at 21");
  EXPECT_EQ(Title(cards, 1, "result"), "Noted Lima at 30");
  // The card shows the arguments the views were made from.
  EXPECT_EQ(json::Serialize(*cards.Find("calls")->as_array()[0].Find("args")), R"({"city":"Oslo"})");
}

TEST(UpcastReplayTest, WithoutTheChainTheOldCallFallsBackToTheGenericCard) {
  presenters::PresenterSet set;
  const presenters::PresenterSet with_chain = NotePresenters();
  const presenters::ToolPresenter& p = *with_chain.Find("note");
  set.Add(presenters::MakeToolPresenter("note", p.parameters, p.present_call, p.present_result));
  const Value cards = Cards(set, {Call(0, "a", R"({"town":"Oslo"})"), Result(1, "a", R"({"temp":21})")});
  EXPECT_EQ(Title(cards, 0, "pending"), "note");  // the generic card's title is the tool's name
}

TEST(UpcastReplayTest, ARecordHoldsForItsTurnOnly) {
  // Revision 2 only adds an optional field, so inference alone cannot tell
  // revision-1 arguments from revision-2 ones; the record can.
  presenters::RevisionSpec spec{
      .current = 2,
      .parameters = {{1, schema::Parameters({{"city", schema::String().Required()}})}},
      .steps = {{.from = 1, .to = 2, .arguments = [](const Value& a) {
                   return Value::MakeObject({{"city", Value("old " + a.Find("city")->as_string())}});
                 }}}};
  presenters::PresenterSet set;
  ASSERT_TRUE(set.Add(
                     "note", schema::Parameters({{"city", schema::String().Required()}, {"zip", schema::String()}}),
                     [](const Value& args) -> std::optional<Value> {
                       return Value::MakeObject({{"card", "generic"}, {"title", args.Find("city")->as_string()}});
                     },
                     nullptr, "1", std::move(spec))
                  .ok());
  const std::string fp1 = set.Find("note")->revisions->fingerprints.at(1);
  const std::string record = R"({"tool":"note","revision":1,"schema":")" + fp1 + R"("})";
  const Value cards = Cards(set, {E("turn/start", 0, R"({"turn":1})"), E("retrace/tool-revision", 1, record),
                                  Call(2, "a", R"({"city":"Oslo"})"), E("turn/start", 3, R"({"turn":2})"),
                                  Call(4, "b", R"({"city":"Oslo"})")});
  EXPECT_EQ(Title(cards, 0, "pending"), "old Oslo");  // recorded at revision 1: upcast
  EXPECT_EQ(Title(cards, 1, "pending"), "Oslo");      // the next turn has no record: inferred current
}

TEST(UpcastReplayTest, AThrowingStepGivesTheGenericCardAndSaysWhy) {
  presenters::RevisionSpec spec = NoteRevisions();
  spec.steps[0].arguments = [](const Value&) -> Value { throw std::runtime_error("boom"); };
  const presenters::PresenterSet set = NotePresenters(std::move(spec));
  std::vector<PresentedCall> calls;
  CardFold fold(set, [&](size_t, PresentedCall&& c) { calls.push_back(std::move(c)); });
  fold.Add(Call(0, "a", R"({"town":"Oslo"})"));
  fold.Add(Result(1, "a", R"({"temp":21})"));
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_FALSE(calls[0].pending);
  EXPECT_FALSE(calls[0].result);
  ASSERT_TRUE(calls[0].fallback_result);
  EXPECT_EQ(calls[0].pending_how, presenters::Presented::kInvalidArguments);
  ASSERT_TRUE(calls[0].upcast);
  EXPECT_EQ(calls[0].upcast->how, presenters::UpcastHow::kThrew);
  EXPECT_EQ(calls[0].detail, "step 1 (revision 1 → 2) threw: boom");
  EXPECT_EQ(json::Serialize(calls[0].args), R"({"town":"Oslo"})");  // the logged arguments stand
}

}  // namespace
}  // namespace retrace::replay
