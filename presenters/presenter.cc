#include "presenters/presenter.h"

#include "engine/schema/schema_compiler.h"
#include "engine/schema/validator.h"

namespace retrace::presenters {
namespace {

bool ArgsValid(const ToolPresenter& p, const json::Value& args) {
  return schema::ValidateArguments(p.parameters, args).empty();
}

}  // namespace

std::optional<json::Value> PresentCall(const ToolPresenter& p, const json::Value& args) {
  if (!p.present_call || !ArgsValid(p, args)) return std::nullopt;
  try {
    return p.present_call(args);
  } catch (...) {
    return std::nullopt;  // a throwing presenter selects the fallback, never a crash
  }
}

std::optional<json::Value> PresentResult(const ToolPresenter& p, const json::Value& args, const DurableResult& result) {
  if (!p.present_result || !ArgsValid(p, args)) return std::nullopt;
  try {
    return p.present_result(args, result);
  } catch (...) {
    return std::nullopt;
  }
}

json::Value FallbackCall(std::string_view tool_name, const json::Value& args) {
  return json::Value::MakeObject({{"card", "generic"}, {"title", tool_name}, {"rawInput", args}});
}

json::Value FallbackResult(const json::Value& shown_call, const Content& content) {
  json::Value view = json::Value::MakeObject({{"card", "generic"}});
  if (const json::Value* title = shown_call.Find("title")) view.Set("title", *title);
  view.Set("content", json::Value(content));
  return view;
}

Status PresenterSet::Add(std::string name, const json::Value& parameters_dsl, PresentCallFn call,
                         PresentResultFn result) {
  ASSIGN_OR_RETURN(json::Value parameters, schema::CompileParameters(parameters_dsl));
  ToolPresenter p{name, std::move(parameters), std::move(call), std::move(result)};
  by_name_.insert_or_assign(std::move(name), std::move(p));
  return Status::Ok();
}

const ToolPresenter* PresenterSet::Find(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &it->second;
}

std::vector<std::string> PresenterSet::Names() const {
  std::vector<std::string> names;
  for (const auto& [name, p] : by_name_) names.push_back(name);
  return names;
}

}  // namespace retrace::presenters
