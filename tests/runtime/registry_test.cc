// The registry (dsh-tool-contract §4): registration checks and their order,
// layers and shadowing, disposal, restrictions, schemas, guards and
// executionMode. Numbers refer to the §10 checklist.
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/json/writer.h"
#include "tests/runtime/runtime_test_util.h"

namespace retrace::runtime {
namespace {

using json::Value;
using namespace testing;

std::string Names(const std::vector<ToolSchema>& schemas) {
  std::string s;
  for (const ToolSchema& t : schemas) s += (s.empty() ? "" : ",") + t.name;
  return s;
}

ToolDefinitionPtr Tool(const std::string& name, const std::string& description = "d") {
  ToolDefinition spec = EchoSpec(name);
  spec.description = description;
  return Define(spec);
}

class RegistryTest : public ::testing::Test {
 protected:
  ToolRegistry& reg() { return rt_.registry(); }
  ToolRuntime rt_{RuntimeOptions{.blocking_threads = 1}};
};

TEST_F(RegistryTest, RegisterChecksRunInDshOrderWithExactTexts) {  // 23, 24
  auto with = [](auto mutate) {
    ToolDefinition d = *Tool("t");
    mutate(d);
    return std::make_shared<const ToolDefinition>(d);
  };
  auto msg = [&](ToolDefinitionPtr d) { return reg().Register(d).status().message(); };
  // Every later check would fail too; the first in order wins.
  EXPECT_EQ(msg(with([](ToolDefinition& d) {
              d.output.render = nullptr;
              d.output.schema = Value::MakeObject({{"type", "object"}, {"additionalProperties", 1}});
              d.timeout_ms = -1;
              d.name = "run_code";
            })),
            "tool \"run_code\" must declare output { schema, render, presentationMeta? }");
  EXPECT_EQ(msg(with([](ToolDefinition& d) {
              d.output.schema = Value::MakeObject({{"type", "object"}, {"additionalProperties", 1}});
              d.timeout_ms = -1;
            })),
            "unsupported JSON schema: schema.additionalProperties must be a boolean");
  EXPECT_EQ(msg(with([](ToolDefinition& d) {
              d.timeout_ms = std::numeric_limits<double>::infinity();
              d.name = "run_code";
            })),
            "tool \"run_code\" timeoutMs must be a positive finite number");
  EXPECT_EQ(msg(with([](ToolDefinition& d) { d.name = "run_code"; })),
            "tool name \"run_code\" is reserved for the Code Mode presentation transport and cannot be registered or "
            "shadowed");
  EXPECT_EQ(msg(with([](ToolDefinition& d) { d.execute = nullptr; })),
            "tool \"t\" must declare a body (execute or execute_async)");
  EXPECT_EQ(msg(with([](ToolDefinition& d) {
              d.execute = nullptr;
              d.execute_async = [](ToolRunContext&) -> asio::awaitable<json::Value> { co_return json::Value(); };
              d.execute_brief = [](ToolRunContext&) -> std::optional<json::Value> { return std::nullopt; };
            })),
            "tool \"t\" declares execute_brief without execute (what runs when it declines)");
}

TEST_F(RegistryTest, DuplicateInOneLayerIsRefusedWhileAScopeShadows) {  // 25
  Registration g = MustRegister(rt_, Tool("read", "global"));
  EXPECT_EQ(reg().Register(Tool("read")).status().message(),
            "tool \"read\" is already registered (for a per-agent variant, register through that agent's `agent.ctx` "
            "instead)");
  ScopePtr agent = Scope::Create("a"), other = Scope::Create("b");
  Registration s = MustRegister(rt_, Tool("read", "scoped"), agent);
  EXPECT_EQ(reg().Register(Tool("read"), agent).status().message(), "tool \"read\" is already registered in this scope");
  EXPECT_EQ(reg().Get("read", agent)->description, "scoped");
  EXPECT_EQ(reg().Get("read", other)->description, "global");
  EXPECT_EQ(reg().Get("read")->description, "global");
}

TEST_F(RegistryTest, ChildScopeInheritsAndNearerAncestorShadows) {
  ScopePtr parent = Scope::Create("parent"), child = Scope::Create("child", parent);
  Registration g1 = MustRegister(rt_, Tool("a", "global"));
  Registration g2 = MustRegister(rt_, Tool("b", "global"));
  Registration p = MustRegister(rt_, Tool("a", "parent"), parent);
  Registration c = MustRegister(rt_, Tool("c", "child"), child);
  EXPECT_EQ(reg().Get("a", child)->description, "parent");
  EXPECT_EQ(Names(reg().Schemas(child)), "a,b,c");  // a keeps the global position
}

TEST_F(RegistryTest, DisposalUnregistersEmitsChangeAndIsIdempotent) {  // 26, 27
  int changes = 0;
  Registration watch = reg().OnChange([&] { ++changes; });
  Registration r = MustRegister(rt_, Tool("t"));
  EXPECT_EQ(changes, 1);
  r.Dispose();
  r.Dispose();
  EXPECT_EQ(changes, 2);
  EXPECT_EQ(reg().Get("t"), nullptr);
  {
    Registration scoped_lifetime = MustRegister(rt_, Tool("t"));
    EXPECT_NE(reg().Get("t"), nullptr);
  }
  EXPECT_EQ(reg().Get("t"), nullptr);  // destruction disposes
  EXPECT_EQ(changes, 4);
  Registration guard = reg().Guard([](const Execution&) { return std::nullopt; });
  guard.Dispose();
  EXPECT_EQ(changes, 4);  // guards emit no tools/change
}

TEST_F(RegistryTest, EffectScopeDisposesInReverseOrderAndRefusesLateRegistrations) {  // 26
  std::string order;
  Registration watch = reg().OnChange([&] { order += reg().Get("a") ? "A" : "-"; });
  auto fiber = std::make_unique<EffectScope>();
  ASSERT_TRUE(fiber->Adopt(MustRegister(rt_, Tool("a"))).ok());
  ASSERT_TRUE(fiber->Adopt(MustRegister(rt_, Tool("b"))).ok());
  order.clear();
  fiber->Dispose();
  EXPECT_EQ(order, "A-");  // b went first, then a
  Status late = fiber->Adopt(MustRegister(rt_, Tool("c")));
  EXPECT_EQ(late.code(), Status::Code::kFailedPrecondition);
  EXPECT_EQ(reg().Get("c"), nullptr);
}

TEST_F(RegistryTest, HotSwapIsDisposeThenRegister) {  // §4.3
  int changes = 0;
  Registration watch = reg().OnChange([&] { ++changes; });
  Registration r = MustRegister(rt_, Tool("t", "v1"));
  r.Dispose();
  r = MustRegister(rt_, Tool("t", "v2"));
  EXPECT_EQ(reg().Get("t")->description, "v2");
  EXPECT_EQ(changes, 3);
}

TEST_F(RegistryTest, SchemasAreTheModelProjectionAsFreshCopies) {  // 28
  Registration r1 = MustRegister(rt_, Tool("b"));
  Registration r2 = MustRegister(rt_, Tool("a"));
  std::vector<ToolSchema> first = reg().Schemas();
  EXPECT_EQ(Names(first), "b,a");  // registration order, deterministic
  EXPECT_EQ(json::Serialize(first[0].ToJson()),
            R"({"name":"b","description":"d","parameters":{"type":"object","properties":{"s":{"type":"string"}},"required":["s"]}})");
  first[0].parameters.Set("mutated", true);
  EXPECT_EQ(reg().Schemas()[0].parameters.Find("mutated"), nullptr);
}

TEST_F(RegistryTest, RestrictErrorsHaveExactTexts) {  // 29
  ScopePtr agent = Scope::Create("a");
  auto msg = [&](ScopePtr s, ToolFilter f) { return reg().Restrict(s, std::move(f)).status().message(); };
  EXPECT_EQ(msg(nullptr, {.allow = std::vector<std::string>{}}),
            "tools.restrict() requires a scoped context (agent.ctx): a context-global restriction would mask every "
            "agent — deny the tool for the intended agent instead");
  EXPECT_EQ(msg(agent, {}),
            "tools.restrict({}) is a no-op: pass `allow` and/or `deny` (an empty filter is almost always a "
            "materialized-empty-config bug)");
  EXPECT_EQ(msg(agent, {.deny = std::vector<std::string>{"run_code"}}),
            "tools.restrict() cannot name reserved Code Mode presentation transport \"run_code\"; restrict "
            "end-capability tools instead");
  EXPECT_EQ(msg(agent, {.deny = std::vector<std::string>{"x"}}),
            "tools.restrict() names unknown global tool \"x\"; known global tools: (none)");
  Registration b = MustRegister(rt_, Tool("bash"));
  Registration r = MustRegister(rt_, Tool("read"));
  Registration own = MustRegister(rt_, Tool("mine"), agent);  // own-layer names are not restrictable
  EXPECT_EQ(msg(agent, {.allow = std::vector<std::string>{"x"}, .deny = std::vector<std::string>{"mine"}}),
            "tools.restrict() names unknown global tools \"x\", \"mine\"; known global tools: bash, read");
}

TEST_F(RegistryTest, RestrictionsIntersectSpareOwnToolsAndAreEvaluatedLive) {  // 30
  ScopePtr agent = Scope::Create("a");
  Registration r1 = MustRegister(rt_, Tool("bash"));
  Registration r2 = MustRegister(rt_, Tool("read"));
  Registration r3 = MustRegister(rt_, Tool("write"));
  Registration own = MustRegister(rt_, Tool("mine"), agent);
  Result<Registration> allow = reg().Restrict(agent, {.allow = std::vector<std::string>{"bash", "read"}});
  Result<Registration> deny = reg().Restrict(agent, {.deny = std::vector<std::string>{"bash"}});
  ASSERT_TRUE(allow.ok() && deny.ok());
  EXPECT_EQ(Names(reg().Schemas(agent)), "read,mine");
  EXPECT_EQ(reg().Get("bash", agent), nullptr);
  EXPECT_EQ(Names(reg().Schemas()), "bash,read,write");
  allow->Dispose();
  Registration later = MustRegister(rt_, Tool("grep"));  // a deny mask admits later globals
  EXPECT_EQ(Names(reg().Schemas(agent)), "read,write,grep,mine");
  Result<Registration> empty_allow = reg().Restrict(agent, {.allow = std::vector<std::string>{}});
  EXPECT_EQ(Names(reg().Schemas(agent)), "mine");  // {allow: []} hides every inherited tool
}

// Get and Visible share one resolver: for every scope of a three-level chain
// with shadowing, own tools and restrictions, Get(name) is exactly the entry
// Visible lists under that name, and null for every name it does not list.
TEST_F(RegistryTest, GetAgreesWithVisibleForEveryScopeAndName) {
  ScopePtr parent = Scope::Create("parent"), child = Scope::Create("child", parent),
           grandchild = Scope::Create("grandchild", child);
  std::vector<Registration> held;
  for (const char* name : {"a", "b", "c", "d"}) held.push_back(MustRegister(rt_, Tool(name, "global")));
  held.push_back(MustRegister(rt_, Tool("a", "parent"), parent));
  held.push_back(MustRegister(rt_, Tool("e", "parent"), parent));
  held.push_back(MustRegister(rt_, Tool("b", "child"), child));
  held.push_back(MustRegister(rt_, Tool("d", "grandchild"), grandchild));
  held.push_back(std::move(reg().Restrict(child, {.deny = std::vector<std::string>{"c", "e"}})).value());
  held.push_back(std::move(reg().Restrict(grandchild, {.allow = std::vector<std::string>{"a", "b", "e"}})).value());
  const std::vector<std::string> names = {"a", "b", "c", "d", "e", "zz"};
  int listed = 0;
  for (const ScopePtr& scope : {ScopePtr(), parent, child, grandchild}) {
    const std::vector<ToolDefinitionPtr> visible = reg().Visible(scope);
    for (const std::string& name : names) {
      auto it = std::find_if(visible.begin(), visible.end(), [&](const ToolDefinitionPtr& d) { return d->name == name; });
      EXPECT_EQ(reg().Get(name, scope), it == visible.end() ? nullptr : *it) << name;
      listed += it != visible.end();
    }
  }
  EXPECT_EQ(listed, 4 + 5 + 3 + 3);  // global a-d; parent +e; child hides c, e; grandchild allows a, b (+ own d)
  EXPECT_EQ(reg().Get("d", grandchild)->description, "grandchild");  // own tools are exempt from its allow list
  EXPECT_EQ(reg().Get("b", grandchild)->description, "child");
}

TEST_F(RegistryTest, ExecutionModeIsParallelOnlyForAnExactTrue) {  // 32
  ToolDefinition spec = EchoSpec("safe");
  spec.is_concurrency_safe = [](const Value& args) { return args.Find("s")->as_string() == "yes"; };
  Registration r = MustRegister(rt_, Define(spec));
  ToolDefinition throwing = EchoSpec("throws");
  throwing.is_concurrency_safe = [](const Value&) -> bool { throw std::runtime_error("x"); };
  Registration t = MustRegister(rt_, Define(throwing));
  Registration u = MustRegister(rt_, Define(EchoSpec("undeclared")));
  EXPECT_TRUE(rt_.IsConcurrencySafe(Call("safe", Args({{"s", "yes"}}))));
  EXPECT_FALSE(rt_.IsConcurrencySafe(Call("safe", Args({{"s", "no"}}))));
  EXPECT_FALSE(rt_.IsConcurrencySafe(Call("safe", Args({{"s", 1}}))));  // invalid arguments
  EXPECT_FALSE(rt_.IsConcurrencySafe(Call("throws", Args({{"s", "yes"}}))));
  EXPECT_FALSE(rt_.IsConcurrencySafe(Call("undeclared", Args({{"s", "yes"}}))));
  EXPECT_FALSE(rt_.IsConcurrencySafe(Call("unknown", Args({}))));
}

TEST(DefineToolTest, RefusesBadTimeoutAndUnsupportedSchemasWithExactTexts) {
  ToolDefinition spec = EchoSpec("t");
  spec.timeout_ms = 0;
  EXPECT_EQ(DefineTool(spec).status().message(), "defineTool(t): timeoutMs must be a positive finite number");
  spec = EchoSpec("t");
  spec.parameters = Value::MakeObject({{"p", Value::MakeObject({{"type", "string"}, {"required", false}})}});
  EXPECT_EQ(DefineTool(spec).status().message(), "unsupported JSON schema: parameters.p.required must be true when present");
}

TEST(DefineToolTest, APresenterIsMadeOnceAndAReadyOneMustFitTheTool) {
  ToolDefinition spec = EchoSpec("t");
  spec.present_call = [](const Value&) -> std::optional<Value> { return Value::MakeObject({{"card", "generic"}}); };
  ToolDefinitionPtr made = Define(spec);
  ASSERT_NE(made->presenter, nullptr);
  EXPECT_EQ(made->presenter->name, "t");
  EXPECT_EQ(json::Serialize(made->presenter->parameters), json::Serialize(made->parameters));
  EXPECT_EQ(made->present_result, nullptr);  // none given: none made
  ToolDefinition both = spec;
  both.presenter = made->presenter;
  EXPECT_EQ(DefineTool(both).status().message(),
            "defineTool(t): give presentCall/presentResult or a presenter, not both");
  ToolDefinition other = EchoSpec("u");
  other.presenter = made->presenter;
  EXPECT_EQ(DefineTool(other).status().message(), "defineTool(u): its presenter was made for the tool \"t\"");
  ToolDefinition reshaped = EchoSpec("t");
  reshaped.parameters = schema::Parameters({{"n", schema::Number().Required()}});
  reshaped.presenter = made->presenter;
  EXPECT_EQ(DefineTool(reshaped).status().message(), "defineTool(t): its presenter was made for other parameters");
  ToolDefinition ready = EchoSpec("t");
  ready.presenter = made->presenter;
  EXPECT_EQ(Define(ready)->presenter, made->presenter);  // shared, not copied
  EXPECT_EQ(Define(EchoSpec("t"))->presenter, nullptr);  // no presenters: none
}

TEST(DefineToolTest, RevisionsGoIntoThePresenterAndABadChainOrNoPresenterIsRefused) {
  auto revisions = [] {
    return presenters::RevisionSpec{
        .current = 2,
        .parameters = {{1, schema::Parameters({{"text", schema::String().Required()}})}},
        .steps = {{.from = 1, .to = 2, .arguments = [](const Value& a) {
                     return Value::MakeObject({{"s", *a.Find("text")}});
                   }}}};
  };
  ToolDefinition spec = EchoSpec("t");
  spec.revisions = revisions();
  EXPECT_EQ(DefineTool(spec).status().message(),
            "defineTool(t): revisions need presentCall/presentResult to upcast for");
  spec.present_call = [](const Value&) -> std::optional<Value> { return Value::MakeObject({{"card", "generic"}}); };
  ToolDefinitionPtr made = Define(spec);
  ASSERT_NE(made->presenter->revisions, nullptr);
  EXPECT_EQ(made->presenter->revisions->current, 2);
  spec.revisions = revisions();
  spec.revisions->steps[0].to = 1;
  EXPECT_EQ(DefineTool(spec).status().message(),
            "defineTool(t): tool \"t\": step 1 (revision 1 → 1) does not advance");
}

TEST(DefineToolTest, PresentersSoftValidateTheirArguments) {  // §6.3
  ToolDefinition spec = EchoSpec("t");
  spec.present_call = [](const Value& args) -> std::optional<Value> {
    return Value::MakeObject({{"card", "generic"}, {"title", *args.Find("s")}});
  };
  ToolDefinitionPtr def = Define(spec);
  EXPECT_TRUE(def->present_call(Args({{"s", "x"}})).has_value());
  EXPECT_FALSE(def->present_call(Args({{"s", 1}})).has_value());
}

}  // namespace
}  // namespace retrace::runtime
