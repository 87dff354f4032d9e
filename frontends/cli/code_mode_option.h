// `--tools-mode native|code|both --code-runtime typescript|python
// [--code-runtime-bin PATH] [--code-sandbox bwrap|none]`, shared by
// `retrace run` and `retrace mcp`: Code Mode for the recorded session.
#ifndef RETRACE_CLI_CODE_MODE_OPTION_H_
#define RETRACE_CLI_CODE_MODE_OPTION_H_

#include <optional>
#include <string>

#include "frontends/cli/options.h"
#include "engine/base/status.h"
#include "service/live_session.h"

namespace retrace::cli {

struct CodeModeOption {
  std::string mode = "native";
  std::string language = "typescript";
  std::string interpreter;  // "": node or python3 from PATH
  std::string sandbox = "bwrap";
};

void AddCodeModeOption(Options sub, CodeModeOption& o);

// The session's Code Mode, or nullopt under `native`.
std::optional<service::CodeModeOptions> CodeModeFrom(const CodeModeOption& o);

}  // namespace retrace::cli

#endif  // RETRACE_CLI_CODE_MODE_OPTION_H_
