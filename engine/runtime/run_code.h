// The run_code transport (dsh-tool-contract §7.2, §7.4, §7.5): a program run
// by a CodeRunner, whose `tools.<name>(args)` calls re-enter the pipeline as
// nested sub-calls.
//
// Each sub-call is `<callId>:code:<n>`, with the outer call's token as its
// parent, its rootCallId and its agent, and runs the whole pipeline (no
// presentationMeta, no collapse). The bridge schedules them as dsh does:
// a FIFO of submissions, `max_parallel_sub_calls` concurrency-safe calls at
// once, any other call alone, commits in start order. A started sub-call is
// logged as tool/code-dispatch-start, and tool/code-dispatch when it settles
// (through the session's ToolCallInput::record). A success whose content
// holds an image is attached to the outer call as a user message (so the
// model sees it next step), its additionalContexts go to the outer call too,
// and its concludesTurn is forwarded. When the program
// ends, the run is aborted ("run_code settled"), queued calls are abandoned
// and the in-flight ones drained before run_code returns, so every dispatch
// event lands inside the open turn.
#ifndef RETRACE_ENGINE_RUNTIME_RUN_CODE_H_
#define RETRACE_ENGINE_RUNTIME_RUN_CODE_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include <retrace/engine/base/status.h>
#include <retrace/engine/runtime/code_runner.h>
#include <retrace/engine/runtime/tool_definition.h>

namespace retrace::runtime {

class ToolRuntime;

struct RunCodeOptions {
  size_t max_parallel_sub_calls = 10;  // dsh's maxParallelSubCalls
  int program_threads = 4;             // programs that can run at once (each holds a thread while it runs)
  // Message ids (the host's source: UUIDs), for the user message that carries
  // an image a sub-call returned to the outer call. Unset: "code-image-<n>".
  std::function<std::string()> new_id{};
};

// The run_code definition for `runtime`, in the flavor of `runner`'s language.
// `runtime` must outlive it. Install it with ToolRegistry::SetCodeMode.
Result<ToolDefinitionPtr> MakeRunCodeTool(ToolRuntime& runtime, std::shared_ptr<const CodeRunner> runner,
                                          RunCodeOptions options = {});

}  // namespace retrace::runtime

#endif  // RETRACE_ENGINE_RUNTIME_RUN_CODE_H_
