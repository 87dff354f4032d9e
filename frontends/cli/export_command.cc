// retrace export <session> [-o FILE] [--zstd] [--dsh-root DIR]
#include <unistd.h>

#include "frontends/cli/command.h"
#include "frontends/cli/exit_codes.h"
#include "service/export.h"

namespace retrace::cli {
namespace {

struct Args {
  std::string session;
  std::string output;
  std::string dsh_root;
  bool zstd = false;
};

int Run(const Context& ctx, const Args& a) {
  if (a.zstd && a.output.empty() && a.dsh_root.empty() && isatty(fileno(ctx.out))) {
    return ctx.Fail(Status::InvalidArgument("refusing to write zstd bytes to a terminal; use -o FILE"));
  }
  auto written = service::ExportSession(ctx.catalog(), a.session, {.zstd = a.zstd, .file = a.output, .dsh_root = a.dsh_root},
                                        [&](std::string_view b) {
                                          return std::fwrite(b.data(), 1, b.size(), ctx.out) == b.size()
                                                     ? Status::Ok()
                                                     : Status::IoError("cannot write to stdout");
                                        });
  std::fflush(ctx.out);
  if (!written.ok()) return ctx.Fail(written.status());
  if (!a.dsh_root.empty()) std::fprintf(ctx.err, "wrote %s\n", written->c_str());
  return kExitOk;
}

}  // namespace

Command ExportCommand() {
  return {"export", "Write a stored session as a dsh JSONL log (raw or zstd), byte-exact to what was imported",
          [](Options sub, Context& ctx) -> Handler {
            auto a = std::make_shared<Args>();
            sub.Add("session", a->session, "Session id").Required();
            sub.AddOutput(a->output);
            sub.Flag("--zstd", a->zstd, "Write checksummed zstd frames, as dsh's zstd backend does");
            sub.Add("--dsh-root", a->dsh_root,
                    "Write into a dsh root: DIR/<projectKey(cwd)>/<encodeSegment(id)>/session.jsonl[.zstd]; "
                    "never overwrites");
            return [&ctx, a] { return Run(ctx, *a); };
          }};
}

}  // namespace retrace::cli
