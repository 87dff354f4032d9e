// retrace run <script.jsonl> [--session ID]
#include <fstream>
#include <sstream>

#include "frontends/cli/code_mode_option.h"
#include "frontends/cli/command.h"
#include "frontends/cli/exit_codes.h"
#include "frontends/cli/script_session.h"

namespace retrace::cli {
namespace {

struct RunOptions {
  std::string script;
  std::string session;
  std::string workspace = ".";
  size_t max_parallel = 10;
  CodeModeOption code;
};

Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("cannot read script " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

int Run(const Context& ctx, const RunOptions& opt) {
  auto text = ReadFile(opt.script);
  if (!text.ok()) return ctx.Fail(text.status());
  auto ops = service::ParseScript(*text, opt.script);  // checked whole before anything is written
  if (!ops.ok()) return ctx.Fail(ops.status());

  ScriptSession how{opt.session, opt.workspace, opt.max_parallel, nullptr};
  how.code = CodeModeFrom(opt.code);
  Result<ScriptOutcome> outcome = RecordScript(ctx, *ops, how);
  if (!outcome.ok()) return ctx.Fail(outcome.status());
  std::fprintf(ctx.out, "%s\n", Summary(*outcome).c_str());
  return kExitOk;
}

}  // namespace

Command RunCommand() {
  return {"run", "Drive a session from a script through the tool runtime, recording every event",
          [](Options sub, Context& ctx) -> Handler {
            auto opt = std::make_shared<RunOptions>();
            sub.Add("script", opt->script, "Script file (JSONL; see docs/RUN_SCRIPTS.md)").Required();
            sub.Add("--session", opt->session,
                    "Session id: a new session (default: a fresh UUID), or an existing one to continue; a turn "
                    "a crash left open is closed first");
            sub.Add("--workspace", opt->workspace,
                    "Directory the built-in tools work in and are confined to (default: the current directory)");
            sub.Add("--max-parallel", opt->max_parallel, "Concurrency-safe calls that may run at once")
                .InRange(1, 1000);
            AddCodeModeOption(sub, opt->code);
            sub.Footer(
                "Each script line is one op: prompt (starts a turn), assistant (one model step whose\n"
                "toolCalls run through the pipeline), inject, cancel, end. Every tool/call is durable\n"
                "before its body runs. Built-in tools (dsh's reference tools): read, write, edit (confined\n"
                "to --workspace), glob, grep, bash (run_in_background gives bash-1, bash-2, ...),\n"
                "job_output, job_list, job_kill, web_fetch (http and https; $SSL_CERT_FILE adds CAs);\n"
                "other names resolve to UNKNOWN_TOOL. With --tools-mode code, run_code runs a TypeScript or\n"
                "Python program whose tools.<name>(args) calls are recorded as nested dispatches\n"
                "(`retrace sdk` prints what the model is told). See docs/RUN_SCRIPTS.md. Example:\n"
                "  {\"op\":\"prompt\",\"text\":\"list the files\"}\n"
                "  {\"op\":\"assistant\",\"toolCalls\":[{\"id\":\"c1\",\"name\":\"read\",\"arguments\":\"{\\\"file_path\\\":\\\"README.md\\\"}\"}]}\n"
                "  {\"op\":\"assistant\",\"text\":\"Done.\"}\n");
            return [&ctx, opt] { return Run(ctx, *opt); };
          }};
}

}  // namespace retrace::cli
