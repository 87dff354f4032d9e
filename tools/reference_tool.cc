#include "tools/reference_tool.h"

#include "presenters/reference_tools.h"

namespace retrace::tools {

Result<runtime::ToolDefinitionPtr> DefineReferenceTool(runtime::ToolDefinition spec) {
  if (!spec.parameters.is_null() || spec.presenter || spec.present_call || spec.present_result) {
    return Status::InvalidArgument("the built-in tool " + spec.name + " takes the reference tool's parameters and presenters");
  }
  spec.parameters = presenters::ReferenceParameters(spec.name);
  ASSIGN_OR_RETURN(spec.presenter, presenters::ReferencePresenter(spec.name));
  return runtime::DefineTool(std::move(spec));
}

}  // namespace retrace::tools
