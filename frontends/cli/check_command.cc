// retrace check <db|dir|file.jsonl>... [--golden DIR [--update-golden]] [--strict] [--fuzz N] [--json]
//               [--presenters-cmd CMD]
#include <unistd.h>

#include "check/replay_check.h"
#include "frontends/cli/command.h"
#include "frontends/cli/exit_codes.h"
#include "frontends/cli/presenters_option.h"
#include "engine/json/writer.h"

namespace retrace::cli {
namespace {

struct Args {
  std::vector<std::string> inputs;
  std::string golden;
  bool update_golden = false, strict = false, json = false;
  int fuzz = 0;
  PresentersOption presenters;
};

int Run(const Context& ctx, const Args& a) {
  check::CheckOptions o;
  if (!a.golden.empty()) o.golden_dir = a.golden;
  o.update_golden = a.update_golden;
  o.fuzz = a.fuzz;
  auto external = StartPresenters(a.presenters);
  if (!external.ok()) return ctx.Fail(external.status());
  o.presenters = PresentersFor(a.presenters, external->get());
  const bool tty = isatty(fileno(ctx.err));
  if (tty) {
    o.progress = [&ctx](size_t done, size_t total) {
      std::fprintf(ctx.err, "\rchecking: %zu/%zu sessions", done, total);
      if (done == total) std::fputs("\r\033[K", ctx.err);  // the report follows; clear the line
    };
  }
  auto report = check::CheckInputs(a.inputs, o);
  if (!report.ok()) return ctx.Fail(report.status());
  if (a.json) {
    std::fprintf(ctx.out, "%s\n", json::Serialize(check::ReportJson(*report, a.strict)).c_str());
  } else {
    std::fputs(check::ReportText(*report, a.strict).c_str(), ctx.out);
  }
  return report->Clean(a.strict) ? kExitOk : kExitFailure;
}

}  // namespace

Command CheckCommand() {
  return {"check", "Check that stored sessions still replay to the same cards (replay stability)",
          [](Options sub, Context& ctx) -> Handler {
            auto a = std::make_shared<Args>();
            sub.Add("inputs", a->inputs, "Retrace databases, dsh JSONL logs, or directories of logs").Required();
            const Option golden = sub.Add("--golden", a->golden,
                                          "Directory of reference card documents: <log file name>.cards.json for a "
                                          "log, <session id>.cards.json for a stored session");
            sub.Flag("--update-golden", a->update_golden,
                     "Write each session's current cards to --golden instead of comparing")
                .Needs(golden);
            sub.Flag("--strict", a->strict, "Treat soft-validation fallbacks (old arguments) as errors");
            sub.Add("--fuzz", a->fuzz, "Mutate each call's logged arguments N times (drop, retype, huge, Unicode)")
                .NonNegative();
            sub.Flag("--json", a->json, "Print the report as JSON (for CI)");
            AddPresentersOption(sub, a->presenters);
            sub.Footer(
                "Every session is replayed twice through the current presenters (a byte difference is a\n"
                "failure) and compared with its reference, call by call: missing, extra or differing cards,\n"
                "each with its seq, callId, tool, presenter version and the JSON path where it differs.\n"
                "Hard failures (a presenter that throws, an unknown event type not marked ignorable, a\n"
                "nondeterministic replay, a fuzz failure, an upcaster step that throws or breaks the next\n"
                "revision's schema) are reported apart from fallbacks: logged arguments that no longer fit\n"
                "the schema, which show the generic card and are warnings unless --strict. Tools that\n"
                "declare argument revisions get a tally: calls per revision, recorded or inferred, upcast,\n"
                "and why any still show the generic card. With --presenters-cmd, a program's presenters\n"
                "(and upcasters) are checked: one that crashes, answers garbage or is late gives a `threw`\n"
                "finding for that call.\n"
                "Exit code 0 only when clean. See docs/REPLAY-STABILITY.md.");
            return [&ctx, a] { return Run(ctx, *a); };
          }};
}

}  // namespace retrace::cli
