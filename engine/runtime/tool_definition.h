// ToolDefinition: a tool, defined once (dsh-tool-contract §3, §4.1) — model
// schema, mandatory canonical output contract, body, and optional callbacks —
// and DefineTool(), the typed builder that compiles the schema DSL and
// validates arguments before the body runs.
//
//   auto echo = DefineTool({
//       .name = "echo",
//       .description = "Echo a string.",
//       .parameters = schema::Parameters({{"s", schema::String().Required()}}),
//       .output = {.schema = schema::String(),
//                  .render = [](const json::Value&, const json::Value& v) { return TextContent(v.as_string()); }},
//       .execute = [](ToolRunContext& run) { return *run.arguments().Find("s"); },
//   });
//
// A body is either synchronous (`execute`; run on the runtime's blocking
// pool, so it may block) or an Asio coroutine (`execute_async`; runs on the
// caller's executor and must not block). A synchronous body may also come
// in a brief form (`execute_brief`), tried first on the caller's thread.
// Either way it observes run.signal() and settles only after the work it
// owns has stopped. It returns the canonical value; it throws ToolError (or
// any exception) for infrastructure failures. Domain outcomes (a non-zero
// exit code) are values.
#ifndef RETRACE_ENGINE_RUNTIME_TOOL_DEFINITION_H_
#define RETRACE_ENGINE_RUNTIME_TOOL_DEFINITION_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <retrace/engine/base/status.h>
#include <retrace/engine/json/value.h>
#include <retrace/engine/runtime/asio.h>
#include <retrace/engine/runtime/execution.h>
#include <retrace/engine/runtime/tool_result.h>
#include <retrace/presenters/presenter.h>

namespace retrace::runtime {

using RenderFn = std::function<Content(const json::Value& args, const json::Value& value)>;
using PresentationMetaFn = std::function<json::Value(const json::Value& args, const json::Value& value)>;
using SyncBody = std::function<json::Value(ToolRunContext&)>;
using AsyncBody = std::function<asio::awaitable<json::Value>(ToolRunContext&)>;
// The value, or nullopt (having done nothing the body would not redo) to run
// the body on the blocking pool instead.
using BriefBody = std::function<std::optional<json::Value>(ToolRunContext&)>;
// Returns replacement content, or nullopt to keep it. Synchronous and total.
using FinalizeContentFn = std::function<std::optional<Content>(const Execution&, const ToolResult&)>;
using ConcurrencySafeFn = std::function<bool(const json::Value& args)>;
// Presenters (presenters/presenter.h): pure views of logged arguments and durable results.
using presenters::DurableResult;
using presenters::PresentCallFn;
using presenters::PresentResultFn;

struct ToolOutput {
  json::Value schema{};  // raw JSON Schema of the canonical value (DefineTool: the DSL)
  RenderFn render{};     // value → model-facing content
  PresentationMetaFn presentation_meta{};  // optional: value → durable `meta`
};

// What a tool does to the world, for front ends that tell their clients
// (MCP's tool annotations). The defaults are MCP's: assume the worst.
struct ToolHints {
  std::string title{};      // a human name ("Read file"); "" — none
  bool read_only = false;   // changes nothing
  bool destructive = true;  // may delete or overwrite (meaningful when not read-only)
  bool idempotent = false;  // a repeat with the same arguments changes nothing more
  bool open_world = true;   // reaches beyond the workspace (network, processes)
};

// The raw form the registry takes (§4.1). Immutable once registered.
struct ToolDefinition {
  std::string name{};
  std::string description{};
  json::Value parameters{};  // raw JSON Schema (DefineTool: the ParameterSchemaSpec DSL)
  ToolOutput output{};
  SyncBody execute{};         // exactly one of execute / execute_async
  AsyncBody execute_async{};
  // Optional, with `execute`: the body tried first on the caller's thread,
  // which saves the hop to the blocking pool and back (two thread wake-ups,
  // about 20 us a call). Only the tool's author can promise what it needs:
  // brief, bounded work on local files (no network, no child process, no
  // wait on anything else), well under a millisecond; it declines (nullopt)
  // what it cannot do so (a read of a large file, a write while the disk's
  // fsyncs are slow: tools/write_tool.h). Deadlines and
  // cancellation are checked before and after it, not during.
  BriefBody execute_brief{};
  std::optional<double> timeout_ms{};  // declarative; enforced by a timeout wrapper (timeout_policy.h)
  ConcurrencySafeFn is_concurrency_safe{};
  FinalizeContentFn finalize_content{};
  // Presenters (§6): pure views of logged arguments and durable results,
  // soft-validated against `parameters` (presenters::PresentCall). Give the
  // functions (DefineTool makes `presenter` of them, its version from
  // `presenter_revision`: bump it when a view changes) or a ready
  // `presenter` over the same parameters (the built-in tools take the
  // reference tools'). Once defined, `presenter` is what the recorder's card
  // snapshots and ToolRegistry::Presenters() use, and present_call /
  // present_result call it.
  PresentCallFn present_call{};
  PresentResultFn present_result{};
  std::string presenter_revision = "1";
  // When the arguments changed over time: their current revision, each older
  // revision's parameters (DSL) and the upcasters between them
  // (presenters/revisions.h). DefineTool checks the chain and puts it in the
  // presenter made from present_call / present_result, so that replay shows
  // old calls with today's views.
  std::optional<presenters::RevisionSpec> revisions{};
  presenters::ToolPresenterPtr presenter{};
  std::optional<ToolHints> hints{};  // unknown when absent
};

using ToolDefinitionPtr = std::shared_ptr<const ToolDefinition>;

// dsh's defineTool (§3): checks timeoutMs, compiles `parameters` and
// `output.schema` from the DSL (exact JsonSchemaError texts), and wraps the
// body so schema-invalid arguments throw ToolArgsError (INVALID_ARGS) inside
// the body stage; isConcurrencySafe and the presenters soft-validate
// (invalid arguments → false / nullopt).
Result<ToolDefinitionPtr> DefineTool(ToolDefinition spec);

}  // namespace retrace::runtime

#endif  // RETRACE_ENGINE_RUNTIME_TOOL_DEFINITION_H_
