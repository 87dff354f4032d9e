#include "service/script_host.h"

#include <chrono>
#include <set>

#include "engine/json/parser.h"
#include "engine/json/writer.h"

namespace retrace::service {
namespace {

using json::Value;

// Reads one script line's fields, refusing unknown keys and wrong types.
class Fields {
 public:
  Fields(const Value& obj, std::string where) : obj_(obj), where_(std::move(where)) {}

  Status Allow(const std::set<std::string>& keys) const {
    for (const auto& [k, v] : obj_.as_object()) {
      if (!keys.count(k)) return Error("unknown key \"" + k + "\"");
    }
    return Status::Ok();
  }
  Result<std::optional<std::string>> String(const std::string& key) const {
    const Value* v = obj_.Find(key);
    if (!v) return std::optional<std::string>();
    if (!v->is_string()) return Error("\"" + key + "\" must be a string");
    return std::optional<std::string>(v->as_string());
  }
  Result<std::string> RequiredString(const std::string& key) const {
    ASSIGN_OR_RETURN(std::optional<std::string> s, String(key));
    if (!s) return Error("missing \"" + key + "\"");
    return *s;
  }
  Result<std::optional<int64_t>> Count(const std::string& key) const {
    const Value* v = obj_.Find(key);
    if (!v) return std::optional<int64_t>();
    if (!v->is_safe_integer() || v->as_number() < 0) return Error("\"" + key + "\" must be a non-negative integer");
    return std::optional<int64_t>(static_cast<int64_t>(v->as_number()));
  }
  Status Error(const std::string& what) const { return Status::Corruption(where_ + ": " + what); }
  const std::string& where() const { return where_; }

 private:
  const Value& obj_;
  std::string where_;
};

Value TextBlock(const std::string& type, std::string text) {
  return Value::MakeObject({{"type", type}, {"text", std::move(text)}});
}

Result<ScriptOp> ParseMessageOp(const Fields& f, ScriptOp op) {
  const bool inject = op.kind == ScriptOp::Kind::kInject;
  RETURN_IF_ERROR(f.Allow(inject ? std::set<std::string>{"op", "text", "id", "plugin", "form", "summary"}
                                 : std::set<std::string>{"op", "text", "id"}));
  ASSIGN_OR_RETURN(std::string text, f.RequiredString("text"));
  ASSIGN_OR_RETURN(std::optional<std::string> id, f.String("id"));
  Value source = Value::MakeObject({{"kind", inject ? "plugin" : "user"}});
  if (inject) {
    ASSIGN_OR_RETURN(std::optional<std::string> plugin, f.String("plugin"));
    source.Set("plugin", plugin.value_or("script"));
    for (const char* key : {"form", "summary"}) {
      ASSIGN_OR_RETURN(std::optional<std::string> v, f.String(key));
      if (v) source.Set(key, *v);
    }
  }
  Value::Array content;
  content.push_back(TextBlock("text", std::move(text)));
  op.message = runtime::MakeUserMessage(std::move(content), std::move(source), id.value_or(""));
  return op;
}

Result<ScriptOp> ParseAssistantOp(const Fields& f, const Value& obj, ScriptOp op) {
  RETURN_IF_ERROR(f.Allow({"op", "text", "reasoning", "toolCalls", "provider", "model", "usage"}));
  ASSIGN_OR_RETURN(std::optional<std::string> reasoning, f.String("reasoning"));
  ASSIGN_OR_RETURN(std::optional<std::string> text, f.String("text"));
  ASSIGN_OR_RETURN(std::optional<std::string> provider, f.String("provider"));
  ASSIGN_OR_RETURN(std::optional<std::string> model, f.String("model"));
  if (provider) op.provider = *provider;
  if (model) op.model = *model;
  if (op.provider.empty() || op.model.empty()) return f.Error("\"provider\" and \"model\" must be non-empty");
  if (reasoning) op.content.push_back(TextBlock("reasoning", *reasoning));
  if (text) op.content.push_back(TextBlock("text", *text));
  if (const Value* usage = obj.Find("usage")) op.usage = *usage;
  if (const Value* calls = obj.Find("toolCalls")) {
    if (!calls->is_array()) return f.Error("\"toolCalls\" must be an array");
    std::set<std::string> ids;
    for (size_t i = 0; i < calls->as_array().size(); ++i) {
      const Value& c = calls->as_array()[i];
      if (!c.is_object()) return f.Error("toolCalls[" + std::to_string(i) + "] must be an object");
      // Named by script line and index: "<name>:<line>: toolCalls[i]: missing "name"".
      Fields cf(c, f.where() + ": toolCalls[" + std::to_string(i) + "]");
      RETURN_IF_ERROR(cf.Allow({"id", "name", "arguments"}));
      runtime::ModelToolCall call;
      ASSIGN_OR_RETURN(call.id, cf.RequiredString("id"));
      ASSIGN_OR_RETURN(call.name, cf.RequiredString("name"));
      // The raw model text; a JSON value is accepted as shorthand for its compact text.
      if (const Value* args = c.Find("arguments")) call.arguments = args->is_string() ? args->as_string() : json::Serialize(*args);
      if (call.id.empty() || !ids.insert(call.id).second) {
        return f.Error("toolCalls[" + std::to_string(i) + "]: call ids must be non-empty and unique");
      }
      op.content.push_back(Value::MakeObject(
          {{"type", "tool-call"}, {"id", call.id}, {"name", call.name}, {"arguments", call.arguments}}));
      op.calls.push_back(std::move(call));
    }
  }
  return op;
}

Result<ScriptOp> ParseOp(const Value& obj, const std::string& where, int64_t line) {
  Fields f(obj, where);
  ASSIGN_OR_RETURN(std::string name, f.RequiredString("op"));
  ScriptOp op;
  op.line = line;
  if (name == "prompt" || name == "inject") {
    op.kind = name == "prompt" ? ScriptOp::Kind::kPrompt : ScriptOp::Kind::kInject;
    return ParseMessageOp(f, std::move(op));
  }
  if (name == "assistant") {
    op.kind = ScriptOp::Kind::kAssistant;
    return ParseAssistantOp(f, obj, std::move(op));
  }
  if (name == "cancel") {
    op.kind = ScriptOp::Kind::kCancel;
    RETURN_IF_ERROR(f.Allow({"op", "afterCalls", "afterMs"}));
    ASSIGN_OR_RETURN(op.after_calls, f.Count("afterCalls"));
    ASSIGN_OR_RETURN(op.after_ms, f.Count("afterMs"));
    if (op.after_calls && op.after_ms) return f.Error("give \"afterCalls\" or \"afterMs\", not both");
    if (!op.after_calls && !op.after_ms) op.after_calls = 0;
    return op;
  }
  if (name == "end") {
    op.kind = ScriptOp::Kind::kEnd;
    RETURN_IF_ERROR(f.Allow({"op", "reason"}));
    ASSIGN_OR_RETURN(std::optional<std::string> reason, f.String("reason"));
    op.reason = reason.value_or("completed");
    return op;
  }
  return f.Error("unknown op \"" + name + "\" (expected prompt, assistant, inject, cancel or end)");
}

Value Reason(const std::string& kind) {
  if (kind == "aborted") {
    return Value::MakeObject({{"kind", "aborted"}, {"reason", Value::MakeObject({{"kind", "user"}})}});
  }
  return Value::MakeObject({{"kind", kind}});
}

}  // namespace

Result<std::vector<ScriptOp>> ParseScript(std::string_view text, std::string_view name) {
  std::vector<ScriptOp> ops;
  int64_t line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    const std::string where = std::string(name) + ":" + std::to_string(line_no);
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    Result<Value> parsed = json::Parse(line);
    if (!parsed.ok()) return Status::Corruption(where + ": " + parsed.status().message());
    if (!parsed->is_object()) return Status::Corruption(where + ": a script line must be a JSON object");
    ASSIGN_OR_RETURN(ScriptOp op, ParseOp(*parsed, where, line_no));
    ops.push_back(std::move(op));
  }
  bool prompted = false;
  for (const ScriptOp& op : ops) {
    prompted = prompted || op.kind == ScriptOp::Kind::kPrompt;
    if (op.kind == ScriptOp::Kind::kAssistant && !prompted) {
      return Status::Corruption(std::string(name) + ":" + std::to_string(op.line) +
                                     ": an assistant step needs a prompt before it");
    }
  }
  return ops;
}

runtime::asio::awaitable<Result<ScriptReport>> RunScript(const std::vector<ScriptOp>& ops, runtime::SessionRecorder& rec,
                                                runtime::ToolRuntime& runtime, runtime::RecorderEnv env, ScriptOptions options) {
  ScriptReport report;
  report.first_seq = rec.next_seq();
  std::optional<ScriptOp> pending_cancel;
  auto with_id = [&](Value message) {
    if (message.Find("id")->as_string().empty()) message.Set("id", env.new_id());
    return message;
  };
  for (const ScriptOp& op : ops) {
    Status st;
    switch (op.kind) {
      case ScriptOp::Kind::kPrompt:
        if (rec.in_turn()) st = rec.EndTurn(Reason("completed"));
        if (st.ok()) st = rec.FollowUp(with_id(op.message));
        if (st.ok()) st = rec.BeginTurn();
        report.turns += st.ok();
        break;
      case ScriptOp::Kind::kInject:
        st = rec.Inject(with_id(op.message));
        break;
      case ScriptOp::Kind::kCancel:
        pending_cancel = op;
        break;
      case ScriptOp::Kind::kEnd:
        if (rec.in_turn()) st = rec.EndTurn(Reason(op.reason));
        break;
      case ScriptOp::Kind::kAssistant: {
        if (!rec.in_turn()) {  // after a turn ended, a step starts a new one (with no new input)
          st = rec.BeginTurn();
          report.turns += st.ok();
        } else if (rec.in_step()) {
          st = rec.EndStep();
        }
        if (st.ok()) st = rec.BeginStep();
        if (st.ok()) st = rec.RecordAssistant(op.content, op.provider, op.model, op.usage);
        if (!st.ok()) break;
        if (op.calls.empty()) {
          st = rec.EndTurn(Reason("completed"));
          break;
        }
        // The turn's cancellation: armed by a preceding cancel op.
        runtime::AbortController turn;
        std::optional<runtime::Registration> counter;
        std::shared_ptr<runtime::asio::steady_timer> timer;
        if (pending_cancel && pending_cancel->after_calls) {
          auto left = std::make_shared<int64_t>(*pending_cancel->after_calls);
          if (*left == 0) turn.Abort("user");
          counter = runtime.registry().OnResult([left, turn](const runtime::Execution&, const runtime::ToolResultPtr&) mutable {
            if (--*left == 0) turn.Abort("user");
          });
        } else if (pending_cancel && pending_cancel->after_ms) {
          timer = std::make_shared<runtime::asio::steady_timer>(co_await runtime::asio::this_coro::executor,
                                                       std::chrono::milliseconds(*pending_cancel->after_ms));
          timer->async_wait([turn](const boost::system::error_code& ec) mutable {
            if (!ec) turn.Abort("user");
          });
        }
        pending_cancel.reset();
        Result<runtime::BatchOutcome> outcome =
            co_await rec.RunToolCalls(runtime, op.calls, turn.signal(), options.agent, options.max_parallel);
        if (timer) timer->cancel();
        if (!outcome.ok()) co_return outcome.status();
        report.tool_calls += static_cast<int64_t>(op.calls.size());
        report.tool_errors += outcome->errors;
        if (outcome->cancelled) {
          st = rec.EndTurn(Reason("aborted"));
        } else if (outcome->concludes_turn) {
          st = rec.EndTurn(Reason("completed"));
        }
        break;
      }
    }
    if (!st.ok()) co_return st.WithContext("script line " + std::to_string(op.line));
  }
  if (rec.in_turn()) {
    Status st = rec.EndTurn(Reason("completed"));
    if (!st.ok()) co_return st;
  }
  report.next_seq = rec.next_seq();
  co_return report;
}

}  // namespace retrace::service
