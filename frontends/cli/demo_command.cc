// retrace demo [--html FILE] [--keep-workspace]
//
// The main job end to end: in a fresh temporary workspace, a scripted
// session runs through the real pipeline and built-in tools — a file
// written, read and edited, an injected notice, a malformed call, a call a
// policy denies, grep and glob, bash succeeding and failing, two background
// jobs (one waited on, one announcing itself with a completion notice) — is
// recorded into the database, replayed as text, and written out as a
// self-contained HTML page.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "frontends/cli/command.h"
#include "frontends/cli/exit_codes.h"
#include "frontends/cli/script_session.h"
#include "format/atomic_file.h"
#include "service/replay.h"

namespace retrace::cli {
namespace {

struct DemoOptions {
  std::string html = "session.html";
  bool keep_workspace = false;
};

// What the model "says": the conversation the demo plays.
constexpr char kScript[] = R"({"op":"prompt","text":"Create a small math module, look it over, and fix anything wrong with add()."}
{"op":"assistant","reasoning":"Start by writing the module.","text":"I'll create src/math.ts.","toolCalls":[{"id":"call_write","name":"write","arguments":{"file_path":"src/math.ts","content":"export function add(a: number, b: number): number {\n  return Math.abs(a) + b\n}\n\nexport function twice(n: number): number {\n  return add(n, n)\n}\n"}}]}
{"op":"assistant","text":"Reading it back.","toolCalls":[{"id":"call_read","name":"read","arguments":{"file_path":"src/math.ts"}}]}
{"op":"inject","text":"<system-reminder>src/math.test.ts was modified outside the agent.</system-reminder>","plugin":"file-watch","form":"notice","summary":"src/math.test.ts changed on disk"}
{"op":"assistant","text":"Math.abs(a) breaks negative inputs. Fixing it, and trying two more things.","toolCalls":[{"id":"call_edit","name":"edit","arguments":{"file_path":"src/math.ts","old_string":"return Math.abs(a) + b","new_string":"return a + b"}},{"id":"call_malformed","name":"read","arguments":"{\"file_path\": \"src/math.ts\", \"limit\": 1"},{"id":"call_denied","name":"write","arguments":{"file_path":"package-lock.json","content":"{}"}}]}
{"op":"assistant","text":"Who calls add()?","toolCalls":[{"id":"call_grep","name":"grep","arguments":{"pattern":"add\\(","include":"*.ts"}},{"id":"call_glob","name":"glob","arguments":{"pattern":"**/*.ts"}}]}
{"op":"assistant","text":"Checking the fix, and whether a test file exists yet.","toolCalls":[{"id":"call_bash_ok","name":"bash","arguments":{"command":"grep -n 'a + b' src/math.ts","description":"Show the fixed line"}},{"id":"call_bash_fail","name":"bash","arguments":{"command":"test -f src/math.test.ts || { echo 'no test file yet' >&2; exit 1; }","description":"Check for a test file"}}]}
{"op":"assistant","text":"Starting the build and the linter in the background.","toolCalls":[{"id":"call_build","name":"bash","arguments":{"command":"sleep 0.5; echo 'build ok: 2 modules'","description":"Build the project","run_in_background":true}},{"id":"call_lint","name":"bash","arguments":{"command":"echo 'lint: 0 problems'","description":"Lint the project","run_in_background":true}}]}
{"op":"assistant","text":"Waiting for the build.","toolCalls":[{"id":"call_wait","name":"job_output","arguments":{"job_id":"bash-1","wait":true}}]}
{"op":"assistant","text":"Fixed: add() no longer takes the absolute value of a; the build and the linter pass. The lockfile is left to the package manager."}
)";

// The demo's policy: lockfiles are written by package managers, never by the agent.
std::vector<runtime::Registration> DemoPolicy(runtime::ToolRuntime& rt) {
  std::vector<runtime::Registration> regs;
  regs.push_back(rt.registry().Guard([](const runtime::Execution& exec) -> std::optional<std::string> {
    const json::Value* path = exec.has_arguments() ? exec.arguments().Find("file_path") : nullptr;
    if (exec.name() == "write" && path && path->is_string() && path->as_string().find("lock") != std::string::npos) {
      return "policy: lockfiles are written by the package manager, not by the agent";
    }
    return std::nullopt;
  }));
  return regs;
}

int Run(const Context& ctx, const DemoOptions& opt) {
  auto ops = service::ParseScript(kScript, "demo script");
  if (!ops.ok()) return ctx.Fail(ops.status());
  std::string dir = (std::filesystem::temp_directory_path() / "retrace-demo-XXXXXX").string();
  if (mkdtemp(dir.data()) == nullptr) return ctx.Fail(Status::IoError("cannot create a demo workspace in " + dir));

  ScriptSession how{"demo-" + std::to_string(ctx.NowMs()), dir, 10, DemoPolicy};
  Result<ScriptOutcome> outcome = RecordScript(ctx, *ops, how);
  if (!outcome.ok()) return ctx.Fail(outcome.status());

  // Replay what was recorded, from the database, as a reader would.
  auto source = ctx.catalog().Resolve(outcome->session_id);
  if (!source.ok()) return ctx.Fail(source.status());
  const bool color = isatty(fileno(ctx.out)) && std::getenv("NO_COLOR") == nullptr;
  Status st = service::WriteReplay(*source, service::ReplayFormat::kText, {.color = color}, [&](std::string_view text) {
    return std::fwrite(text.data(), 1, text.size(), ctx.out) == text.size() ? Status::Ok()
                                                                              : Status::IoError("cannot write to stdout");
  });
  if (st.ok()) {
    std::string html;
    st = service::WriteReplay(*source, service::ReplayFormat::kHtml, {}, [&](std::string_view text) {
      html += text;
      return Status::Ok();
    });
    if (st.ok()) st = format::WriteFileAtomically(opt.html, html);
  }
  if (!st.ok()) return ctx.Fail(st);
  if (!opt.keep_workspace) std::filesystem::remove_all(dir);
  std::fprintf(ctx.out, "\n%s into %s\nwrote %s%s%s\n", Summary(*outcome).c_str(), ctx.db_path.c_str(),
               opt.html.c_str(), opt.keep_workspace ? "; workspace kept at " : "", opt.keep_workspace ? dir.c_str() : "");
  return kExitOk;
}

}  // namespace

Command DemoCommand() {
  return {"demo", "Run a scripted session through the real tools, record it, replay it as text and HTML",
          [](Options sub, Context& ctx) -> Handler {
            auto opt = std::make_shared<DemoOptions>();
            sub.Add("--html", opt->html, "Where to write the replayed session page (default: session.html)");
            sub.Flag("--keep-workspace", opt->keep_workspace, "Keep the temporary workspace the tools worked in");
            sub.Footer(
                "In a fresh temporary workspace the demo writes, reads and edits a file with the built-in\n"
                "tools, receives an injected notice, sends one malformed call and one call a policy denies,\n"
                "searches with grep and glob, runs bash (one success, one failure) and two background jobs,\n"
                "records everything into the database (--db), then replays it from there.\n");
            return [&ctx, opt] { return Run(ctx, *opt); };
          }};
}

}  // namespace retrace::cli
