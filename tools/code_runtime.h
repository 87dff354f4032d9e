// CodeRuntime: runs one Code Mode program in a child process — TypeScript in
// Node (type-stripped), Python in python3 — against host bindings
// (dsh-tool-contract §7.6; the seam of dsh-code-runtime, whose worker-thread
// backend's budgets and hostile-peer rules this follows).
//
// One fresh child per run, in an empty environment and its own process
// group, and everything in it is killed when the run settles. The next run's
// child is started ahead of time, while a run goes on (start-up is most of a
// short run's time); it only loads the interpreter and waits for its program. Under bubblewrap
// (`CodeSandbox::kBwrap`) the child also has no network, a read-only file
// system and a private /tmp, so it changes the workspace only through its
// bindings (the tools, where policy applies).
//
// The bindings and logs travel over a private socket (the child's fd 3), not
// over its stdout. The child runs model-written code, so every message from it
// is shape-checked and rebuilt, each call id is answered once, traffic after
// settlement is dropped and every value is lossless JSON (our parser reads
// nothing else). Whatever the program writes to its stdout and stderr
// directly is captured as logs too.
//
// Budgets, with upstream's names and defaults: `compute_ms` of CPU time (the
// program's busy time: awaiting a slow tool costs nothing), `max_wall_ms` of
// wall-clock time, `max_output_bytes` for the JSON of the logs plus the
// completion value or failure message, and a memory cap. The outcome is a
// value, never an exception: {value?, logs, error?: {kind, message}}.
#ifndef RETRACE_TOOLS_CODE_RUNTIME_H_
#define RETRACE_TOOLS_CODE_RUNTIME_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <retrace/engine/base/status.h>
#include <retrace/engine/json/value.h>
#include <retrace/engine/runtime/cancellation.h>
#include <retrace/engine/runtime/code_runner.h>
#include <retrace/engine/schema/tools_sdk.h>

namespace retrace::tools {

using runtime::BindingFn;
using runtime::BindingReply;
using runtime::CodeBindingNamespace;
using runtime::CodeRunFailure;
using runtime::CodeRunResult;

enum class CodeSandbox { kBwrap, kNone };

struct CodeRuntimeOptions {
  schema::SdkLanguage language = schema::SdkLanguage::kTypeScript;
  std::string interpreter;  // the node or python3 binary (an absolute path, or found on PATH)
  std::string bwrap = "bwrap";
  CodeSandbox sandbox = CodeSandbox::kBwrap;
  std::string workspace = ".";  // the program's working directory (read-only under bwrap)
  double compute_ms = 60000;
  double max_wall_ms = 600000;
  uint64_t max_output_bytes = uint64_t{64} << 20;
  uint64_t memory_mb = 512;  // Node's old-generation heap; Python's address space
};

class CodeRuntime : public runtime::CodeRunner {
 public:
  // Checks the options and that the interpreter runs (Node 22.13 or later, for
  // its type stripping; Python 3.9 or later) and, for kBwrap, that bubblewrap does.
  static Result<std::unique_ptr<CodeRuntime>> Create(CodeRuntimeOptions options);

  const CodeRuntimeOptions& options() const { return options_; }

  schema::SdkLanguage language() const override { return options_.language; }

  // Runs `program` (the body of an async function) to settlement on this
  // thread; bindings are called on it too. `abort` stops the run (kind "abort").
  CodeRunResult Run(std::string_view program, const std::vector<CodeBindingNamespace>& bindings,
                    const runtime::Signal* abort = nullptr) const override;

  ~CodeRuntime() override;
  CodeRuntime(const CodeRuntime&) = delete;
  CodeRuntime& operator=(const CodeRuntime&) = delete;

 private:
  struct Spare;
  explicit CodeRuntime(CodeRuntimeOptions options);
  void Refill() const;  // starts the next run's child, when none waits
  CodeRuntimeOptions options_;
  std::unique_ptr<Spare> spare_;
};

}  // namespace retrace::tools

#endif  // RETRACE_TOOLS_CODE_RUNTIME_H_
