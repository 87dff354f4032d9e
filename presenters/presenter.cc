#include "presenters/presenter.h"

#include "engine/schema/schema_compiler.h"
#include "engine/json/writer.h"
#include "engine/schema/validator.h"

namespace retrace::presenters {
namespace {

// Runs `present` after soft validation; a throw selects the fallback, never a crash.
template <typename F>
PresentOutcome Run(const ToolPresenter& p, const json::Value& args, bool present, F&& fn) {
  PresentOutcome out;
  if (!present) return out;
  const std::vector<std::string> errors = schema::ValidateArguments(p.parameters, args);
  if (!errors.empty()) {
    out.how = Presented::kInvalidArguments;
    for (const std::string& e : errors) out.detail += (out.detail.empty() ? "" : "; ") + e;
    return out;
  }
  try {
    out.view = fn();
  } catch (const std::exception& e) {
    out.how = Presented::kThrew;
    out.detail = e.what();
    return out;
  } catch (...) {
    out.how = Presented::kThrew;
    out.detail = "a non-standard exception";
    return out;
  }
  out.how = out.view ? Presented::kView : Presented::kNone;
  return out;
}

}  // namespace

PresentOutcome PresentCallOutcome(const ToolPresenter& p, const json::Value& args) {
  return Run(p, args, static_cast<bool>(p.present_call), [&] { return p.present_call(args); });
}

PresentOutcome PresentResultOutcome(const ToolPresenter& p, const json::Value& args, const DurableResult& result) {
  return Run(p, args, static_cast<bool>(p.present_result), [&] { return p.present_result(args, result); });
}

std::optional<json::Value> PresentCall(const ToolPresenter& p, const json::Value& args) {
  return PresentCallOutcome(p, args).view;
}

std::optional<json::Value> PresentResult(const ToolPresenter& p, const json::Value& args, const DurableResult& result) {
  return PresentResultOutcome(p, args, result).view;
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

ToolPresenterPtr MakeToolPresenter(std::string name, json::Value parameters, PresentCallFn call,
                                   PresentResultFn result, std::string_view revision, RevisionsPtr revisions) {
  // The version fingerprints what the views depend on: the name, the schema,
  // the presenter revision and, with older revisions, each one's schema.
  std::string identity = name + '\n' + json::Serialize(parameters) + '\n' + std::string(revision);
  if (revisions) {
    for (const auto& [rev, fp] : revisions->fingerprints) identity += '\n' + std::to_string(rev) + ':' + fp;
  }
  std::string version = Fingerprint(identity);
  return std::make_shared<const ToolPresenter>(ToolPresenter{std::move(name), std::move(parameters), std::move(call),
                                                             std::move(result), std::move(version),
                                                             std::move(revisions)});
}

Status PresenterSet::Add(std::string name, const json::Value& parameters_dsl, PresentCallFn call,
                         PresentResultFn result, std::string_view revision, std::optional<RevisionSpec> revisions) {
  ASSIGN_OR_RETURN(json::Value parameters, schema::CompileParameters(parameters_dsl));
  RevisionsPtr compiled;
  if (revisions) {
    ASSIGN_OR_RETURN(compiled, CompileRevisions(name, std::move(*revisions), parameters));
  }
  Add(MakeToolPresenter(std::move(name), std::move(parameters), std::move(call), std::move(result), revision,
                        std::move(compiled)));
  return Status::Ok();
}

void PresenterSet::Add(ToolPresenterPtr presenter) {
  std::string name = presenter->name;
  by_name_.insert_or_assign(std::move(name), std::move(presenter));
}

const ToolPresenter* PresenterSet::Find(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second.get();
}

ToolPresenterPtr PresenterSet::Share(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

std::vector<std::string> PresenterSet::Names() const {
  std::vector<std::string> names;
  for (const auto& [name, p] : by_name_) names.push_back(name);
  return names;
}

}  // namespace retrace::presenters
