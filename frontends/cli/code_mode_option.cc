#include "frontends/cli/code_mode_option.h"

namespace retrace::cli {

void AddCodeModeOption(Options sub, CodeModeOption& o) {
  sub.Add("--tools-mode", o.mode,
          "How the model is given the tools: native (default), code (only run_code, which runs a program "
          "calling them) or both")
      .OneOf({"native", "code", "both"});
  sub.Add("--code-runtime", o.language, "The language run_code programs are written in: typescript (default, "
                                        "Node 22.13 or later) or python (python3)")
      .OneOf({"typescript", "python"});
  sub.Add("--code-runtime-bin", o.interpreter, "The node or python3 binary to run programs with (default: found on PATH)");
  sub.Add("--code-sandbox", o.sandbox,
          "bwrap (default: bubblewrap — no network, a read-only file system, a private /tmp; the workspace "
          "changes only through the tools) or none (programs run with your user's rights)")
      .OneOf({"bwrap", "none"});
}

std::optional<service::CodeModeOptions> CodeModeFrom(const CodeModeOption& o) {
  const runtime::ToolsMode mode = runtime::ParseToolsMode(o.mode).value_or(runtime::ToolsMode::kNative);
  if (mode == runtime::ToolsMode::kNative) return std::nullopt;
  service::CodeModeOptions code;
  code.mode = mode;
  code.runtime.language = *schema::ParseSdkLanguage(o.language);
  const bool python = code.runtime.language == schema::SdkLanguage::kPython;
  code.runtime.interpreter = o.interpreter.empty() ? (python ? "python3" : "node") : o.interpreter;
  code.runtime.sandbox = o.sandbox == "none" ? tools::CodeSandbox::kNone : tools::CodeSandbox::kBwrap;
  return code;
}

}  // namespace retrace::cli
