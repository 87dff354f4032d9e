// retrace replay <session|file.jsonl[.zstd]> [--format cards|transcript|text|html] [-o FILE]
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <thread>

#include "frontends/cli/command.h"
#include "frontends/cli/exit_codes.h"
#include "frontends/cli/presenters_option.h"
#include "format/atomic_file.h"
#include "service/replay.h"

namespace retrace::cli {
namespace {

struct Args {
  std::string source;
  std::string format = "cards";
  std::string output;
  unsigned threads = 0;  // 0: one per core
  PresentersOption presenters;
};

// How much of a replay's output is held before it is handed on.
constexpr size_t kDrainBytes = size_t{1} << 20;

Status WriteStdout(const Context& ctx, std::string_view text) {
  return std::fwrite(text.data(), 1, text.size(), ctx.out) == text.size() ? Status::Ok()
                                                                            : Status::IoError("cannot write to stdout");
}

Status Replay(const Context& ctx, const Args& a, const presenters::PresenterSet* presenters) {
  ASSIGN_OR_RETURN(const store::EventSource source, ctx.catalog().Resolve(a.source));
  const service::ReplayFormat format = service::ReplayFormatNamed(a.format).value_or(service::ReplayFormat::kCards);
  service::ReplayOptions options{.presenters = presenters, .threads = a.threads, .drain_bytes = kDrainBytes};
  if (!a.output.empty()) {
    // Into AtomicFile's temporary file as the output is made: the file
    // appears only once it is complete.
    ASSIGN_OR_RETURN(format::AtomicFile file, format::AtomicFile::Create(a.output));
    RETURN_IF_ERROR(service::WriteReplay(source, format, options,
                                         [&](std::string_view text) { return file.Append(text); }));
    return file.Commit(/*overwrite=*/true);
  }
  // Streamed, so that memory holds a block and not the document (a 1 GB log's
  // cards are most of a GB). A replay that fails part way has then written
  // part of the document: the exit status and the message on stderr say so;
  // -o FILE is the all-or-nothing form. Colours only for a person at a
  // terminal (and never with NO_COLOR set).
  options.color = isatty(fileno(ctx.out)) && std::getenv("NO_COLOR") == nullptr;
  return service::WriteReplay(source, format, options, [&](std::string_view text) { return WriteStdout(ctx, text); });
}

int Run(const Context& ctx, Args a) {
  if (a.threads == 0) a.threads = std::max(1u, std::thread::hardware_concurrency());
  auto external = StartPresenters(a.presenters);
  if (!external.ok()) return ctx.Fail(external.status());
  const Status st = Replay(ctx, a, PresentersFor(a.presenters, external->get()));
  if (*external && (*external)->failures() > 0) {
    // Those calls show the generic card; `retrace check` names each of them.
    std::fprintf(ctx.err, "retrace: warning: %d presentations failed and show the generic card; the last: %s\n",
                 (*external)->failures(), (*external)->last_failure().c_str());
  }
  return st.ok() ? kExitOk : ctx.Fail(st);
}

}  // namespace

Command ReplayCommand() {
  return {"replay", "Rebuild a session's UI from its log with the tools' pure presenters: cards, transcript, text, HTML",
          [](Options sub, Context& ctx) -> Handler {
            auto a = std::make_shared<Args>();
            sub.Add("source", a->source, "A stored session id, or a dsh JSONL file (.jsonl or .jsonl.zstd)")
                .Required();
            sub.Add("--format", a->format, "cards (default), transcript, text or html")
                .OneOf({"cards", "transcript", "text", "html"});
            sub.AddOutput(a->output);
            sub.Add("--threads", a->threads,
                    "Cards from a log file (up to 64 MiB) or a stored session (up to 256k events): cut it\n"
                    "where turns start into up to N pieces of at least 1 MiB or 4096 events, replayed side\n"
                    "by side (the document is the one a single thread writes). 1: one piece. Default: one\n"
                    "per core");
            AddPresentersOption(sub, a->presenters);
            sub.Footer(
                "cards       one JSON document {sessionId, calls:[{callId, name, args, pending, result, isError,\n"
                "            display:{pending, result}}]}: each call's own views from the tool's presenters\n"
                "            (arguments that fail the tool's schema give null) and the generic fallback shown instead\n"
                "transcript  JSON rows in log order (prompts, injected context, assistant text, tool cards,\n"
                "            notices, turn boundaries), each flagged in or out of the current model context\n"
                "text        the transcript for a terminal (colours only on a TTY; NO_COLOR turns them off)\n"
                "html        one self-contained page: no scripts, no network, every logged string escaped\n"
                "The same log always gives byte-identical output.\n");
            return [&ctx, a] { return Run(ctx, *a); };
          }};
}

}  // namespace retrace::cli
