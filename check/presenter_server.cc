#include "check/presenter_server.h"

#include "engine/json/lenient.h"
#include "engine/json/parser.h"
#include "engine/json/writer.h"

namespace retrace::check {
namespace {

using json::Value;

Value Error(int code, std::string message) {
  return Value::MakeObject({{"code", static_cast<double>(code)}, {"message", std::move(message)}});
}

// {current, parameters: {"1": schema, ...}, metaSteps: [from, ...]}: a
// tool's older revisions, and which of its steps upcast meta too.
Value RevisionsListing(const presenters::Revisions& r) {
  Value parameters = Value::MakeObject({});
  for (const auto& [rev, schema] : r.schemas) {
    if (rev != r.current) parameters.Set(std::to_string(rev), schema);
  }
  // Built as JSON numbers in place (g++ 12 misreads a moved temporary Value here).
  Value meta_steps = Value(Value::Array{});
  for (const presenters::UpcastStep& step : r.steps) {
    if (step.meta) meta_steps.as_array().emplace_back(static_cast<double>(step.from));
  }
  return Value::MakeObject({{"current", static_cast<double>(r.current)},
                            {"parameters", std::move(parameters)},
                            {"metaSteps", std::move(meta_steps)}});
}

// {value} for an upcast request {tool, from, kind: arguments | meta, value}:
// one step of the tool's chain; an error object when the step throws.
Value UpcastStep(const presenters::PresenterSet& set, const Value& params, bool& failed) {
  failed = true;
  const Value* tool = params.is_object() ? params.Find("tool") : nullptr;
  const presenters::ToolPresenter* p = tool && tool->is_string() ? set.Find(tool->as_string()) : nullptr;
  if (p == nullptr || !p->revisions) return Error(-32602, "no such tool with revisions");
  const Value* from = params.Find("from");
  const Value* kind = params.Find("kind");
  const Value* value = params.Find("value");
  const auto& steps = p->revisions->steps;
  if (!from || !from->is_number() || from->as_number() < 1 || from->as_number() > static_cast<double>(steps.size()) ||
      !value || !kind || !kind->is_string()) {
    return Error(-32602, "params need from (a revision with a step), kind and value");
  }
  const presenters::UpcastStep& step = steps[static_cast<size_t>(from->as_number()) - 1];
  const presenters::UpcastFn& fn = kind->as_string() == "meta" ? step.meta : step.arguments;
  if (!fn) return Error(-32602, "that step has no " + kind->as_string() + " upcaster");
  try {
    Value out = fn(*value);
    failed = false;
    return Value::MakeObject({{"value", std::move(out)}});
  } catch (const std::exception& e) {
    return Error(-32000, e.what());
  } catch (...) {
    return Error(-32000, "a non-standard exception");
  }
}

// The presenters' listing: each tool's schema, its version as the revision,
// and which presenters it has.
Value Listing(const presenters::PresenterSet& set) {
  Value::Array tools;
  for (const std::string& name : set.Names()) {
    const presenters::ToolPresenter& p = *set.Find(name);
    Value tool = Value::MakeObject({{"name", name},
                                    {"parameters", p.parameters},
                                    {"revision", p.version},
                                    {"presentCall", static_cast<bool>(p.present_call)},
                                    {"presentResult", static_cast<bool>(p.present_result)}});
    if (p.revisions) tool.Set("revisions", RevisionsListing(*p.revisions));
    tools.push_back(std::move(tool));
  }
  return Value::MakeObject({{"tools", Value(std::move(tools))}});
}

// {view} for a presentCall / presentResult request, or an error object.
Value Present(const presenters::PresenterSet& set, bool call, const Value& params, bool& failed) {
  failed = true;
  const Value* tool = params.is_object() ? params.Find("tool") : nullptr;
  const presenters::ToolPresenter* p = tool && tool->is_string() ? set.Find(tool->as_string()) : nullptr;
  if (p == nullptr) return Error(-32602, "no such tool");
  const Value* found = params.Find("args");
  const Value args = found ? *found : Value();
  presenters::PresentOutcome out;
  if (call) {
    out = presenters::PresentCallOutcome(*p, args);
  } else {
    const Value* result = params.Find("result");
    const Value* content = result && result->is_object() ? result->Find("content") : nullptr;
    if (!content || !content->is_array()) return Error(-32602, "params.result.content is not an array");
    const Value* is_error = result->Find("isError");
    out = presenters::PresentResultOutcome(
        *p, args, {content->as_array(), json::True(is_error), result->Find("meta")});
  }
  if (out.how == presenters::Presented::kThrew) return Error(-32000, out.detail);
  failed = false;
  return Value::MakeObject({{"view", out.view ? *std::move(out.view) : Value()}});
}

}  // namespace

std::string AnswerPresenterRequest(const presenters::PresenterSet& set, const std::string& request) {
  Value answer = Value::MakeObject({{"jsonrpc", "2.0"}});
  auto parsed = json::Parse(request);
  if (!parsed.ok() || !parsed->is_object()) {
    answer.Set("id", Value());
    answer.Set("error", Error(-32700, "not a JSON object"));
    return json::Serialize(answer);
  }
  const Value* id = parsed->Find("id");
  answer.Set("id", id ? *id : Value());
  const Value* method = parsed->Find("method");
  const std::string name = method && method->is_string() ? method->as_string() : "";
  const Value* params = parsed->Find("params");
  const Value no_params;
  if (name == "initialize") {
    answer.Set("result", Listing(set));
  } else if (name == "upcast") {
    bool failed = false;
    Value v = UpcastStep(set, params ? *params : no_params, failed);
    answer.Set(failed ? "error" : "result", std::move(v));
  } else if (name == "presentCall" || name == "presentResult") {
    bool failed = false;
    Value v = Present(set, name == "presentCall", params ? *params : no_params, failed);
    answer.Set(failed ? "error" : "result", std::move(v));
  } else {
    answer.Set("error", Error(-32601, "unknown method " + name));
  }
  return json::Serialize(answer);
}

int ServePresenters(const presenters::PresenterSet& set, std::istream& in, std::ostream& out) {
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    out << AnswerPresenterRequest(set, line) << '\n' << std::flush;
  }
  return 0;
}

}  // namespace retrace::check
