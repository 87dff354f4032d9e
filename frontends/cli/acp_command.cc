// retrace acp
#include <unistd.h>

#include <csignal>

#include "frontends/acp/stdio.h"
#include "frontends/cli/command.h"
#include "frontends/cli/exit_codes.h"
#include "frontends/cli/presenters_option.h"

namespace retrace::cli {
namespace {

struct AcpOptions {
  size_t page_size = 1000;
  size_t max_frame_bytes = size_t{16} << 20;
  PresentersOption presenters;
};

int Run(const Context& ctx, const AcpOptions& opt) {
  // An editor that closes our stdout ends the connection (frontends/acp/stdio.h), not the process by SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  auto external = StartPresenters(opt.presenters);
  if (!external.ok()) return ctx.Fail(external.status());
  std::fprintf(ctx.err, "retrace acp: serving the sessions of %s over stdio\n", ctx.catalog().db_path().c_str());
  Status st = acp::ServeStdio(
      ctx.catalog(), STDIN_FILENO, STDOUT_FILENO,
      {.version = "0.1.0",
       .page_size = opt.page_size,
       .presenters = PresentersFor(opt.presenters, external->get()),
       .log = [&ctx](const std::string& m) { std::fprintf(ctx.err, "retrace acp: %s\n", m.c_str()); }},
      {.max_frame_bytes = opt.max_frame_bytes});
  return st.ok() ? kExitOk : ctx.Fail(st);
}

}  // namespace

Command AcpCommand() {
  return {"acp", "Serve the stored sessions to an ACP editor (Zed…) over stdio: history with every tool card",
          [](Options sub, Context& ctx) -> Handler {
            auto opt = std::make_shared<AcpOptions>();
            sub.Add("--page-size", opt->page_size,
                    "Sessions per session/list page (default 1000: Zed imports one page and follows no cursor)")
                .InRange(1, 10000);
            sub.Add("--max-frame-bytes", opt->max_frame_bytes,
                    "Longest message accepted; a longer line is dropped and answered with an error (default 16 MiB)")
                .InRange(size_t{1024}, size_t{1} << 30);
            AddPresentersOption(sub, opt->presenters);
            sub.Footer(
                "ACP v1 over stdio: one JSON-RPC message per line on stdin and stdout; logs go to stderr.\n"
                "session/list lists the sessions of the database (--db), newest first, with titles;\n"
                "session/load replays one as session/update notifications: prompts, reasoning, text and a\n"
                "tool call per logged call, built from the same cards as `retrace replay`. retrace has no\n"
                "model: session/new and session/prompt are refused. Nothing is written. See docs/ACP.md.\n"
                "Your own tools' cards: --presenters-cmd runs a program serving their presenters (and\n"
                "upcasters of old arguments), as for `retrace replay` (docs/REPLAY-STABILITY.md).\n"
                "Zed (settings.json):  \"agent_servers\": {\"retrace\": {\"type\": \"custom\", \"command\": \"retrace\",\n"
                "                      \"args\": [\"--db\", \"/home/you/.retrace/retrace.db\", \"acp\"]}}\n");
            return [&ctx, opt] { return Run(ctx, *opt); };
          }};
}

}  // namespace retrace::cli
