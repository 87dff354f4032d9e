#include "engine/runtime/tool_definition.h"

#include <cmath>

#include "engine/json/writer.h"
#include "engine/schema/schema_compiler.h"
#include "engine/schema/validator.h"

namespace retrace::runtime {

namespace {

// Shared by the wrappers below: the compiled parameter schema.
using SchemaPtr = std::shared_ptr<const json::Value>;

bool ArgsValid(const SchemaPtr& schema, const json::Value& args) {
  return schema::ValidateArguments(*schema, args).empty();
}

void ThrowIfInvalid(const SchemaPtr& schema, const json::Value& args) {
  std::vector<std::string> violations = schema::ValidateArguments(*schema, args);
  if (!violations.empty()) throw ToolArgsError(violations);
}

// One presenter per tool: made from the definition's functions, or the one
// it came with, checked to present the same tool over the same parameters.
// Its functions then go through presenters::PresentCall, the one soft
// validation.
Status AttachPresenter(ToolDefinition& def) {
  const bool functions = def.present_call || def.present_result;
  if (def.presenter && functions) {
    return Status::InvalidArgument("defineTool(" + def.name + "): give presentCall/presentResult or a presenter, not both");
  }
  if (def.revisions && !functions) {
    return Status::InvalidArgument("defineTool(" + def.name + "): revisions need presentCall/presentResult to upcast for");
  }
  if (functions) {
    presenters::RevisionsPtr revisions;
    if (def.revisions) {
      Result<presenters::RevisionsPtr> compiled =
          presenters::CompileRevisions(def.name, *std::move(def.revisions), def.parameters);
      if (!compiled.ok()) return Status::InvalidArgument("defineTool(" + def.name + "): " + compiled.status().message());
      revisions = std::move(compiled).value();
      def.revisions.reset();
    }
    def.presenter = presenters::MakeToolPresenter(def.name, def.parameters, std::move(def.present_call),
                                                  std::move(def.present_result), def.presenter_revision,
                                                  std::move(revisions));
  } else if (def.presenter && (def.presenter->name != def.name ||
                               json::Serialize(def.presenter->parameters) != json::Serialize(def.parameters))) {
    return Status::InvalidArgument("defineTool(" + def.name + "): its presenter was made for " +
                                   (def.presenter->name != def.name ? "the tool \"" + def.presenter->name + "\""
                                                                    : std::string("other parameters")));
  }
  def.present_call = nullptr;
  def.present_result = nullptr;
  if (!def.presenter) return Status::Ok();
  if (def.presenter->present_call) {
    def.present_call = [p = def.presenter](const json::Value& args) { return presenters::PresentCall(*p, args); };
  }
  if (def.presenter->present_result) {
    def.present_result = [p = def.presenter](const json::Value& args, const DurableResult& r) {
      return presenters::PresentResult(*p, args, r);
    };
  }
  return Status::Ok();
}

}  // namespace

Result<ToolDefinitionPtr> DefineTool(ToolDefinition spec) {
  if (spec.timeout_ms && (!std::isfinite(*spec.timeout_ms) || *spec.timeout_ms <= 0)) {
    return Status::InvalidArgument("defineTool(" + spec.name + "): timeoutMs must be a positive finite number");
  }
  ASSIGN_OR_RETURN(json::Value parameters, schema::CompileParameters(spec.parameters));
  ASSIGN_OR_RETURN(json::Value output_schema, schema::CompileValue(spec.output.schema));
  auto params = std::make_shared<const json::Value>(parameters);

  auto def = std::make_shared<ToolDefinition>(std::move(spec));
  def->parameters = std::move(parameters);
  def->output.schema = std::move(output_schema);
  if (def->execute) {
    def->execute = [params, body = std::move(def->execute)](ToolRunContext& run) {
      ThrowIfInvalid(params, run.arguments());
      return body(run);
    };
  }
  if (def->execute_brief) {
    def->execute_brief = [params, body = std::move(def->execute_brief)](ToolRunContext& run) {
      ThrowIfInvalid(params, run.arguments());
      return body(run);
    };
  }
  if (def->execute_async) {
    def->execute_async = [params, body = std::move(def->execute_async)](ToolRunContext& run)
        -> asio::awaitable<json::Value> {
      ThrowIfInvalid(params, run.arguments());
      co_return co_await body(run);
    };
  }
  if (def->is_concurrency_safe) {
    def->is_concurrency_safe = [params, fn = std::move(def->is_concurrency_safe)](const json::Value& args) {
      return ArgsValid(params, args) && fn(args);
    };
  }
  RETURN_IF_ERROR(AttachPresenter(*def));
  return ToolDefinitionPtr(std::move(def));
}

}  // namespace retrace::runtime
