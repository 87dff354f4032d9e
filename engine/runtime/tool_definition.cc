#include "engine/runtime/tool_definition.h"

#include <cmath>

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
  if (def->present_call) {
    def->present_call = [params, fn = std::move(def->present_call)](const json::Value& args) {
      return ArgsValid(params, args) ? fn(args) : std::nullopt;
    };
  }
  if (def->present_result) {
    def->present_result = [params, fn = std::move(def->present_result)](const json::Value& args,
                                                                         const DurableResult& r) {
      return ArgsValid(params, args) ? fn(args, r) : std::nullopt;
    };
  }
  return ToolDefinitionPtr(std::move(def));
}

}  // namespace retrace::runtime
