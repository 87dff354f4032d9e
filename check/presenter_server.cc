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

// The presenters' listing: each tool's schema, its version as the revision,
// and which presenters it has.
Value Listing(const presenters::PresenterSet& set) {
  Value::Array tools;
  for (const std::string& name : set.Names()) {
    const presenters::ToolPresenter& p = *set.Find(name);
    tools.push_back(Value::MakeObject({{"name", name},
                                       {"parameters", p.parameters},
                                       {"revision", p.version},
                                       {"presentCall", static_cast<bool>(p.present_call)},
                                       {"presentResult", static_cast<bool>(p.present_result)}}));
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
