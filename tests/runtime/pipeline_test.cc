// The execution pipeline (dsh-tool-contract §5.2–§5.7): order, every
// outcome and error text, wrappers, post-execute, cancellation,
// finalizeContent and observers. Numbers refer to the §10 checklist.
#include <pthread.h>

#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "engine/runtime/timeout_policy.h"
#include "tests/runtime/runtime_test_util.h"

namespace retrace::runtime {
namespace {

using json::Value;
using namespace testing;

class PipelineTest : public ::testing::Test {
 protected:
  PipelineTest() : rt_(RuntimeOptions{.blocking_threads = 2, .warn = [this](const std::string& m) { warnings_.push_back(m); }}) {}

  // Records which stages ran for each call.
  void Trace() {
    regs_.push_back(rt_.registry().OnPreExecute([this](const Execution&, const PreExecuteNext& next) {
      trace_.push_back("pre");
      return next();
    }));
    regs_.push_back(rt_.registry().Guard([this](const Execution&) -> std::optional<std::string> {
      trace_.push_back("guard");
      return std::nullopt;
    }));
    regs_.push_back(rt_.registry().OnExecute([this](Execution&, ExecuteNext next) -> asio::awaitable<ToolResultPtr> {
      trace_.push_back("exec");
      co_return co_await next();
    }));
    regs_.push_back(rt_.registry().OnPostExecute([this](const Execution&, const ToolResult&, const PostExecuteNext& next) {
      trace_.push_back("post");
      return next();
    }));
    regs_.push_back(rt_.registry().OnResult([this](const Execution&, const ToolResultPtr&) { trace_.push_back("result"); }));
  }
  std::string Stages() const {
    std::string s;
    for (const auto& t : trace_) s += (s.empty() ? "" : ">") + t;
    return s;
  }

  std::vector<std::string> warnings_;
  ToolRuntime rt_;
  std::vector<std::string> trace_;
  std::vector<Registration> regs_;
};

TEST_F(PipelineTest, SuccessCarriesContentMetaAndValueInDshKeyOrder) {
  Registration r = MustRegister(rt_, Define(EchoSpec()));
  ToolResultPtr res = Exec(rt_, Call("echo", Args({{"s", "hi"}})));
  EXPECT_EQ(json::Serialize(res->ToJson()),
            R"({"isError":false,"content":[{"type":"text","text":"hi"}],"meta":{"len":2},"value":"hi"})");
}

TEST_F(PipelineTest, StagesRunInContractOrder) {  // 33
  Trace();
  ToolDefinition spec = EchoSpec();
  spec.execute = [this](ToolRunContext& run) {
    trace_.push_back("body");
    return *run.arguments().Find("s");
  };
  spec.finalize_content = [this](const Execution&, const ToolResult&) -> std::optional<Content> {
    trace_.push_back("finalize");
    return std::nullopt;
  };
  Registration r = MustRegister(rt_, Define(spec));
  Exec(rt_, Call("echo", Args({{"s", "hi"}})));
  EXPECT_EQ(Stages(), "pre>guard>exec>body>post>finalize>result");
}

TEST_F(PipelineTest, ASynchronousBodyRunsOnANamedPoolThreadNotTheCallersThread) {
  // The body may block, so it runs on the blocking pool, whose threads are
  // named for top -H, perf and gdb.
  std::thread::id body_thread;
  ToolDefinition spec = EchoSpec();
  spec.execute = [&body_thread](ToolRunContext&) {
    body_thread = std::this_thread::get_id();
    char name[16] = {};
    ::pthread_getname_np(::pthread_self(), name, sizeof name);
    return Value(std::string(name));
  };
  Registration r = MustRegister(rt_, Define(spec));
  EXPECT_EQ(Text(*Exec(rt_, Call("echo", Args({{"s", "x"}})))), "retrace-body");
  EXPECT_NE(body_thread, std::this_thread::get_id());
}

TEST_F(PipelineTest, ABriefBodyRunsOnTheCallersThreadAndThePoolBodyDoesNot) {
  std::thread::id brief_thread;
  bool pool_ran = false;
  ToolDefinition spec = EchoSpec();
  spec.execute = [&pool_ran](ToolRunContext& run) {
    pool_ran = true;
    return *run.arguments().Find("s");
  };
  spec.execute_brief = [&brief_thread](ToolRunContext& run) -> std::optional<Value> {
    brief_thread = std::this_thread::get_id();
    return Value("brief " + run.arguments().Find("s")->as_string());
  };
  Registration r = MustRegister(rt_, Define(spec));
  EXPECT_EQ(Text(*Exec(rt_, Call("echo", Args({{"s", "x"}})))), "brief x");
  EXPECT_EQ(brief_thread, std::this_thread::get_id());
  EXPECT_FALSE(pool_ran);
}

TEST_F(PipelineTest, ABriefBodyThatDeclinesLeavesTheCallToThePool) {
  int briefs = 0;
  ToolDefinition spec = EchoSpec();
  spec.execute = [](ToolRunContext&) {
    char name[16] = {};
    ::pthread_getname_np(::pthread_self(), name, sizeof name);
    return Value(std::string(name));
  };
  spec.execute_brief = [&briefs](ToolRunContext&) -> std::optional<Value> {
    ++briefs;
    return std::nullopt;
  };
  Registration r = MustRegister(rt_, Define(spec));
  EXPECT_EQ(Text(*Exec(rt_, Call("echo", Args({{"s", "x"}})))), "retrace-body");
  EXPECT_EQ(briefs, 1);
}

TEST_F(PipelineTest, ABriefBodyFailsAsThePoolBodyWould) {
  // Invalid arguments and a thrown ToolError give the same result either way.
  ToolDefinition pool = EchoSpec("pool");
  pool.execute = [](ToolRunContext& run) -> Value {
    throw ToolError("no " + run.arguments().Find("s")->as_string(), "FsError", "FS_NOT_FOUND");
  };
  ToolDefinition brief = pool;
  brief.name = "brief";
  brief.execute_brief = [](ToolRunContext& run) -> std::optional<Value> {
    throw ToolError("no " + run.arguments().Find("s")->as_string(), "FsError", "FS_NOT_FOUND");
  };
  Registration r1 = MustRegister(rt_, Define(pool));
  Registration r2 = MustRegister(rt_, Define(brief));
  for (const Value& args : {Args({{"s", "x"}}), Args({{"s", 1}})}) {
    ToolResultPtr a = Exec(rt_, Call("pool", args));
    ToolResultPtr b = Exec(rt_, Call("brief", args));
    EXPECT_TRUE(b->is_error);
    EXPECT_EQ(json::Serialize(a->ToJson()), json::Serialize(b->ToJson())) << json::Serialize(args);
  }
}

TEST_F(PipelineTest, DefaultsAreNeverApplied) {  // 13
  using namespace schema;
  ToolDefinition spec = EchoSpec();
  spec.parameters = Parameters({{"s", String().Required()}, {"n", Integer().Default(5)}});
  spec.execute = [](ToolRunContext& run) { return Value(run.arguments().Find("n") == nullptr ? "absent" : "present"); };
  Registration r = MustRegister(rt_, Define(spec));
  EXPECT_EQ(Text(*Exec(rt_, Call("echo", Args({{"s", "x"}})))), "absent");
}

TEST_F(PipelineTest, SchemaInvalidArgumentsFailInsideTheBodyStage) {  // 40
  Trace();
  Registration r = MustRegister(rt_, Define(EchoSpec()));
  ToolResultPtr res = Exec(rt_, Call("echo", Args({{"s", 1}})));
  EXPECT_EQ(Stages(), "pre>guard>exec>post>result");
  EXPECT_EQ(Text(*res), "Error: invalid arguments: \"s\" must be a string");
  EXPECT_EQ(res->error->info, (ErrorInfo{"ToolArgsError", "INVALID_ARGS"}));
}

TEST_F(PipelineTest, ModelArgumentTextIsParsedAsTheLoopDoes) {
  Registration r = MustRegister(rt_, Define(EchoSpec()));
  EXPECT_EQ(Text(*Exec(rt_, Call("echo", ParseModelArguments("{bad json")))),
            "Error: invalid arguments: \"arguments\" must be an object");
  EXPECT_EQ(Text(*Exec(rt_, Call("echo", ParseModelArguments("")))),
            "Error: invalid arguments: missing required property \"s\"");
  EXPECT_EQ(Text(*Exec(rt_, Call("echo", ParseModelArguments(R"({"s":"ok"})")))), "ok");
}

TEST_F(PipelineTest, UnknownToolPassesPolicyThenFailsWithUnknownTool) {  // 39
  Trace();
  ToolResultPtr res = Exec(rt_, Call("nope", Args({})));
  EXPECT_EQ(Stages(), "pre>guard>exec>post>result");
  EXPECT_EQ(Text(*res), "Error: unknown tool \"nope\"");
  EXPECT_EQ(res->error->info, (ErrorInfo{"ToolNotFoundError", "UNKNOWN_TOOL"}));
}

TEST_F(PipelineTest, NonLosslessArgumentsGiveAFinalResultWithNoPolicy) {  // 21
  Trace();
  Registration r = MustRegister(rt_, Define(EchoSpec()));
  for (double bad : std::vector<double>{std::nan(""), -0.0, INFINITY}) {
    trace_.clear();
    ToolResultPtr res = Exec(rt_, Call("echo", Args({{"s", "a"}, {"x", bad}})));
    EXPECT_EQ(Stages(), "result");
    EXPECT_EQ(Text(*res), "Error: tool execution arguments must be losslessly JSON-serializable");
    EXPECT_FALSE(res->error->info.has_value());
  }
  // 1e400 parses to Infinity, as JSON.parse does, and is refused the same way.
  EXPECT_EQ(Text(*Exec(rt_, Call("echo", ParseModelArguments(R"({"s":"a","n":1e400})")))),
            "Error: tool execution arguments must be losslessly JSON-serializable");
}

TEST_F(PipelineTest, ArgumentsAreADetachedImmutableSnapshot) {  // 22
  static_assert(std::is_const_v<std::remove_reference_t<decltype(std::declval<Execution&>().arguments())>>,
                "a body cannot write its arguments");
  ToolDefinition spec = EchoSpec();
  Value seen;
  spec.execute = [&seen](ToolRunContext& run) {
    seen = run.arguments();
    return *run.arguments().Find("s");
  };
  Registration r = MustRegister(rt_, Define(spec));
  Value caller = Args({{"s", "before"}});
  ToolCallInput in = Call("echo", caller);
  caller.Set("s", "after");  // the caller's object is never aliased
  Exec(rt_, std::move(in));
  EXPECT_EQ(json::Serialize(seen), R"({"s":"before"})");
}

TEST_F(PipelineTest, DenyGivesErrorWithoutInfoAndPostStillRuns) {  // 34
  Trace();
  Registration r = MustRegister(rt_, Define(EchoSpec()));
  Registration deny = rt_.registry().OnPreExecute(
      [](const Execution&, const PreExecuteNext&) { return PreDecision::Deny("nope!"); }, nullptr, /*prepend=*/true);
  ToolResultPtr res = Exec(rt_, Call("echo", Args({{"s", "x"}})));
  EXPECT_EQ(Stages(), "post>result");  // the veto skipped the tracing pre listener, and guards
  EXPECT_EQ(Text(*res), "Error: nope!");
  EXPECT_EQ(json::Serialize(res->ToJson()),
            R"({"isError":true,"error":{"message":"nope!"},"content":[{"type":"text","text":"Error: nope!"}]})");
}

TEST_F(PipelineTest, PrependedPreListenerRunsFirstAndCanOverrideDownstream) {
  std::string order;
  Registration a = rt_.registry().OnPreExecute([&](const Execution&, const PreExecuteNext& next) {
    order += "a";
    return next();
  });
  Registration b = rt_.registry().OnPreExecute(
      [&](const Execution&, const PreExecuteNext& next) {
        order += "b";
        next();                        // downstream would allow…
        return PreDecision::Deny("b");  // …but b overrides it
      },
      nullptr, true);
  Registration r = MustRegister(rt_, Define(EchoSpec()));
  EXPECT_EQ(Text(*Exec(rt_, Call("echo", Args({{"s", "x"}})))), "Error: b");
  EXPECT_EQ(order, "ba");
}

class FixedApproval : public ApprovalService {
 public:
  explicit FixedApproval(ApprovalOutcome o, AbortController* cancel = nullptr) : outcome_(o), cancel_(cancel) {}
  asio::awaitable<ApprovalOutcome> Request(ApprovalRequest req) override {
    last = req;
    if (cancel_) cancel_->Abort("user");
    co_return outcome_;
  }
  std::optional<ApprovalRequest> last;

 private:
  ApprovalOutcome outcome_;
  AbortController* cancel_;
};

TEST_F(PipelineTest, AskWithoutApprovalServiceDegradesToDeny) {  // 35
  Registration r = MustRegister(rt_, Define(EchoSpec()));
  std::optional<std::string> reason;
  Registration ask = rt_.registry().OnPreExecute(
      [&](const Execution&, const PreExecuteNext&) { return PreDecision::Ask(reason); });
  EXPECT_EQ(Text(*Exec(rt_, Call("echo", Args({{"s", "x"}})))),
            "Error: tool \"echo\" requires approval (not yet supported)");
  reason = "lockfiles need explicit approval";
  EXPECT_EQ(Text(*Exec(rt_, Call("echo", Args({{"s", "x"}})))), "Error: lockfiles need explicit approval");
}

TEST_F(PipelineTest, AskOutcomesMapToTheirExactReasons) {  // 35
  Registration r = MustRegister(rt_, Define(EchoSpec()));
  Registration ask = rt_.registry().OnPreExecute(
      [](const Execution&, const PreExecuteNext&) { return PreDecision::Ask("why"); });
  ScopePtr agent = Scope::Create("main");
  auto run = [&](ApprovalOutcome o, ScopePtr who) {
    FixedApproval approval(o);
    rt_.set_approval(&approval);
    ToolCallInput in = Call("echo", Args({{"s", "x"}}));
    in.agent = who;
    std::string text = Text(*Exec(rt_, std::move(in)));
    if (approval.last) {
      EXPECT_EQ(approval.last->reason, "why");
    }
    rt_.set_approval(nullptr);
    return text;
  };
  EXPECT_EQ(run(ApprovalOutcome::kAllowedOnce, agent), "x");
  EXPECT_EQ(run(ApprovalOutcome::kRejected, agent), "Error: the user rejected tool \"echo\"");
  EXPECT_EQ(run(ApprovalOutcome::kCancelled, agent), "Error: approval for tool \"echo\" was cancelled");
  EXPECT_EQ(run(ApprovalOutcome::kUnavailable, agent),
            "Error: tool \"echo\" requires approval, but no approval channel is available");
  EXPECT_EQ(run(ApprovalOutcome::kAllowedOnce, nullptr),
            "Error: tool \"echo\" requires approval, but the call has no agent to route it through");
}

TEST_F(PipelineTest, CancelledApprovalWithCancelledCallerIsAbortedBeforeDispatch) {
  Trace();
  Registration r = MustRegister(rt_, Define(EchoSpec()));
  Registration ask = rt_.registry().OnPreExecute(
      [](const Execution&, const PreExecuteNext&) { return PreDecision::Ask(); });
  AbortController caller;
  FixedApproval approval(ApprovalOutcome::kCancelled, &caller);
  rt_.set_approval(&approval);
  ToolCallInput in = Call("echo", Args({{"s", "x"}}));
  in.agent = Scope::Create("main");
  in.signal = caller.signal();
  ToolResultPtr res = Exec(rt_, std::move(in));
  EXPECT_EQ(Code(*res), "ABORTED_BEFORE_DISPATCH");
  EXPECT_EQ(Stages(), "pre>post>result");
  rt_.set_approval(nullptr);
}

TEST_F(PipelineTest, GuardsRunOnlyAfterAllowAndTheFirstReasonWins) {  // 36
  Registration r = MustRegister(rt_, Define(EchoSpec()));
  ScopePtr parent = Scope::Create("parent");
  ScopePtr child = Scope::Create("child", parent);
  std::string order;
  auto guard = [&](std::string tag, std::optional<std::string> reason) {
    return [&order, tag, reason](const Execution&) {
      order += tag;
      return reason;
    };
  };
  Registration g1 = rt_.registry().Guard(guard("C", std::nullopt), child);
  Registration g2 = rt_.registry().Guard(guard("P", std::nullopt), parent);
  Registration g3 = rt_.registry().Guard(guard("G", std::nullopt));
  Registration g4 = rt_.registry().Guard(guard("D", ""), child);  // an empty reason still denies
  Registration g5 = rt_.registry().Guard(guard("X", "never reached"), child);
  ToolCallInput in = Call("echo", Args({{"s", "x"}}));
  in.agent = child;
  ToolResultPtr res = Exec(rt_, std::move(in));
  EXPECT_EQ(order, "GPCD");  // global first, then the chain farthest-first, each in registration order
  EXPECT_EQ(Text(*res), "Error: ");

  order.clear();
  Registration deny = rt_.registry().OnPreExecute(
      [](const Execution&, const PreExecuteNext&) { return PreDecision::Deny("pre"); });
  Exec(rt_, Call("echo", Args({{"s", "x"}})));
  EXPECT_EQ(order, "");  // guards are skipped after a deny
}

TEST_F(PipelineTest, LaterPreListenerCannotUndoAGuardDenial) {  // 37
  Registration r = MustRegister(rt_, Define(EchoSpec()));
  Registration g = rt_.registry().Guard([](const Execution&) -> std::optional<std::string> { return "blocked echo"; });
  Registration allow = rt_.registry().OnPreExecute(
      [](const Execution&, const PreExecuteNext&) { return PreDecision::Allow(); });
  EXPECT_EQ(Text(*Exec(rt_, Call("echo", Args({{"s", "x"}})))), "Error: blocked echo");
}

TEST_F(PipelineTest, ThrowingGuardOrPreListenerGivesAFinalResultBypassingPost) {  // 36, 38
  Trace();
  Registration r = MustRegister(rt_, Define(EchoSpec()));
  {
    Registration boom = rt_.registry().OnPreExecute(
        [](const Execution&, const PreExecuteNext&) -> PreDecision { throw std::runtime_error("boom"); }, nullptr, true);
    ToolResultPtr res = Exec(rt_, Call("echo", Args({{"s", "x"}})));
    EXPECT_EQ(Text(*res), "Error: boom");
    EXPECT_EQ(Stages(), "result");
  }
  trace_.clear();
  Registration g = rt_.registry().Guard([](const Execution&) -> std::optional<std::string> { throw std::runtime_error("gfail"); });
  EXPECT_EQ(Text(*Exec(rt_, Call("echo", Args({{"s", "x"}})))), "Error: gfail");
  EXPECT_EQ(Stages(), "pre>guard>result");
}

TEST_F(PipelineTest, WrapperReplacesTheSignalAndTheBodySeesItFusedWithTheCaller) {  // 41
  ToolDefinition spec = EchoSpec();
  bool saw_abort = false;
  AbortController caller;
  spec.execute = [&](ToolRunContext& run) {
    caller.Abort("stop");  // the caller's abort reaches the body through the fused signal
    saw_abort = run.signal().aborted() && run.signal().reason() == "stop";
    return *run.arguments().Find("s");
  };
  Registration r = MustRegister(rt_, Define(spec));
  AbortController wrapper_ctl;
  bool restored = false;
  Registration w = rt_.registry().OnExecute([&](Execution& exec, ExecuteNext next) -> asio::awaitable<ToolResultPtr> {
    const Signal upstream = exec.signal();
    exec.set_signal(wrapper_ctl.signal());
    ToolResultPtr res = co_await next();
    restored = exec.signal() == wrapper_ctl.signal();  // dispatch restored the wrapper's signal
    exec.set_signal(upstream);
    co_return res;
  });
  ToolCallInput in = Call("echo", Args({{"s", "x"}}));
  in.signal = caller.signal();
  ToolResultPtr res = Exec(rt_, std::move(in));
  EXPECT_TRUE(saw_abort);
  EXPECT_TRUE(restored);
  EXPECT_EQ(Code(*res), "ABORTED");  // a success superseded by the caller's abort
}

TEST_F(PipelineTest, WrapperAuthoredSuccessIsRevalidatedAndRerendered) {  // 42
  Registration r = MustRegister(rt_, Define(EchoSpec()));
  Registration w = rt_.registry().OnExecute([](Execution&, ExecuteNext) -> asio::awaitable<ToolResultPtr> {
    ToolResult cached;
    cached.content = TextContent("IGNORED");
    cached.value = Value("cached");
    cached.additional_contexts.push_back(Value("ctx"));
    co_return std::make_shared<const ToolResult>(cached);
  });
  ToolResultPtr res = Exec(rt_, Call("echo", Args({{"s", "x"}})));
  EXPECT_EQ(json::Serialize(res->ToJson()),
            R"({"isError":false,"content":[{"type":"text","text":"cached"}],"meta":{"len":6},"additionalContexts":["ctx"],"value":"cached"})");
}

TEST_F(PipelineTest, CachedResultOfAnEarlierCallIsRenormalizedForEachLaterCall) {
  // A result keeps the identity of the execution that made it canonical. An
  // execution's memory is reused once it is freed, so an identity by address
  // let a cached result pass as canonical for a later call (about half of them).
  ToolDefinition spec = EchoSpec();
  spec.output.render = [](const Value& args, const Value& v) {
    return TextContent(args.Find("s")->as_string() + ":" + v.as_string());
  };
  Registration r = MustRegister(rt_, Define(spec));
  ToolResultPtr cache;
  Registration w = rt_.registry().OnExecute([&](Execution&, ExecuteNext next) -> asio::awaitable<ToolResultPtr> {
    if (!cache) cache = co_await next();
    co_return cache;
  });
  ASSERT_EQ(Text(*Exec(rt_, Call("echo", Args({{"s", "first"}})))), "first:first");
  int stale = 0;
  for (int i = 0; i < 50; ++i) {
    const std::string s = "call" + std::to_string(i);
    ToolResultPtr res = Exec(rt_, Call("echo", Args({{"s", s}}), "c" + std::to_string(i)));
    stale += Text(*res) != s + ":first";
  }
  EXPECT_EQ(stale, 0);
}

TEST_F(PipelineTest, WrapperInvalidValueOrThrowIsFinalAndBypassesPost) {  // 43
  Trace();
  Registration r = MustRegister(rt_, Define(EchoSpec()));
  {
    Registration w = rt_.registry().OnExecute(
        [](Execution&, ExecuteNext) -> asio::awaitable<ToolResultPtr> {
          ToolResult bad;
          bad.value = Value(42);
          co_return std::make_shared<const ToolResult>(bad);
        },
        nullptr, true);
    ToolResultPtr res = Exec(rt_, Call("echo", Args({{"s", "x"}})));
    EXPECT_EQ(Text(*res), "Error: tool \"echo\" returned invalid output: \"value\" must be a string");
    EXPECT_EQ(Code(*res), "INVALID_TOOL_OUTPUT");
    EXPECT_EQ(Stages(), "pre>guard>result");
  }
  trace_.clear();
  Registration w = rt_.registry().OnExecute(
      [](Execution&, ExecuteNext) -> asio::awaitable<ToolResultPtr> { throw std::runtime_error("wrapfail"); }, nullptr,
      true);
  EXPECT_EQ(Text(*Exec(rt_, Call("echo", Args({{"s", "x"}})))), "Error: wrapfail");
  EXPECT_EQ(Stages(), "pre>guard>result");
}

TEST_F(PipelineTest, WrapperFailureSurvivesCallerCancellation) {  // 44
  Registration r = MustRegister(rt_, Define(EchoSpec()));
  AbortController caller;
  Registration w = rt_.registry().OnExecute([&](Execution&, ExecuteNext next) -> asio::awaitable<ToolResultPtr> {
    co_await next();
    caller.Abort("late");
    co_return std::make_shared<const ToolResult>(ToolResult::Failure(ToolTimeoutError(1500)));
  });
  ToolCallInput in = Call("echo", Args({{"s", "x"}}));
  in.signal = caller.signal();
  ToolResultPtr res = Exec(rt_, std::move(in));
  EXPECT_EQ(Text(*res), "Error: tool call timed out after 1500ms");
  EXPECT_EQ(res->error->info, (ErrorInfo{"ToolTimeoutError", "TOOL_TIMEOUT"}));
}

TEST_F(PipelineTest, RetryingWrapperReentersTheInnerWrappers) {  // decision: next() is re-entrant
  int inner = 0, bodies = 0;
  ToolDefinition spec = EchoSpec();
  spec.execute = [&](ToolRunContext& run) {
    ++bodies;
    return *run.arguments().Find("s");
  };
  Registration r = MustRegister(rt_, Define(spec));
  Registration outer = rt_.registry().OnExecute([](Execution&, ExecuteNext next) -> asio::awaitable<ToolResultPtr> {
    co_await next();
    co_return co_await next();
  });
  Registration in = rt_.registry().OnExecute([&](Execution&, ExecuteNext next) -> asio::awaitable<ToolResultPtr> {
    ++inner;
    co_return co_await next();
  });
  EXPECT_EQ(Text(*Exec(rt_, Call("echo", Args({{"s", "x"}})))), "x");
  EXPECT_EQ(inner, 2);
  EXPECT_EQ(bodies, 2);
}

TEST_F(PipelineTest, BodyExceptionsBecomeFailures) {  // 45
  ToolDefinition spec = EchoSpec();
  int mode = 0;
  spec.execute = [&](ToolRunContext&) -> Value {
    switch (mode) {
      case 0: throw std::runtime_error("disk full");
      case 1: throw ToolError("quota", "QuotaError", "QUOTA");
      case 2: throw std::string("plain");
      default: throw 42;
    }
  };
  Registration r = MustRegister(rt_, Define(spec));
  auto run = [&](int m) {
    mode = m;
    return Exec(rt_, Call("echo", Args({{"s", "x"}})));
  };
  ToolResultPtr a = run(0);
  EXPECT_EQ(Text(*a), "Error: disk full");
  EXPECT_FALSE(a->error->info.has_value());
  EXPECT_EQ(run(1)->error->info, (ErrorInfo{"QuotaError", "QUOTA"}));
  EXPECT_EQ(Text(*run(2)), "Error: plain");
  EXPECT_EQ(Text(*run(3)), "Error: <unprintable thrown value>");
}

TEST_F(PipelineTest, OutputContractFailuresAreInvalidToolOutput) {  // 19, 20, 46
  ToolDefinition spec = EchoSpec();
  Value ret;
  bool render_throws = false, meta_throws = false, render_nan = false, meta_nan = false;
  spec.execute = [&](ToolRunContext&) { return ret; };
  spec.output.render = [&](const Value&, const Value& v) {
    if (render_throws) throw std::runtime_error("boom");
    if (render_nan) {
      Content c;
      c.push_back(Value(std::nan("")));
      return c;
    }
    return TextContent(v.is_string() ? v.as_string() : "?");
  };
  spec.output.presentation_meta = [&](const Value&, const Value&) {
    if (meta_throws) throw std::runtime_error("mboom");
    return meta_nan ? Value(-0.0) : Value(1);
  };
  Registration r = MustRegister(rt_, Define(spec));
  auto text = [&] { return Text(*Exec(rt_, Call("echo", Args({{"s", "x"}})))); };
  const std::string prefix = "Error: tool \"echo\" returned invalid output: ";
  ret = Value(42);
  EXPECT_EQ(text(), prefix + "\"value\" must be a string");
  ret = Value(std::nan(""));
  EXPECT_EQ(text(), prefix + "value is not lossless JSON");
  ret = Value("ok");
  render_throws = true;
  EXPECT_EQ(text(), prefix + "output.render failed: boom");
  render_throws = false, render_nan = true;
  EXPECT_EQ(text(), prefix + "output.render returned non-lossless JSON");
  render_nan = false, meta_throws = true;
  EXPECT_EQ(text(), prefix + "output.presentationMeta failed: mboom");
  meta_throws = false, meta_nan = true;
  EXPECT_EQ(text(), prefix + "output.presentationMeta returned non-lossless JSON");
}

TEST_F(PipelineTest, PresentationMetaOnlyForTopLevelCalls) {  // 47
  Registration r = MustRegister(rt_, Define(EchoSpec()));
  ToolCallInput nested = Call("echo", Args({{"s", "x"}}));
  nested.parent = ExecutionToken::Mint();
  EXPECT_FALSE(Exec(rt_, std::move(nested))->meta.has_value());
  EXPECT_TRUE(Exec(rt_, Call("echo", Args({{"s", "x"}})))->meta.has_value());
}

Content Feedback() {
  Content c = TextContent("secret");
  c.push_back(Value::MakeObject({{"type", "image"}}));
  return c;
}

TEST_F(PipelineTest, PostBlockReplacesTheResultAndKeepsOnlyItsOwnContexts) {  // 48, 49
  ToolDefinition spec = EchoSpec();
  spec.execute = [](ToolRunContext& run) {
    run.DeferContext(Value("deferred"));
    return *run.arguments().Find("s");
  };
  Registration r = MustRegister(rt_, Define(spec));
  Content feedback = Feedback();
  Registration post = rt_.registry().OnPostExecute([&](const Execution&, const ToolResult&, const PostExecuteNext&) {
    PostDecision d = PostDecision::Block(feedback);
    d.additional_contexts.push_back(Value("decision"));
    return d;
  });
  ToolResultPtr res = Exec(rt_, Call("echo", Args({{"s", "x"}})));
  EXPECT_EQ(json::Serialize(res->ToJson()),
            R"({"isError":true,"error":{"message":"secret\n[image content]"},"content":[{"type":"text","text":"secret"},{"type":"image"}],"additionalContexts":["decision"]})");
  feedback.clear();
  EXPECT_EQ(Exec(rt_, Call("echo", Args({{"s", "x"}})))->error->message, "tool result blocked by post-execute policy");
}

TEST_F(PipelineTest, PostAcceptContentKeepsValueAndMeta) {  // 50
  Registration r = MustRegister(rt_, Define(EchoSpec()));
  Registration post = rt_.registry().OnPostExecute([](const Execution&, const ToolResult&, const PostExecuteNext&) {
    return PostDecision::AcceptContent(TextContent("redacted"));
  });
  EXPECT_EQ(json::Serialize(Exec(rt_, Call("echo", Args({{"s", "hi"}})))->ToJson()),
            R"({"isError":false,"content":[{"type":"text","text":"redacted"}],"meta":{"len":2},"value":"hi"})");
}

TEST_F(PipelineTest, PostAcceptValueRevalidatesRerendersAndRecomputesMeta) {  // 50
  Registration r = MustRegister(rt_, Define(EchoSpec()));
  Value replacement("longer");
  Registration post = rt_.registry().OnPostExecute([&](const Execution&, const ToolResult&, const PostExecuteNext&) {
    return PostDecision::AcceptValue(replacement);
  });
  EXPECT_EQ(json::Serialize(Exec(rt_, Call("echo", Args({{"s", "hi"}})))->ToJson()),
            R"({"isError":false,"content":[{"type":"text","text":"longer"}],"meta":{"len":6},"value":"longer"})");
  replacement = Value(1);
  EXPECT_EQ(Code(*Exec(rt_, Call("echo", Args({{"s", "hi"}})))), "INVALID_TOOL_OUTPUT");
}

TEST_F(PipelineTest, MalformedPostDecisionsFailWithExactTexts) {  // 51, 52, 53
  Registration r = MustRegister(rt_, Define(EchoSpec()));
  PostDecision decision;
  Registration post = rt_.registry().OnPostExecute(
      [&](const Execution&, const ToolResult&, const PostExecuteNext&) { return decision; });
  decision.content = TextContent("c");
  decision.value = Value("v");
  EXPECT_EQ(Text(*Exec(rt_, Call("echo", Args({{"s", "hi"}})))),
            "Error: tools/post-execute accept decision cannot replace both value and content");
  decision = PostDecision::AcceptValue(Value("v"));
  EXPECT_EQ(Text(*Exec(rt_, Call("echo", Args({{"s", 1}})))),
            "Error: tools/post-execute cannot replace the value of a failed result");
  decision = PostDecision::AcceptContent(TextContent("looks fine"));
  ToolResultPtr res = Exec(rt_, Call("echo", Args({{"s", 1}})));
  EXPECT_TRUE(res->is_error);  // accept never turns a failure into a success
  EXPECT_EQ(Text(*res), "looks fine");
}

TEST_F(PipelineTest, DeferredContextsComeFirstAndSurviveABodyThrow) {  // 54
  ToolDefinition spec = EchoSpec();
  bool fail = false;
  spec.execute = [&](ToolRunContext& run) -> Value {
    run.DeferContext(Value("deferred"));
    if (fail) throw std::runtime_error("x");
    return *run.arguments().Find("s");
  };
  Registration r = MustRegister(rt_, Define(spec));
  Registration post = rt_.registry().OnPostExecute([](const Execution&, const ToolResult&, const PostExecuteNext& next) {
    PostDecision d = next();
    d.additional_contexts.push_back(Value("post"));
    return d;
  });
  auto contexts = [&] {
    std::string s;
    ToolResultPtr res = Exec(rt_, Call("echo", Args({{"s", "x"}})));
    for (const Value& c : res->additional_contexts) s += c.as_string() + ",";
    return s;
  };
  EXPECT_EQ(contexts(), "deferred,post,");
  fail = true;
  EXPECT_EQ(contexts(), "deferred,post,");
}

TEST_F(PipelineTest, ConcludeTurnMarksSuccessesOnly) {  // 55
  ToolDefinition spec = EchoSpec();
  bool fail = false;
  spec.execute = [&](ToolRunContext& run) -> Value {
    run.ConcludeTurn();
    if (fail) throw std::runtime_error("x");
    return *run.arguments().Find("s");
  };
  Registration r = MustRegister(rt_, Define(spec));
  EXPECT_TRUE(Exec(rt_, Call("echo", Args({{"s", "x"}})))->concludes_turn);
  fail = true;
  ToolResultPtr res = Exec(rt_, Call("echo", Args({{"s", "x"}})));
  EXPECT_FALSE(res->concludes_turn);
  EXPECT_EQ(json::Serialize(res->ToJson()).find("concludesTurn"), std::string::npos);
}

TEST_F(PipelineTest, PreAbortedCallRunsNoPolicyAndPublishesOnce) {  // 56
  Trace();
  Registration r = MustRegister(rt_, Define(EchoSpec()));
  AbortController caller;
  caller.Abort();
  ToolCallInput in = Call("echo", Args({{"s", "x"}}));
  in.signal = caller.signal();
  ToolResultPtr res = Exec(rt_, std::move(in));
  EXPECT_EQ(Stages(), "result");
  EXPECT_EQ(Text(*res), "Error: tool call aborted before dispatch");
  EXPECT_EQ(res->error->info, (ErrorInfo{"AbortError", "ABORTED_BEFORE_DISPATCH"}));
}

TEST_F(PipelineTest, AbortDuringPreOrGuardsIsAbortedBeforeDispatchWithPost) {  // 57
  Trace();
  Registration r = MustRegister(rt_, Define(EchoSpec()));
  AbortController caller;
  Registration g = rt_.registry().Guard([&](const Execution&) -> std::optional<std::string> {
    caller.Abort();
    return std::nullopt;
  });
  ToolCallInput in = Call("echo", Args({{"s", "x"}}));
  in.signal = caller.signal();
  EXPECT_EQ(Code(*Exec(rt_, std::move(in))), "ABORTED_BEFORE_DISPATCH");
  EXPECT_EQ(Stages(), "pre>guard>post>result");
}

TEST_F(PipelineTest, AbortDuringTheBodySupersedesSuccessButNotABodyError) {  // 58
  ToolDefinition spec = EchoSpec();
  AbortController caller;
  bool fail = false;
  spec.execute = [&](ToolRunContext& run) -> Value {
    caller.Abort();
    if (fail) throw std::runtime_error("body failed first");
    return *run.arguments().Find("s");
  };
  Registration r = MustRegister(rt_, Define(spec));
  auto run = [&] {
    caller = AbortController();
    ToolCallInput in = Call("echo", Args({{"s", "x"}}));
    in.signal = caller.signal();
    return Exec(rt_, std::move(in));
  };
  ToolResultPtr ok = run();
  EXPECT_EQ(Text(*ok), "Error: tool call aborted");
  EXPECT_EQ(ok->error->info, (ErrorInfo{"AbortError", "ABORTED"}));
  fail = true;
  EXPECT_EQ(Text(*run()), "Error: body failed first");
}

TEST_F(PipelineTest, FinalizeContentRunsExactlyOnceForEveryOutcome) {  // 59
  int calls = 0;
  ToolDefinition spec = EchoSpec();
  spec.finalize_content = [&](const Execution&, const ToolResult& r) -> std::optional<Content> {
    ++calls;
    return TextContent("FINAL " + std::string(r.is_error ? "err" : "ok"));
  };
  Registration r = MustRegister(rt_, Define(spec));
  auto check = [&](ToolCallInput in, const std::string& want) {
    calls = 0;
    ToolResultPtr res = Exec(rt_, std::move(in));
    EXPECT_EQ(calls, 1) << want;
    EXPECT_EQ(Text(*res), want);
    return res;
  };
  check(Call("echo", Args({{"s", "x"}})), "FINAL ok");
  ToolResultPtr invalid = check(Call("echo", Args({{"s", 1}})), "FINAL err");
  EXPECT_EQ(invalid->error->message, "invalid arguments: \"s\" must be a string");  // only content changes
  check(Call("echo", Args({{"s", std::nan("")}})), "FINAL err");
  AbortController aborted;
  aborted.Abort();
  ToolCallInput pre = Call("echo", Args({{"s", "x"}}));
  pre.signal = aborted.signal();
  check(std::move(pre), "FINAL err");
  Registration deny = rt_.registry().OnPreExecute(
      [](const Execution&, const PreExecuteNext&) -> PreDecision { throw std::runtime_error("pre"); });
  check(Call("echo", Args({{"s", "x"}})), "FINAL err");
}

TEST_F(PipelineTest, ThrowingFinalizerGivesAnErrorThatIsNotFinalizedAgain) {  // 59
  int calls = 0;
  ToolDefinition spec = EchoSpec();
  spec.finalize_content = [&](const Execution&, const ToolResult&) -> std::optional<Content> {
    ++calls;
    throw std::runtime_error("fin");
  };
  Registration r = MustRegister(rt_, Define(spec));
  ToolResultPtr res = Exec(rt_, Call("echo", Args({{"s", "x"}})));
  EXPECT_EQ(Text(*res), "Error: fin");
  EXPECT_EQ(calls, 1);
}

TEST_F(PipelineTest, FinalizerIsSnapshottedAtCreationWhileTheBodyIsResolvedAtDispatch) {  // §4.3 hot swap
  ToolDefinition old_spec = EchoSpec();
  old_spec.finalize_content = [](const Execution&, const ToolResult& r) -> std::optional<Content> {
    return TextContent("old finalizer: " + r.value->as_string());
  };
  ToolDefinition new_spec = EchoSpec();
  new_spec.execute = [](ToolRunContext&) { return Value("new body"); };
  auto reg = std::make_shared<Registration>(MustRegister(rt_, Define(old_spec)));
  Registration swap = rt_.registry().OnPreExecute([&](const Execution&, const PreExecuteNext& next) {
    reg->Dispose();
    *reg = MustRegister(rt_, Define(new_spec));
    return next();
  });
  EXPECT_EQ(Text(*Exec(rt_, Call("echo", Args({{"s", "x"}})))), "old finalizer: new body");
}

TEST_F(PipelineTest, ObserverFailureIsLoggedAndChangesNothing) {  // 60
  Registration r = MustRegister(rt_, Define(EchoSpec()));
  Registration bad = rt_.registry().OnResult(
      [](const Execution&, const ToolResultPtr&) { throw std::runtime_error("observer broke"); });
  ToolResultPtr res = Exec(rt_, Call("echo", Args({{"s", "x"}}), "call-7"));
  EXPECT_EQ(Text(*res), "x");
  ASSERT_EQ(warnings_.size(), 1u);
  EXPECT_EQ(warnings_[0], "tool \"echo\" (call-7): tools/result observer failed: observer broke");
}

TEST_F(PipelineTest, ObserversSeeTheReturnedObjectAndAFrozenExecution) {  // 61
  Registration r = MustRegister(rt_, Define(EchoSpec()));
  ToolResultPtr seen;
  bool frozen = false;
  Registration obs = rt_.registry().OnResult([&](const Execution& exec, const ToolResultPtr& res) {
    seen = res;
    frozen = exec.frozen();
  });
  ToolResultPtr res = Exec(rt_, Call("echo", Args({{"s", "x"}})));
  EXPECT_EQ(seen.get(), res.get());
  EXPECT_TRUE(frozen);
}

TEST_F(PipelineTest, ScopedListenersSeeOnlyTheirAgentsCalls) {  // §5.6
  Registration r = MustRegister(rt_, Define(EchoSpec()));
  ScopePtr a = Scope::Create("a"), b = Scope::Create("b");
  int global = 0, scoped = 0;
  Registration g = rt_.registry().OnResult([&](const Execution&, const ToolResultPtr&) { ++global; });
  Registration s = rt_.registry().OnResult([&](const Execution&, const ToolResultPtr&) { ++scoped; }, a);
  for (ScopePtr who : {a, b, ScopePtr()}) {
    ToolCallInput in = Call("echo", Args({{"s", "x"}}));
    in.agent = who;
    Exec(rt_, std::move(in));
  }
  EXPECT_EQ(global, 3);
  EXPECT_EQ(scoped, 1);
}

TEST_F(PipelineTest, AsyncBodiesAndTheTimeoutPolicy) {  // §5.5
  ToolDefinition spec = EchoSpec();
  spec.timeout_ms = 20;
  spec.execute = nullptr;
  spec.execute_async = [](ToolRunContext& run) -> asio::awaitable<Value> {
    bool full = co_await SleepFor(std::chrono::seconds(10), run.signal());
    co_return Value(full ? "slept" : "woken");
  };
  Registration r = MustRegister(rt_, Define(spec));
  Registration timeout = InstallTimeoutPolicy(rt_);
  auto start = std::chrono::steady_clock::now();
  ToolResultPtr res = Exec(rt_, Call("echo", Args({{"s", "x"}})));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(Text(*res), "Error: tool call timed out after 20ms");
  EXPECT_EQ(Code(*res), "TOOL_TIMEOUT");
}

TEST_F(PipelineTest, TimeoutPolicyStopsABlockingSyncBody) {
  ToolDefinition spec = EchoSpec();
  spec.timeout_ms = 30;
  spec.execute = [](ToolRunContext& run) {
    while (!run.signal().aborted()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return Value("stopped");
  };
  Registration r = MustRegister(rt_, Define(spec));
  Registration timeout = InstallTimeoutPolicy(rt_);
  EXPECT_EQ(Code(*Exec(rt_, Call("echo", Args({{"s", "x"}})))), "TOOL_TIMEOUT");
}

TEST_F(PipelineTest, ToolWithoutTimeoutIsUntouchedByThePolicy) {
  Registration r = MustRegister(rt_, Define(EchoSpec()));
  Registration timeout = InstallTimeoutPolicy(rt_);
  EXPECT_EQ(Text(*Exec(rt_, Call("echo", Args({{"s", "x"}})))), "x");
}

}  // namespace
}  // namespace retrace::runtime
