#include "service/sdk.h"

#include <fstream>
#include <sstream>

#include "engine/json/js_text.h"
#include "engine/json/parser.h"
#include "engine/runtime/tool_registry.h"
#include "tools/builtin_tools.h"

namespace retrace::service {
namespace {

Result<std::vector<schema::ToolSdkSchema>> SchemasOfFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound(path + ": cannot open the schema file");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Status::IoError(path + ": cannot read the schema file");
  auto value = json::Parse(text.str());
  if (!value.ok()) return Status::InvalidArgument(path + ": " + value.status().message());
  auto schemas = schema::ToolSdkSchemasFromJson(*value);
  if (!schemas.ok()) return Status::InvalidArgument(path + ": " + schemas.status().message());
  return schemas;
}

// The built-in tools' SDK schemas (what `retrace sdk` declares without a file).
Result<std::vector<schema::ToolSdkSchema>> BuiltinSdkSchemas() {
  // The tools as a recording registers them: with background jobs (so the
  // job tools and bash's run_in_background are declared). Nothing runs, so
  // the workspace is only named.
  ASSIGN_OR_RETURN(tools::Workspace workspace, tools::Workspace::Open("."));
  tools::ToolHost host{.workspace = workspace};
  host.jobs = std::make_shared<tools::JobRegistry>([] { return int64_t{0}; });
  ASSIGN_OR_RETURN(std::vector<runtime::ToolDefinitionPtr> defs, tools::BuiltinTools(host));
  runtime::ToolRegistry registry;
  std::vector<runtime::Registration> keep;
  for (const runtime::ToolDefinitionPtr& def : defs) {
    ASSIGN_OR_RETURN(runtime::Registration reg, registry.Register(def));
    keep.push_back(std::move(reg));
  }
  return registry.SdkSchemas();
}

}  // namespace

Result<std::string> ToolsSdk(const SdkOptions& options) {
  std::vector<schema::ToolSdkSchema> schemas;
  if (options.schemas_file.empty()) {
    ASSIGN_OR_RETURN(schemas, BuiltinSdkSchemas());
  } else {
    ASSIGN_OR_RETURN(schemas, SchemasOfFile(options.schemas_file));
  }
  return json::ToWellFormedUtf8(schema::RenderToolsSdk(schemas, options.language));
}

}  // namespace retrace::service
