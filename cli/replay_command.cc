// retrace replay <session|file.jsonl[.zstd]> [--format cards|transcript|text|html] [-o FILE]
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <optional>
#include <thread>
#include <vector>

#include "cli/command.h"
#include "cli/exit_codes.h"
#include "engine/json/writer.h"
#include "engine/replay/cards.h"
#include "engine/replay/transcript.h"
#include "presenters/reference_tools.h"
#include "format/atomic_file.h"
#include "store/event_source.h"

namespace retrace::cli {
namespace {

struct Args {
  std::string source;
  std::string format = "cards";
  std::string output;
  unsigned threads = 0;  // 0: one per core
};

// The source a replay names (store/event_source.h says how).
Result<store::EventSource> Resolve(const Context& ctx, const std::string& name) {
  return store::EventSource::Resolve(name, [&]() -> Result<std::shared_ptr<store::EventStore>> {
    ASSIGN_OR_RETURN(std::unique_ptr<store::EventStore> store, ctx.OpenStore(false, /*create=*/false));
    return std::shared_ptr<store::EventStore>(std::move(store));
  });
}

// The cards of the source read in pieces on `threads` threads, or nullopt
// when it is not worth it or cannot be done exactly (then it is replayed in
// one piece, which also gives any error).
std::optional<replay::CardBuilder> PiecedCards(const store::EventSource& source, unsigned threads) {
  if (threads < 2) return std::nullopt;
  const std::vector<store::Piece> pieces = source.PlanPieces(threads);
  if (pieces.size() < 2) return std::nullopt;
  return replay::CardsInPieces(presenters::ReferencePresenters(), source.session_id(), source.PieceBytes(pieces),
                               [&](const std::vector<replay::PieceSink>& sinks) -> std::optional<std::string> {
                                 if (!source.ReadPieces(pieces, replay::CardsNeed, sinks)) return std::nullopt;
                                 return source.session_id();
                               });
}

// Writes the cards the builder holds, then the document's end.
Status WriteRest(replay::CardBuilder& builder, const std::function<Status(std::string_view)>& write) {
  RETURN_IF_ERROR(builder.DrainText(write));
  return write(builder.FinishText() + "\n");
}

// The card document, handed to `write` as it is made: every `drain_bytes`,
// so that memory holds a block rather than the document, or all at the end
// (drain_bytes 0), so that a reader never sees part of a failed replay. A
// source read in pieces is written once its pieces are joined.
Status WriteCards(const store::EventSource& source, unsigned threads, size_t drain_bytes,
                  const std::function<Status(std::string_view)>& write) {
  if (std::optional<replay::CardBuilder> pieced = PiecedCards(source, threads)) return WriteRest(*pieced, write);
  replay::CardBuilder builder(source.session_id(), presenters::ReferencePresenters(), replay::CardBuilder::Keep::kText);
  builder.ReserveText(drain_bytes                  ? 2 * drain_bytes
                      : source.is_file() ? replay::CardsSizeHint(static_cast<uint64_t>(source.file_bytes()))
                                                   : 0);
  RETURN_IF_ERROR(source.Read(replay::CardsNeed, [&](log::Event&& e) {
    builder.Add(std::move(e));
    return drain_bytes && builder.text_size() >= drain_bytes ? builder.DrainText(write) : Status::Ok();
  }));
  return WriteRest(builder, write);
}

// Transcript, text or HTML: rendered whole.
Result<std::string> Render(const Context& ctx, const Args& a, const store::EventSource& source) {
  replay::TranscriptBuilder builder(source.session_id(), presenters::ReferencePresenters());
  RETURN_IF_ERROR(source.Read(replay::TranscriptNeeds, [&](log::Event&& e) {
    builder.Add(std::move(e));
    return Status::Ok();
  }));
  const json::Value transcript = builder.Finish();
  if (a.format == "transcript") return json::Serialize(transcript) + "\n";
  if (a.format == "html") return replay::RenderHtml(transcript);
  // Colours only for a person at a terminal (and never with NO_COLOR set).
  const bool color = a.output.empty() && isatty(fileno(ctx.out)) && std::getenv("NO_COLOR") == nullptr;
  return replay::RenderText(transcript, color);
}

Status WriteStdout(const Context& ctx, std::string_view text) {
  return std::fwrite(text.data(), 1, text.size(), ctx.out) == text.size() ? Status::Ok()
                                                                            : Status::IoError("cannot write to stdout");
}

Status Replay(const Context& ctx, const Args& a) {
  ASSIGN_OR_RETURN(const store::EventSource source, Resolve(ctx, a.source));
  if (a.format == "cards" && !a.output.empty()) {
    // Into AtomicFile's temporary file as the cards are made: the file
    // appears only once it is complete.
    ASSIGN_OR_RETURN(format::AtomicFile file, format::AtomicFile::Create(a.output));
    RETURN_IF_ERROR(WriteCards(source, a.threads, size_t{8} << 20, [&](std::string_view text) { return file.Append(text); }));
    return file.Commit(/*overwrite=*/true);
  }
  if (a.format == "cards") {
    return WriteCards(source, a.threads, 0, [&](std::string_view text) { return WriteStdout(ctx, text); });
  }
  ASSIGN_OR_RETURN(std::string out, Render(ctx, a, source));
  return a.output.empty() ? WriteStdout(ctx, out) : format::WriteFileAtomically(a.output, out);
}

int Run(const Context& ctx, Args a) {
  if (a.threads == 0) a.threads = std::max(1u, std::thread::hardware_concurrency());
  const Status st = Replay(ctx, a);
  return st.ok() ? kExitOk : ctx.Fail(st);
}

}  // namespace

Command ReplayCommand() {
  return {"replay", "Rebuild a session's UI from its log with the tools' pure presenters: cards, transcript, text, HTML",
          [](CLI::App& sub, Context& ctx) -> Handler {
            auto a = std::make_shared<Args>();
            sub.add_option("source", a->source, "A stored session id, or a dsh JSONL file (.jsonl or .jsonl.zstd)")
                ->required();
            sub.add_option("--format", a->format, "cards (default), transcript, text or html")
                ->check(CLI::IsMember({"cards", "transcript", "text", "html"}));
            sub.add_option("-o,--output", a->output, kOutputFileHelp);
            sub.add_option("--threads", a->threads,
                           "Cards from a log file (up to 64 MiB) or a stored session (up to 256k events): cut it\n"
                           "where turns start into up to N pieces of at least 1 MiB or 4096 events, replayed side\n"
                           "by side (the document is the one a single thread writes). 1: one piece. Default: one\n"
                           "per core");
            sub.footer(
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
