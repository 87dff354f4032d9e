// The Code Mode SDK of a tool set (dsh-tool-contract §7.3), the use case
// under `retrace sdk` (and the `tools:sdk` text a Code Mode host shows its
// model): the built-in tools as `retrace run` and `retrace mcp` register
// them, or the schema set of a file.
#ifndef RETRACE_SERVICE_SDK_H_
#define RETRACE_SERVICE_SDK_H_

#include <string>

#include "engine/base/status.h"
#include "engine/schema/tools_sdk.h"

namespace retrace::service {

struct SdkOptions {
  schema::SdkLanguage language = schema::SdkLanguage::kTypeScript;
  // A JSON array of {name, description, parameters, output}, the input dsh's
  // renderToolsSdk takes; "" for the built-in tools.
  std::string schemas_file{};
};

// The SDK text as Node would write it (UTF-8; a lone surrogate in a
// description becomes U+FFFD).
Result<std::string> ToolsSdk(const SdkOptions& options);

}  // namespace retrace::service

#endif  // RETRACE_SERVICE_SDK_H_
