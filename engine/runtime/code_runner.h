// The code-runtime seam of Code Mode (dsh-code-runtime): what `run_code`
// needs from whatever runs a program — its language, and one run of a
// program against host bindings to a value-or-failure outcome. The runtime
// layer knows this interface only; tools/code_runtime.h implements it with
// child processes.
#ifndef RETRACE_ENGINE_RUNTIME_CODE_RUNNER_H_
#define RETRACE_ENGINE_RUNTIME_CODE_RUNNER_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <retrace/engine/base/status.h>
#include <retrace/engine/json/value.h>
#include <retrace/engine/runtime/cancellation.h>
#include <retrace/engine/schema/tools_sdk.h>

namespace retrace::runtime {

// Why a run failed (dsh-code-runtime's CodeRunFailure): "exception",
// "timeout", "abort", "worker-exit", "invalid-output" or "output-limit".
struct CodeRunFailure {
  std::string kind;
  std::string message;
};

struct CodeRunResult {
  std::optional<json::Value> value;  // the program's return value, when it gave one
  std::vector<std::string> logs;     // what it printed, in order
  std::optional<CodeRunFailure> error;
};

// A binding's answer to one call: the value it resolves to, or the message
// the program's rejection carries (Status::message()).
using BindingReply = std::function<void(Result<json::Value>)>;
// One binding function. `args` is nullopt when the runner hands on a call
// whose arguments are not lossless JSON (tools::CodeRuntime never does: like
// dsh's worker, it rejects such a call inside the program). `reply` may be called later and from any thread,
// once; a reply after the run settled is dropped.
using BindingFn = std::function<void(std::optional<json::Value> args, BindingReply reply)>;

// A global of the program (`tools`) holding binding functions, and the error
// class its rejections are instances of (`ToolCallError`, whose
// `member_property` — `toolName` — names the function that failed).
struct CodeBindingNamespace {
  struct ErrorClass {
    std::string name;
    std::string member_property;
  };
  std::string global;
  std::vector<std::pair<std::string, BindingFn>> functions;
  std::optional<ErrorClass> error_class;
};

class CodeRunner {
 public:
  virtual ~CodeRunner() = default;
  // The language programs are written in (which SDK flavor the model sees).
  virtual schema::SdkLanguage language() const = 0;
  // Runs `program` (the body of an async function) to settlement, blocking
  // the calling thread; bindings are called on it. `abort` stops the run
  // (kind "abort", its reason as the message). Never throws.
  virtual CodeRunResult Run(std::string_view program, const std::vector<CodeBindingNamespace>& bindings,
                            const Signal* abort) const = 0;
};

}  // namespace retrace::runtime

#endif  // RETRACE_ENGINE_RUNTIME_CODE_RUNNER_H_
