// run_code's bridge over the pipeline (dsh-tool-contract §7.1, §7.4, §7.5):
// modes and the collapse, nested identity, numbering, the scheduler's order
// and settlement. The program here is C++ behind the CodeRunner seam — a
// scripted stand-in that calls the bindings as a program would — so the
// order of every call is exact; the real child-process runtimes are tested
// in tests/tools/code_runtime_test.cc and end to end in tests/host.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <future>
#include <mutex>

#include "engine/runtime/run_code.h"
#include "tests/runtime/runtime_test_util.h"

namespace retrace::runtime {
namespace {

using ::testing::ElementsAre;
using json::Value;
using testing::Args;
using testing::Call;
using testing::Define;
using testing::EchoSpec;
using testing::Exec;
using testing::MustRegister;
using testing::Text;

// A "program": what it does with the bindings, returning its outcome.
using Program = std::function<CodeRunResult(const CodeBindingNamespace& tools)>;

class ScriptedRunner : public CodeRunner {
 public:
  explicit ScriptedRunner(Program p) : program_(std::move(p)) {}
  schema::SdkLanguage language() const override { return schema::SdkLanguage::kTypeScript; }
  CodeRunResult Run(std::string_view, const std::vector<CodeBindingNamespace>& bindings, const Signal*) const override {
    return program_(bindings.at(0));
  }

 private:
  Program program_;
};

// Calls tools.<name>(args) and returns the future of its outcome.
std::future<Result<Value>> Submit(const CodeBindingNamespace& tools, const std::string& name, std::optional<Value> args) {
  auto promise = std::make_shared<std::promise<Result<Value>>>();
  std::future<Result<Value>> f = promise->get_future();
  for (const auto& [n, fn] : tools.functions) {
    if (n == name) fn(std::move(args), [promise](Result<Value> r) { promise->set_value(std::move(r)); });
  }
  return f;
}

std::string Outcome(std::future<Result<Value>>& f) {
  Result<Value> r = f.get();
  return r.ok() ? json::Serialize(*r) : "rejected: " + r.status().message();
}

ToolCallInput RunCodeCall(std::vector<std::pair<std::string, Value>>* events = nullptr, std::string description = "Do it") {
  ToolCallInput in = Call("run_code", Args({{"code", "ignored"}, {"description", std::move(description)}}), "outer");
  if (events != nullptr) {
    in.record = [events](std::string_view type, Value data) {
      events->emplace_back(std::string(type), std::move(data));
      return Status::Ok();
    };
  }
  return in;
}

// A tool that records when its body starts and finishes after `ms` on a timer.
ToolDefinition TimedSpec(std::string name, int ms, bool safe, std::vector<std::string>* log, std::mutex* mu) {
  using namespace schema;  // NOLINT(google-build-using-namespace)
  ToolDefinition d{.name = name,
                   .description = "timed",
                   .parameters = Parameters({{"tag", String().Required()}}),
                   .output = {.schema = String(),
                              .render = [](const Value&, const Value& v) { return TextContent(v.as_string()); }}};
  d.execute_async = [ms, log, mu](ToolRunContext& run) -> asio::awaitable<Value> {
    const std::string tag = run.arguments().Find("tag")->as_string();
    {
      std::lock_guard lock(*mu);
      log->push_back("start " + tag);
    }
    asio::steady_timer t(co_await asio::this_coro::executor, std::chrono::milliseconds(ms));
    co_await t.async_wait(asio::use_awaitable);
    co_return Value(tag);
  };
  if (safe) d.is_concurrency_safe = [](const Value&) { return true; };
  return d;
}

TEST(RunCodeTest, ModesShapeTheWireSchemasAndCollapseModelDirectCalls) {
  ToolRuntime rt;
  Registration echo = MustRegister(rt, Define(EchoSpec()));
  auto run_code = MakeRunCodeTool(rt, std::make_shared<ScriptedRunner>([](const CodeBindingNamespace&) { return CodeRunResult{}; }));
  ASSERT_TRUE(run_code.ok()) << run_code.status().message();
  auto names = [&](const ScopePtr& scope) {
    std::vector<std::string> out;
    for (const ToolSchema& s : rt.registry().Schemas(scope)) out.push_back(s.name);
    return out;
  };
  EXPECT_THAT(names(nullptr), ElementsAre("echo"));
  rt.registry().SetCodeMode(ToolsMode::kCode, *run_code);
  EXPECT_THAT(names(nullptr), ElementsAre("run_code"));
  ToolResultPtr direct = Exec(rt, Call("echo", Args({{"s", "hi"}})));
  EXPECT_EQ(Text(*direct), "Error: unknown tool \"echo\": only `run_code` is callable directly \u2014 call `echo` from "
                           "inside a `run_code` program instead");
  EXPECT_EQ(Exec(rt, Call("nope", Args({})))->error->message, "unknown tool \"nope\"");  // not visible: no route-back

  rt.registry().SetCodeMode(ToolsMode::kNative, *run_code);
  const ScopePtr agent = Scope::Create("agent");
  const ScopePtr child = Scope::Create("child", agent);
  {
    auto as = rt.registry().PresentAs(agent, ToolsMode::kBoth);
    ASSERT_TRUE(as.ok());
    EXPECT_THAT(names(child), ElementsAre("echo", "run_code"));  // the nearest declaration covers the child
    EXPECT_THAT(names(nullptr), ElementsAre("echo"));
    EXPECT_EQ(rt.registry().PresentAs(agent, ToolsMode::kCode).status().message(),
              "tools.presentAs(\"code\") conflicts with \"both\" already declared for this scope; one composition "
              "selects one presentation");
  }
  EXPECT_THAT(names(child), ElementsAre("echo"));  // disposed: the deployment's mode again
  EXPECT_THAT(rt.registry().PresentAs(nullptr, ToolsMode::kCode).status().message(),
              ::testing::HasSubstr("tools.presentAs() requires a scoped context"));
}

TEST(RunCodeTest, SubCallsAreNumberedNestedAndLoggedAndFailuresRejectWithTheMessage) {
  ToolRuntime rt;
  Registration echo = MustRegister(rt, Define(EchoSpec()));
  std::vector<std::string> parents;
  Registration seen = rt.registry().OnResult([&](const Execution& e, const ToolResultPtr&) {
    parents.push_back(e.call_id() + " root=" + e.root_call_id() + (e.parent() ? " nested" : " top"));
  });
  std::vector<std::string> outcomes;
  auto run_code = MakeRunCodeTool(rt, std::make_shared<ScriptedRunner>([&](const CodeBindingNamespace& tools) {
    auto a = Submit(tools, "echo", Args({{"s", "a"}}));
    outcomes.push_back(Outcome(a));
    auto lossy = Submit(tools, "echo", std::nullopt);
    outcomes.push_back(Outcome(lossy));
    auto bad = Submit(tools, "echo", Args({{"s", 1}}));
    outcomes.push_back(Outcome(bad));
    return CodeRunResult{.value = Value("done"), .logs = {"printed"}, .error = std::nullopt};
  }));
  ASSERT_TRUE(run_code.ok());
  rt.registry().SetCodeMode(ToolsMode::kCode, *run_code);
  std::vector<std::pair<std::string, Value>> events;
  ToolResultPtr r = Exec(rt, RunCodeCall(&events));
  ASSERT_FALSE(r->is_error) << Text(*r);
  EXPECT_EQ(Text(*r), "printed\ndone");
  EXPECT_THAT(outcomes, ElementsAre("\"a\"",
                                    "rejected: tool arguments must be lossless JSON (call the tool with an arguments "
                                    "object, e.g. `{}`)",
                                    "rejected: invalid arguments: \"s\" must be a string"));
  std::vector<std::string> logged;
  for (const auto& [type, data] : events) logged.push_back(type + " " + json::Serialize(data));
  EXPECT_THAT(logged,
              ElementsAre(R"(tool/code-dispatch-start {"rootCallId":"outer","parentCallId":"outer","subCallId":"outer:code:1","name":"echo","arguments":{"s":"a"}})",
                          R"(tool/code-dispatch {"rootCallId":"outer","parentCallId":"outer","subCallId":"outer:code:1","name":"echo","arguments":{"s":"a"},"isError":false,"content":[{"type":"text","text":"a"}]})",
                          R"(tool/code-dispatch-start {"rootCallId":"outer","parentCallId":"outer","subCallId":"outer:code:2","name":"echo","arguments":{"s":1}})",
                          R"(tool/code-dispatch {"rootCallId":"outer","parentCallId":"outer","subCallId":"outer:code:2","name":"echo","arguments":{"s":1},"isError":true,"content":[{"type":"text","text":"Error: invalid arguments: \"s\" must be a string"}]})"));
  EXPECT_THAT(parents, ElementsAre("outer:code:1 root=outer nested", "outer:code:2 root=outer nested", "outer root=outer top"));
}

TEST(RunCodeTest, TheSchedulerHonoursTheCapTheExclusiveBarrierAndStartOrderCommits) {
  ToolRuntime rt;
  std::vector<std::string> log;
  std::mutex mu;
  Registration slow = MustRegister(rt, Define(TimedSpec("slow", 150, true, &log, &mu)));
  Registration fast = MustRegister(rt, Define(TimedSpec("fast", 1, true, &log, &mu)));
  Registration excl = MustRegister(rt, Define(TimedSpec("excl", 1, false, &log, &mu)));
  Registration commits = rt.registry().OnResult([&](const Execution& e, const ToolResultPtr& r) {
    if (!e.parent()) return;
    std::lock_guard lock(mu);
    log.push_back("commit " + r->value->as_string());
  });
  std::vector<std::string> resolved;
  auto run_code = MakeRunCodeTool(
      rt,
      std::make_shared<ScriptedRunner>([&](const CodeBindingNamespace& tools) {
        // All five submitted at once (Promise.all), then awaited in order.
        std::vector<std::future<Result<Value>>> fs;
        fs.push_back(Submit(tools, "slow", Args({{"tag", "A"}})));
        fs.push_back(Submit(tools, "fast", Args({{"tag", "B"}})));
        fs.push_back(Submit(tools, "fast", Args({{"tag", "C"}})));
        fs.push_back(Submit(tools, "excl", Args({{"tag", "X"}})));
        fs.push_back(Submit(tools, "fast", Args({{"tag", "D"}})));
        for (auto& f : fs) resolved.push_back(Outcome(f));
        return CodeRunResult{};
      }),
      {.max_parallel_sub_calls = 2});
  ASSERT_TRUE(run_code.ok());
  rt.registry().SetCodeMode(ToolsMode::kCode, *run_code);
  ToolResultPtr r = Exec(rt, RunCodeCall());
  ASSERT_FALSE(r->is_error) << Text(*r);
  EXPECT_EQ(Text(*r), "(run_code completed with no output)");
  // Two at once; C takes B's slot; X waits for all three to commit; D for X.
  EXPECT_THAT(log, ElementsAre("start A", "start B", "start C", "commit A", "commit B", "commit C", "start X", "commit X",
                               "start D", "commit D"));
  EXPECT_THAT(resolved, ElementsAre("\"A\"", "\"B\"", "\"C\"", "\"X\"", "\"D\""));
}

TEST(RunCodeTest, ARunThatEndsAbandonsQueuedCallsDrainsStartedOnesAndFailsWithItsKind) {
  ToolRuntime rt;
  std::vector<std::string> log;
  std::mutex mu;
  Registration slow = MustRegister(rt, Define(TimedSpec("slow", 30, false, &log, &mu)));
  std::vector<std::future<Result<Value>>> left;
  auto run_code = MakeRunCodeTool(rt, std::make_shared<ScriptedRunner>([&](const CodeBindingNamespace& tools) {
    left.push_back(Submit(tools, "slow", Args({{"tag", "A"}})));  // exclusive: B queues behind it
    left.push_back(Submit(tools, "slow", Args({{"tag", "B"}})));
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return CodeRunResult{.value = std::nullopt, .logs = {"one", "two"},
                         .error = CodeRunFailure{"timeout", "wall-clock ceiling reached (10ms)"}};
  }));
  ASSERT_TRUE(run_code.ok());
  rt.registry().SetCodeMode(ToolsMode::kCode, *run_code);
  std::vector<std::pair<std::string, Value>> events;
  ToolResultPtr r = Exec(rt, RunCodeCall(&events));
  EXPECT_TRUE(r->is_error);
  EXPECT_EQ(Text(*r), "Error: code run failed (timeout): wall-clock ceiling reached (10ms)\nCaptured output:\none\ntwo");
  EXPECT_EQ(r->error->info->code, "CODE_RUN_FAILED");
  EXPECT_EQ(Outcome(left[1]), "rejected: run_code run is over (run_code settled); slow tool call abandoned");
  // A started and was drained (aborted by the run's end) before run_code returned; B never started.
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1].first, "tool/code-dispatch");
  EXPECT_EQ(json::Serialize(*events[1].second.Find("content")), R"([{"type":"text","text":"Error: tool call aborted"}])");
  EXPECT_EQ(Outcome(left[0]), "rejected: tool call aborted");
}

TEST(RunCodeTest, ABlankDescriptionFailsBeforeAnyProgramRuns) {
  ToolRuntime rt;
  bool ran = false;
  auto run_code = MakeRunCodeTool(rt, std::make_shared<ScriptedRunner>([&](const CodeBindingNamespace&) {
    ran = true;
    return CodeRunResult{};
  }));
  ASSERT_TRUE(run_code.ok());
  rt.registry().SetCodeMode(ToolsMode::kBoth, *run_code);
  ToolResultPtr r = Exec(rt, RunCodeCall(nullptr, " \t"));
  EXPECT_EQ(Text(*r), "Error: invalid description: expected a non-empty string");
  EXPECT_FALSE(r->error->info.has_value());
  EXPECT_FALSE(ran);
}

TEST(RunCodeTest, AnImageASubCallReturnsIsAttachedToTheOuterCallAndOtherResultsAreNot) {
  ToolRuntime rt;
  Registration echo = MustRegister(rt, Define(EchoSpec()));
  ToolDefinition shot = EchoSpec("screenshot");
  shot.output.render = [](const Value&, const Value&) {
    return Content{Value::MakeObject({{"type", "image"}, {"data", "iVBORw0KGgo="}, {"mimeType", "image/png"}})};
  };
  shot.output.presentation_meta = nullptr;
  Registration screenshot = MustRegister(rt, Define(std::move(shot)));
  auto run_code = MakeRunCodeTool(rt, std::make_shared<ScriptedRunner>([](const CodeBindingNamespace& tools) {
    auto a = Submit(tools, "echo", Args({{"s", "text only"}}));
    (void)a.get();
    auto b = Submit(tools, "screenshot", Args({{"s", "x"}}));
    (void)b.get();
    return CodeRunResult{.value = Value("ok"), .logs = {}, .error = std::nullopt};
  }), {.new_id = [] { return std::string("m-1"); }});
  ASSERT_TRUE(run_code.ok());
  rt.registry().SetCodeMode(ToolsMode::kCode, *run_code);
  ToolResultPtr r = Exec(rt, RunCodeCall());
  ASSERT_FALSE(r->is_error) << Text(*r);
  ASSERT_EQ(r->additional_contexts.size(), 1u);
  EXPECT_EQ(json::Serialize(r->additional_contexts[0]),
            R"({"content":[{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}],)"
            R"("source":{"kind":"plugin","plugin":"tools-code-mode"},"role":"user","id":"m-1"})");
}

TEST(RunCodeTest, CodeDispatchLogListenersChangeOnlyTheLoggedContentAndAThrowLogsTheOriginal) {
  std::vector<std::string> warnings;
  ToolRuntime rt(RuntimeOptions{.blocking_threads = 2, .warn = [&](const std::string& w) { warnings.push_back(w); }});
  Registration echo = MustRegister(rt, Define(EchoSpec()));
  Registration preview = rt.registry().OnCodeDispatchLog([](const CodeDispatch& d, const auto& next) {
    Content inner = next();
    if (d.name != "echo" || inner.empty()) return inner;
    return Content{Value::MakeObject({{"type", "text"}, {"text", "[logged preview]"}})};
  });
  std::vector<std::string> seen;
  auto run_code = MakeRunCodeTool(rt, std::make_shared<ScriptedRunner>([&](const CodeBindingNamespace& tools) {
    auto a = Submit(tools, "echo", Args({{"s", "the real value"}}));
    seen.push_back(Outcome(a));
    return CodeRunResult{};
  }));
  ASSERT_TRUE(run_code.ok());
  rt.registry().SetCodeMode(ToolsMode::kCode, *run_code);
  std::vector<std::pair<std::string, Value>> events;
  ASSERT_FALSE(Exec(rt, RunCodeCall(&events))->is_error);
  EXPECT_THAT(seen, ElementsAre("\"the real value\""));  // the program saw the value
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(json::Serialize(*events[1].second.Find("content")), R"([{"type":"text","text":"[logged preview]"}])");

  Registration broken = rt.registry().OnCodeDispatchLog([](const CodeDispatch&, const auto&) -> Content {
    throw std::runtime_error("disk full");
  });
  events.clear();
  ASSERT_FALSE(Exec(rt, RunCodeCall(&events))->is_error);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(json::Serialize(*events[1].second.Find("content")), R"([{"type":"text","text":"the real value"}])");
  EXPECT_THAT(warnings, ElementsAre("tools: code-dispatch-log listener failed for echo: disk full; logging the "
                                    "original settled content"));
}

}  // namespace
}  // namespace retrace::runtime
