#include "tools/bash_tool.h"

#include "engine/json/lenient.h"
#include "engine/json/writer.h"
#include "engine/runtime/tool_error.h"
#include "engine/schema/schema_spec.h"
#include "tools/file_ops.h"
#include "engine/json/js_text.h"
#include "tools/subprocess.h"
#include "tools/reference_tool.h"

namespace retrace::tools {
namespace {

using json::Value;
using namespace schema;
using Clock = std::chrono::steady_clock;

// dsh-bash-local's defaults.
constexpr double kDefaultTimeoutMs = 120000;
constexpr double kMaxTimeoutMs = 600000;
constexpr size_t kMaxOutputBytes = 64000;
constexpr uint64_t kMaxSpillBytes = 64ULL * 1024 * 1024;
constexpr std::chrono::milliseconds kGrace{3000};

constexpr const char* kDescription =
    "Execute a bash command (`bash -c`) and return its stdout/stderr. Each call runs in a fresh shell: no state (cwd, "
    "variables, functions) persists between calls — pass `workdir` instead of using `cd`. Non-zero exits are reported as "
    "`[exit code: N]`. Current harness environment facts are exposed through managed `$DSH_*` variables; inspect them "
    "when needed. Commands may run under a file sandbox; a blocked file operation is reported as `[sandbox: file access "
    "denied under <mode> mode]` — a policy denial, not a bug in the command; do not retry another way. Long output is "
    "truncated to its tail; the full output is saved to a file whose path is reported when available. Set "
    "`run_in_background: true` for long-running commands: the call returns a job id immediately; read its output with "
    "`job_output` and stop it with `job_kill`.";

runtime::ToolError AbortError() { return runtime::ToolError("tool call aborted", "AbortError", "ABORTED"); }

void CheckArgs(const Value& args) {
  if (json::IsJsBlank(args.Find("command")->as_string())) throw std::runtime_error("invalid command: expected a non-empty string");
  if (json::IsJsBlank(args.Find("description")->as_string())) {
    throw std::runtime_error("invalid description: expected a non-empty string");
  }
  if (const Value* t = args.Find("timeoutMs"); t && (!std::isfinite(t->as_number()) || t->as_number() <= 0)) {
    throw std::runtime_error("invalid timeoutMs: expected a positive number, got " + json::Serialize(*t));
  }
  CheckEscalationArgs(args, "executor");
}

// The session cwd is the workspace; a relative workdir resolves against it.
std::string Workdir(const Value& args, const Workspace& workspace) {
  std::string root = workspace.Cwd();  // refused when there is no workspace yet
  const Value* w = args.Find("workdir");
  if (w == nullptr) return root;
  const std::string& dir = w->as_string();
  return !dir.empty() && dir[0] == '/' ? dir : ResolveLexically(root, dir);
}

SpawnSpec BashSpawn(const ToolHost& host, const runtime::ToolRunContext& run, const Value& args) {
  SpawnSpec spec;
  spec.argv = {"bash", "-c", args.Find("command")->as_string()};
  spec.cwd = Workdir(args, host.workspace);
  spec.base_env = host.environment;
  // Model-friendly terminal (dsh-bash-local's ENV_OVERRIDES) and the managed DSH_* facts.
  spec.env = {{"NO_COLOR", "1"}, {"TERM", "dumb"}, {"PAGER", "cat"}, {"GIT_PAGER", "cat"}, {"DSH_SHELL", "1"}};
  if (std::optional<std::string> session = SessionId(run)) spec.env["DSH_SESSION_ID"] = *session;
  spec.stdout_max_bytes = spec.stderr_max_bytes = kMaxOutputBytes;
  if (!host.spill_dir.empty()) spec.spill_max_bytes = kMaxSpillBytes;
  spec.spill_dir = host.spill_dir;
  spec.grace = kGrace;
  return spec;
}

Value StreamValue(const CollectedOutput& out) {
  Value v = Value::MakeObject({{"text", json::DecodeUtf8Lossy(out.text)}, {"truncated", out.truncated}});
  if (out.spill_path) v.Set("spillPath", *out.spill_path);
  return v;
}

Value RunForeground(const ToolHost& host, runtime::ToolRunContext& run, const Value& args) {
  const Value* requested = args.Find("timeoutMs");
  const double timeout_ms = std::min(requested ? requested->as_number() : kDefaultTimeoutMs, kMaxTimeoutMs);
  const runtime::Signal signal = run.signal();
  if (signal.aborted()) throw AbortError();
  Result<std::shared_ptr<Subprocess>> spawned = Subprocess::Spawn(BashSpawn(host, run, args));
  if (!spawned.ok()) throw std::runtime_error(spawned.status().message());
  std::shared_ptr<Subprocess> proc = *spawned;
  runtime::Subscription on_abort = signal.OnAbort([proc](const std::string&) { proc->Terminate(); });
  const auto deadline = Clock::now() + std::chrono::duration<double, std::milli>(timeout_ms);
  bool timed_out = false;
  std::optional<ProcessOutcome> outcome =
      proc->WaitFor(std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()));
  if (!outcome) {
    timed_out = true;  // BASH_TIMEOUT: the executor's deadline, not a cancellation
    proc->Terminate();
    outcome = proc->Wait();
  }
  on_abort.Reset();
  if (signal.aborted() && !timed_out) throw AbortError();
  return Value::MakeObject({{"kind", "foreground"},
                            {"exitCode", outcome->exit_code ? Value(*outcome->exit_code) : Value()},
                            {"signal", outcome->signal ? Value(*outcome->signal) : Value()},
                            {"timedOut", timed_out},
                            {"aborted", false},
                            {"timeoutMs", timeout_ms},
                            {"stdout", StreamValue(proc->FinalStdout())},
                            {"stderr", StreamValue(proc->FinalStderr())}});
}

// dsh-tool-bash's renderProcessRead over dsh-bash-local's merged read.
std::string ReadDelta(Subprocess& proc, uint64_t& out_offset, uint64_t& err_offset) {
  StreamRead out = proc.ReadStdout(out_offset), err = proc.ReadStderr(err_offset);
  out_offset = out.next_offset;
  err_offset = err.next_offset;
  std::string out_text = json::DecodeUtf8Lossy(out.text), err_text = json::DecodeUtf8Lossy(err.text);
  std::string delta = out_text;
  if (!err_text.empty()) {
    delta += (!out_text.empty() && out_text.back() != '\n' ? "\n[stderr]\n" : "[stderr]\n") + err_text;
  }
  if (!out.lossy && !err.lossy) return delta;
  std::string paths;
  for (const std::optional<std::string>& p : {out.spill_path, err.spill_path}) {
    if (p) paths += (paths.empty() ? "" : ", ") + *p;
  }
  if (!delta.empty() && delta.back() != '\n') delta += '\n';
  return delta + "[some output was dropped from memory; full output: " + (paths.empty() ? "(unavailable)" : paths) + "]";
}

Value StartBackground(const ToolHost& host, runtime::ToolRunContext& run, const Value& args) {
  if (!host.jobs) {
    throw std::runtime_error("background jobs unavailable: load @deepseek-ai/dsh-jobs and @deepseek-ai/dsh-tool-jobs");
  }
  if (run.signal().aborted()) throw AbortError();
  SpawnSpec spec = BashSpawn(host, run, args);
  JobSpec job{.kind = "bash",
              .label = args.Find("command")->as_string(),
              .owner = SessionId(run),
              .output_limit_bytes = std::nullopt,
              .run = {}};
  job.run = [spec = std::move(spec)](const JobSettleFn& settle) mutable -> JobHooks {
    // The job is task-owned: the call's signal does not reach it, job_kill does.
    auto killed = std::make_shared<std::atomic<bool>>(false);
    Result<std::shared_ptr<Subprocess>> spawned =
        Subprocess::Spawn(std::move(spec), [settle, killed](const ProcessOutcome& o) {
          if (*killed || o.signal) {
            settle({"killed", o.signal ? "signal: " + *o.signal : "killed before exit", std::nullopt});
          } else {
            settle({"completed", "exit code: " + std::to_string(o.exit_code.value_or(0)), std::nullopt});
          }
        });
    if (!spawned.ok()) {  // dsh-bash-local settles a spawn failure as killed, with the error as its output
      settle({"killed", "killed before exit", std::nullopt});
      auto note = std::make_shared<std::string>("[stderr]\nspawn failed: Error: " + spawned.status().message());
      return {.cancel = [](const std::string&) {}, .read_output = [note] { return std::exchange(*note, ""); }};
    }
    std::shared_ptr<Subprocess> proc = *spawned;
    auto offsets = std::make_shared<std::pair<uint64_t, uint64_t>>(0, 0);
    return {.cancel =
                [proc, killed](const std::string&) {
                  if (!proc->settled()) {
                    *killed = true;
                    proc->Terminate();
                  }
                },
            .read_output = [proc, offsets] { return ReadDelta(*proc, offsets->first, offsets->second); }};
  };
  Result<std::string> id = host.jobs->Start(std::move(job));
  if (!id.ok()) throw std::runtime_error(id.status().message());
  return Value::MakeObject({{"kind", "background"}, {"jobId", *id}});
}

Spec StreamSchema() {
  return Object(false, {{"text", String().Required()}, {"truncated", Boolean().Required()}, {"spillPath", String()}});
}

}  // namespace

std::string RenderBashResult(const Value& v) {
  auto stream_text = [](const Value& s) {
    std::string text = s.Find("text")->as_string();
    if (!s.Find("truncated")->as_bool()) return text;
    const Value* spill = s.Find("spillPath");
    return text + "\n[output truncated; full output: " + (spill ? spill->as_string() : "(unavailable)") + "]";
  };
  std::string body = stream_text(*v.Find("stdout"));
  const std::string err = stream_text(*v.Find("stderr"));
  if (!err.empty()) {
    if (!body.empty() && body.back() != '\n') body += '\n';
    body += "[stderr]\n" + err;
  }
  if (body.empty()) body = "(no output)";
  std::vector<std::string> markers;
  if (v.Find("timedOut")->as_bool()) {
    markers.push_back("[timed out after " + runtime::FormatJsNumber(v.Find("timeoutMs")->as_number()) + "ms]");
  }
  const Value& signal = *v.Find("signal");
  const Value& exit = *v.Find("exitCode");
  if (!signal.is_null()) {
    markers.push_back("[killed by signal: " + signal.as_string() + "]");
  } else if (exit.is_null() || exit.as_number() != 0) {
    markers.push_back("[exit code: " + (exit.is_null() ? std::string("null") : json::FormatNumber(exit.as_number())) + "]");
  }
  if (markers.empty()) return body;
  if (body.back() != '\n') body += '\n';
  for (size_t i = 0; i < markers.size(); ++i) body += (i ? "\n" : "") + markers[i];
  return body;
}

Result<runtime::ToolDefinitionPtr> BashTool(const ToolHost& host) {
  runtime::ToolDefinition spec{
      .name = "bash",
      .description = kDescription,
      .output = {.schema = OneOf({Object(false, {{"kind", String().Enum({"background"}).Required()},
                                                 {"jobId", String().Required()}}),
                                  Object(false, {{"kind", String().Enum({"foreground"}).Required()},
                                                 {"exitCode", OneOf({Integer(), Null()}).Required()},
                                                 {"signal", OneOf({String(), Null()}).Required()},
                                                 {"timedOut", Boolean().Required()},
                                                 {"aborted", Boolean().Required()},
                                                 {"timeoutMs", Number().Required()},
                                                 {"stdout", StreamSchema().Required()},
                                                 {"stderr", StreamSchema().Required()}})}),
                 .render =
                     [](const Value&, const Value& v) {
                       return runtime::TextContent(v.Find("kind")->as_string() == "background"
                                                       ? "started background job " + v.Find("jobId")->as_string()
                                                       : RenderBashResult(v));
                     },
                 .presentation_meta = {}},
      .execute =
          [host](runtime::ToolRunContext& run) {
            const Value& args = run.arguments();
            CheckArgs(args);
            const Value* background = args.Find("run_in_background");
            return json::True(background) ? StartBackground(host, run, args)
                                                                                 : RunForeground(host, run, args);
          },
  };
  return DefineReferenceTool(std::move(spec));
}

}  // namespace retrace::tools
