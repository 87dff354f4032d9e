// The program side of --presenters-cmd (check/presenter_server.h): each
// request line gets exactly one answer line, and bad requests get JSON-RPC
// errors rather than a crash or silence.
#include "check/presenter_server.h"

#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>

#include "engine/json/parser.h"

namespace retrace::check {
namespace {

using json::Value;

presenters::PresenterSet Greeter() {
  presenters::PresenterSet set;
  const Value dsl = Value::MakeObject({{"who", Value::MakeObject({{"type", "string"}, {"required", true}})}});
  EXPECT_TRUE(set.Add("greet", dsl,
                      [](const Value& args) -> std::optional<Value> {
                        if (args.Find("who")->as_string() == "boom") throw std::runtime_error("boom");
                        return Value::MakeObject({{"card", "generic"}, {"title", "Hi " + args.Find("who")->as_string()}});
                      },
                      nullptr)
                  .ok());
  return set;
}

TEST(PresenterServerTest, ListsItsToolsAndAnswersEachRequestOnItsOwnLine) {
  std::istringstream in(
      "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocol\":1}}\n"
      "\n"
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"presentCall\",\"params\":{\"tool\":\"greet\",\"args\":{\"who\":\"Ada\"}}}\n");
  std::ostringstream out;
  EXPECT_EQ(ServePresenters(Greeter(), in, out), 0);
  const std::string text = out.str();
  const size_t nl = text.find('\n');
  auto listing = json::Parse(text.substr(0, nl));
  ASSERT_TRUE(listing.ok());
  const Value& tool = listing->Find("result")->Find("tools")->as_array().at(0);
  EXPECT_EQ(tool.Find("name")->as_string(), "greet");
  EXPECT_TRUE(tool.Find("presentCall")->as_bool());
  EXPECT_FALSE(tool.Find("presentResult")->as_bool());
  EXPECT_EQ(text.substr(nl + 1),
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"view\":{\"card\":\"generic\",\"title\":\"Hi Ada\"}}}\n");
}

TEST(PresenterServerTest, BadRequestsGetErrorsAndAThrowingPresenterIsAnErrorAnswer) {
  const presenters::PresenterSet set = Greeter();
  EXPECT_EQ(AnswerPresenterRequest(set, "nope"),
            "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"not a JSON object\"}}");
  EXPECT_EQ(AnswerPresenterRequest(set, "{\"id\":3,\"method\":\"dance\"}"),
            "{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32601,\"message\":\"unknown method dance\"}}");
  EXPECT_EQ(AnswerPresenterRequest(set, "{\"id\":4,\"method\":\"presentCall\",\"params\":{\"tool\":\"x\"}}"),
            "{\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":-32602,\"message\":\"no such tool\"}}");
  EXPECT_EQ(AnswerPresenterRequest(set, "{\"id\":5,\"method\":\"presentCall\",\"params\":{\"tool\":\"greet\",\"args\":{\"who\":\"boom\"}}}"),
            "{\"jsonrpc\":\"2.0\",\"id\":5,\"error\":{\"code\":-32000,\"message\":\"boom\"}}");
  // Arguments that do not fit the schema get no view (soft validation on this side too).
  EXPECT_EQ(AnswerPresenterRequest(set, "{\"id\":6,\"method\":\"presentCall\",\"params\":{\"tool\":\"greet\",\"args\":{\"who\":1}}}"),
            "{\"jsonrpc\":\"2.0\",\"id\":6,\"result\":{\"view\":null}}");
  EXPECT_EQ(AnswerPresenterRequest(set, "{\"id\":7,\"method\":\"presentResult\",\"params\":{\"tool\":\"greet\",\"args\":{}}}"),
            "{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32602,\"message\":\"params.result.content is not an array\"}}");
}

}  // namespace
}  // namespace retrace::check
