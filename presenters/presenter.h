// Presenters (dsh-tool-contract §6): pure functions from logged arguments
// (and the durable result) to UI cards. They run during live calls and on
// replay, so they may read nothing but their inputs: no I/O, clock,
// randomness or mutable globals (tests/presenters/purity_check.cmake
// enforces this on every file of this layer).
//
// A ToolPresenter pairs a tool's parameter schema with its presenters.
// PresentCall/PresentResult soft-validate: arguments that fail the schema,
// a presenter that throws or returns nothing all give "no view", and the
// generic fallback applies (FallbackCall / FallbackResult).
#ifndef RETRACE_PRESENTERS_PRESENTER_H_
#define RETRACE_PRESENTERS_PRESENTER_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <retrace/engine/base/status.h>
#include <retrace/engine/json/value.h>
#include <retrace/presenters/revisions.h>

namespace retrace::presenters {

// ContentBlock[].
using Content = json::Value::Array;

// The durable projection of a result (`tool/result`): what presentResult sees.
struct DurableResult {
  const Content& content;
  bool is_error;
  const json::Value* meta;  // null when absent
};

// A view is a ToolCallView / ToolResultView (views.h), or nullopt for "none".
using PresentCallFn = std::function<std::optional<json::Value>(const json::Value& args)>;
using PresentResultFn = std::function<std::optional<json::Value>(const json::Value& args, const DurableResult&)>;

struct ToolPresenter {
  std::string name;
  json::Value parameters;  // compiled raw schema the arguments are soft-validated against
  PresentCallFn present_call;
  PresentResultFn present_result;
  // Identifies this presenter for replay-stability reports: a hash of the name,
  // the compiled schema and the revision the tool author gives (bump it when a
  // presenter's output changes).
  std::string version;
  // The arguments' older revisions and the chain that upcasts them
  // (revisions.h); null when the tool has only ever had one.
  RevisionsPtr revisions{};
};
using ToolPresenterPtr = std::shared_ptr<const ToolPresenter>;

// A presenter over `parameters`, a compiled raw schema (DefineTool has one);
// `revision` goes into its version. `revisions` (compiled against
// `parameters`) goes into its version too.
ToolPresenterPtr MakeToolPresenter(std::string name, json::Value parameters, PresentCallFn call,
                                   PresentResultFn result, std::string_view revision = "1",
                                   RevisionsPtr revisions = nullptr);

// Soft-validated presenters: no view when the arguments fail `parameters`,
// when the presenter is absent or throws, or when it returns nothing.
std::optional<json::Value> PresentCall(const ToolPresenter& p, const json::Value& args);
std::optional<json::Value> PresentResult(const ToolPresenter& p, const json::Value& args, const DurableResult& result);

// The same, saying why there is no view (for replay-stability checks).
enum class Presented {
  kView,              // the presenter gave a view
  kNone,              // no presenter for this phase, or it gave nothing
  kInvalidArguments,  // the arguments fail the schema: soft-validation fallback
  kThrew,             // the presenter threw: a bug in the presenter
};
struct PresentOutcome {
  std::optional<json::Value> view;
  Presented how = Presented::kNone;
  std::string detail;  // the schema errors, or what the presenter threw
};
PresentOutcome PresentCallOutcome(const ToolPresenter& p, const json::Value& args);
PresentOutcome PresentResultOutcome(const ToolPresenter& p, const json::Value& args, const DurableResult& result);

// The host adapter's generic fallback (§6.3): the pending card shows the tool
// name and the raw arguments; the completed card keeps the pending title and
// shows the raw result content.
json::Value FallbackCall(std::string_view tool_name, const json::Value& args);
json::Value FallbackResult(const json::Value& shown_call, const Content& content);

// Presenters by tool name: what replay and check present a log with (the
// reference tools' set, or a tool registry's, ToolRegistry::Presenters).
class PresenterSet {
 public:
  // Compiles `parameters_dsl` (a ParameterSchemaSpec) and adds the presenter;
  // with `revisions`, checks and compiles them too (CompileRevisions).
  Status Add(std::string name, const json::Value& parameters_dsl, PresentCallFn call, PresentResultFn result,
             std::string_view revision = "1", std::optional<RevisionSpec> revisions = std::nullopt);
  // Adds (or replaces) the presenter of its tool.
  void Add(ToolPresenterPtr presenter);
  const ToolPresenter* Find(std::string_view name) const;
  ToolPresenterPtr Share(std::string_view name) const;
  std::vector<std::string> Names() const;

 private:
  std::map<std::string, ToolPresenterPtr, std::less<>> by_name_;
};

}  // namespace retrace::presenters

#endif  // RETRACE_PRESENTERS_PRESENTER_H_
