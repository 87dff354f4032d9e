#include "engine/runtime/run_code.h"

#include <algorithm>
#include <deque>
#include <stdexcept>

#include "engine/json/js_text.h"
#include "engine/log/event_types.h"
#include "engine/runtime/code_mode.h"
#include "engine/runtime/session_recorder.h"
#include "engine/runtime/tool_registry.h"
#include "engine/runtime/tool_runtime.h"
#include "presenters/reference_tools.h"

namespace retrace::runtime {
namespace {

using json::Value;
using Stage = ToolRuntime::Stage;

constexpr char kLossyArguments[] =
    "tool arguments must be lossless JSON (call the tool with an arguments object, e.g. `{}`)";

struct SubCall {
  std::string name;
  std::string sub_call_id;
  ToolCallInput input;  // moved into the pipeline at start
  Value logged;         // the arguments as logged: a copy of their own
  BindingReply reply;
  bool exclusive = false;
  bool settled = false;
  Stage stage;
};

// One program run's sub-calls: submitted from the program, started under the
// concurrency rule, committed in start order. Lives on the runtime's executor
// (every member runs there), and outlives the run_code body only as long as
// a sub-call's coroutine still holds it.
bool HasImage(const Content& content) {
  return std::any_of(content.begin(), content.end(), [](const Value& block) {
    const Value* type = block.Find("type");
    return type != nullptr && type->is_string() && type->as_string() == "image";
  });
}

class Bridge : public std::enable_shared_from_this<Bridge> {
 public:
  Bridge(ToolRuntime& rt, Execution& outer, Signal run, size_t max_parallel, const asio::any_io_executor& ex,
         std::function<std::string()> new_id)
      : rt_(rt), outer_(outer), run_(std::move(run)), max_parallel_(max_parallel), ex_(ex),
        idle_(ex, std::chrono::steady_clock::time_point::max()), new_id_(std::move(new_id)) {}

  void Submit(const std::string& name, std::optional<Value> args, BindingReply reply) {
    if (run_.aborted()) {
      return reply(Status::FailedPrecondition("run_code run is over (" + run_.reason() + "); " + name + " not dispatched"));
    }
    if (!args) return reply(Status::InvalidArgument(kLossyArguments));  // consumes no number
    auto c = std::make_shared<SubCall>();
    c->name = name;
    c->sub_call_id = outer_.call_id() + ":code:" + std::to_string(++counter_);
    c->logged = *args;
    c->input = ToolCallInput{c->sub_call_id, outer_.root_call_id(), name,        std::move(*args), outer_.agent(),
                             outer_.token(),  run_,                 outer_.session_id(), nullptr};
    c->reply = std::move(reply);
    pending_.push_back(std::move(c));
    Drive();
  }

  // Runs once the run is aborted: abandons what is queued and waits for what started.
  asio::awaitable<void> Drain() {
    Drive();
    while (!Idle()) {
      boost::system::error_code ec;
      idle_.expires_at(std::chrono::steady_clock::time_point::max());
      co_await idle_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
  }

 private:
  bool Idle() const { return pending_.empty() && started_.empty(); }

  // Commits the settled head, then starts the queue's head when its slot is
  // free, until neither can move.
  void Drive() {
    if (driving_) return;
    driving_ = true;
    for (;;) {
      if (!started_.empty() && started_.front()->settled) {
        std::shared_ptr<SubCall> c = std::move(started_.front());
        started_.pop_front();
        Commit(*c);
        if (c->exclusive) exclusive_active_ = false;
        continue;
      }
      if (pending_.empty()) break;
      if (run_.aborted()) {
        std::shared_ptr<SubCall> c = std::move(pending_.front());
        pending_.pop_front();
        c->reply(Status::FailedPrecondition("run_code run is over (" + run_.reason() + "); " + c->name + " tool call abandoned"));
        continue;
      }
      // dsh's rule: nothing starts while an exclusive call is uncommitted; an
      // exclusive call starts when no body runs, a safe one below the cap.
      SubCall& head = *pending_.front();
      head.exclusive = !rt_.IsConcurrencySafe(head.input);
      const bool free = !exclusive_active_ && (head.exclusive ? running_ == 0 : running_ < max_parallel_);
      if (!free) break;
      std::shared_ptr<SubCall> c = std::move(pending_.front());
      pending_.pop_front();
      Start(c);
    }
    driving_ = false;
    if (Idle()) idle_.cancel();
  }

  void Start(const std::shared_ptr<SubCall>& c) {
    if (c->exclusive) exclusive_active_ = true;
    ++running_;
    started_.push_back(c);
    Record(log::kToolCodeDispatchStart, Identity(*c));
    asio::co_spawn(
        ex_,
        [self = shared_from_this(), c]() -> asio::awaitable<void> {
          Stage stage = co_await self->rt_.Prepare(std::move(c->input));
          if (stage.kind == Stage::Kind::kDispatch) {
            stage = co_await self->rt_.Dispatch(stage.exec);
          }
          c->stage = std::move(stage);
          c->settled = true;
          --self->running_;
          self->Drive();
        },
        asio::detached);
  }

  void Commit(SubCall& c) {
    const ToolResultPtr r = rt_.Complete(std::move(c.stage));
    if (!r->is_error && HasImage(r->content)) {
      // Intermediate results stay out of the conversation, but an image is
      // attached for the model to look at on its next step (dsh's rule).
      Value source = Value::MakeObject({{"kind", "plugin"}, {"plugin", "tools-code-mode"}});
      outer_.DeferContext(MakeUserMessage(r->content, std::move(source), new_id_()));
    }
    for (const Value& context : r->additional_contexts) outer_.DeferContext(context);
    if (r->concludes_turn) outer_.ConcludeTurn();
    if (r->is_error) {
      c.reply(Status::InvalidArgument(r->error ? r->error->message : "tool call failed"));
    } else {
      c.reply(r->value.value_or(Value()));
    }
    Value data = Identity(c);
    data.Set("isError", r->is_error);
    data.Set("content", Value(LoggedContent(c, *r)));
    Record(log::kToolCodeDispatch, std::move(data));
  }

  // The tools/code-dispatch-log waterfall over what is logged; a throw logs
  // the original content, with dsh's warning.
  Content LoggedContent(const SubCall& c, const ToolResult& r) const {
    const auto listeners = rt_.registry().CodeDispatchLogFor(outer_.agent());
    if (listeners.empty()) return r.content;
    const CodeDispatch dispatch{outer_, c.sub_call_id, c.name, r.is_error, r.content};
    std::function<Content(size_t)> at = [&](size_t i) -> Content {
      if (i == listeners.size()) return dispatch.content;
      return (*listeners[i])(dispatch, [&at, i] { return at(i + 1); });
    };
    try {
      return at(0);
    } catch (...) {
      rt_.Warn("tools: code-dispatch-log listener failed for " + c.name + ": " +
               DescribeException(std::current_exception()).message + "; logging the original settled content");
      return r.content;
    }
  }

  Value Identity(const SubCall& c) const {
    return Value::MakeObject({{"rootCallId", outer_.root_call_id()},
                              {"parentCallId", outer_.call_id()},
                              {"subCallId", c.sub_call_id},
                              {"name", c.name},
                              {"arguments", c.logged}});
  }

  // Durable in the outer call's session, when it has one. A failed append
  // cannot be undone here; the recorder reports the store's state at the
  // outer call's own result.
  void Record(std::string_view type, Value data) const {
    if (const auto& record = outer_.record()) (void)record(type, std::move(data));
  }

  ToolRuntime& rt_;
  Execution& outer_;
  Signal run_;
  size_t max_parallel_;
  asio::any_io_executor ex_;
  asio::steady_timer idle_;
  std::function<std::string()> new_id_;
  std::deque<std::shared_ptr<SubCall>> pending_, started_;
  bool exclusive_active_ = false;  // an exclusive call started and is not committed yet
  size_t running_ = 0;             // started calls whose bodies have not settled
  bool driving_ = false;
  int counter_ = 0;
};

struct RunCodeState {
  RunCodeState(ToolRuntime& r, std::shared_ptr<const CodeRunner> c, RunCodeOptions o)
      : rt(r), runner(std::move(c)), options(std::move(o)), programs(std::max(1, options.program_threads)) {}
  ~RunCodeState() { programs.join(); }
  ToolRuntime& rt;
  std::shared_ptr<const CodeRunner> runner;
  RunCodeOptions options;
  asio::thread_pool programs;  // a program's run blocks its thread
};

asio::awaitable<Value> RunProgram(std::shared_ptr<RunCodeState> state, ToolRunContext& exec) {
  const std::string code = exec.arguments().Find("code")->as_string();
  if (json::IsJsBlank(exec.arguments().Find("description")->as_string())) {
    throw std::runtime_error(kBlankRunCodeDescription);
  }
  AbortController run;
  Subscription follow = exec.signal().OnAbort([run](const std::string& reason) mutable { run.Abort(reason); });
  const Signal run_signal = run.signal();
  const asio::any_io_executor ex = co_await asio::this_coro::executor;
  auto bridge = std::make_shared<Bridge>(state->rt, exec, run_signal, state->options.max_parallel_sub_calls, ex,
                                         state->options.new_id ? state->options.new_id : [n = 0]() mutable {
                                           return "code-image-" + std::to_string(++n);
                                         });

  CodeBindingNamespace tools{.global = "tools", .functions = {}, .error_class = {{"ToolCallError", "toolName"}}};
  for (const ToolDefinitionPtr& def : state->rt.registry().Visible(exec.agent())) {
    if (def->name == kRunCodeName) continue;
    tools.functions.emplace_back(def->name, [bridge, ex, name = def->name](std::optional<Value> args, BindingReply reply) {
      // From the program's thread onto the runtime's executor.
      asio::post(ex, [bridge, name, args = std::move(args), reply = std::move(reply)]() mutable {
        bridge->Submit(name, std::move(args), std::move(reply));
      });
    });
  }
  const std::vector<CodeBindingNamespace> bindings{std::move(tools)};
  CodeRunResult result = co_await asio::co_spawn(
      state->programs,
      [&]() -> asio::awaitable<CodeRunResult> { co_return state->runner->Run(code, bindings, &run_signal); },
      asio::use_awaitable);
  run.Abort("run_code settled");
  co_await bridge->Drain();
  if (result.error) throw CodeRunFailedError(result.error->kind, result.error->message, result.logs);
  Value::Array logs(result.logs.begin(), result.logs.end());
  Value out = Value::MakeObject({{"logs", Value(std::move(logs))}});
  if (result.value) out.Set("result", std::move(*result.value));
  co_return out;
}

}  // namespace

Result<ToolDefinitionPtr> MakeRunCodeTool(ToolRuntime& runtime, std::shared_ptr<const CodeRunner> runner,
                                          RunCodeOptions options) {
  if (!runner) return Status::InvalidArgument("run_code needs a code runtime");
  if (options.max_parallel_sub_calls < 1) return Status::InvalidArgument("maxParallelSubCalls must be a positive integer");
  const schema::SdkLanguage language = runner->language();
  auto state = std::make_shared<RunCodeState>(runtime, std::move(runner), std::move(options));
  ToolDefinition spec;
  spec.name = kRunCodeName;
  spec.description = RunCodeDescription(language);
  spec.parameters = RunCodeParametersSpec(language);
  spec.output.schema = RunCodeOutputSpec();
  spec.output.render = [](const Value&, const Value& value) { return TextContent(RenderRunCodeOutput(value)); };
  spec.execute_async = [state](ToolRunContext& exec) { return RunProgram(state, exec); };
  spec.present_call = presenters::RunCodePresenter()->present_call;
  return DefineTool(std::move(spec));
}

}  // namespace retrace::runtime
