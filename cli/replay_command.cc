// retrace replay <session|file.jsonl[.zstd]> [--format cards|transcript|text|html] [-o FILE]
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
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
#include "format/jsonl_reader.h"

namespace retrace::cli {
namespace {

struct Args {
  std::string source;
  std::string format = "cards";
  std::string output;
  unsigned threads = 0;  // 0: one per core
};

// A log file or a stored session is replayed to cards in pieces, one per
// thread, when each piece has at least this much and the whole at most the
// max (pieces hold their cards in memory until they are joined; a larger
// session streams through one thread with bounded memory). 64 MiB of log
// hold about 256k events.
constexpr uint64_t kMinPieceBytes = uint64_t{1} << 20;
constexpr uint64_t kMaxPiecedLog = uint64_t{64} << 20;
constexpr int64_t kMinPieceEvents = 4096;
constexpr int64_t kMaxPiecedEvents = int64_t{256} * 1024;

// A path to an existing file is read directly; anything else names a stored session.
bool IsFile(const std::string& source) {
  std::error_code ec;
  return std::filesystem::is_regular_file(source, ec);
}

// A source that names no file but looks like a path: said so, rather than
// looked up as a session id in a database that may not even exist.
bool LooksLikeAPath(const std::string& source) {
  auto ends = [&](std::string_view ext) { return source.size() > ext.size() && source.ends_with(ext); };
  return source.find('/') != std::string::npos || ends(".jsonl") || ends(".jsonl.zstd");
}

// Feeds the source's events of the types `need` admits to `sink`; returns the session id.
Result<std::string> ReadSource(const Context& ctx, const std::string& source, const store::TypeFilter& need,
                               const store::EventSink& sink) {
  if (IsFile(source)) return store::ReadFileEvents(source, need, sink);
  std::error_code ec;
  if (std::filesystem::is_directory(source, ec)) {
    return Status::InvalidArgument(source + " is a directory: replay takes one log file or a stored session id");
  }
  if (LooksLikeAPath(source)) return Status::NotFound("no such file: " + source + " (a log to replay, or a stored session id)");
  ASSIGN_OR_RETURN(std::unique_ptr<store::EventStore> store, ctx.OpenStore(false, /*create=*/false));
  RETURN_IF_ERROR(store::ReadStoredEvents(*store, source, need, sink));
  return source;
}

// The cards of a log file read in pieces on `threads` threads, or nullopt
// when it is not worth it or cannot be done exactly (then it is replayed in
// one piece, which also gives any error).
std::optional<replay::CardBuilder> PiecedCards(const std::string& path, const std::string& session_id,
                                               unsigned threads) {
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (threads < 2 || ec || size > kMaxPiecedLog) return std::nullopt;
  const std::vector<store::FilePiece> pieces = store::PlanFilePieces(path, threads, kMinPieceBytes);
  if (pieces.size() < 2) return std::nullopt;
  return replay::CardsInPieces(presenters::ReferencePresenters(), session_id, store::PieceSizes(pieces),
                               [&](const std::vector<replay::PieceSink>& sinks) {
                                 return store::ReadFilePieces(path, pieces, replay::CardsNeed, sinks);
                               });
}

// The same for a stored session (nullopt also when `source` names none: the
// one-thread replay then says what is wrong).
std::optional<replay::CardBuilder> PiecedStoredCards(const Context& ctx, const std::string& source, unsigned threads) {
  std::error_code ec;
  if (threads < 2 || std::filesystem::is_directory(source, ec) || LooksLikeAPath(source)) return std::nullopt;
  auto store = ctx.OpenStore(false, /*create=*/false);
  if (!store.ok()) return std::nullopt;
  auto pieces = store::PlanStoredPieces(**store, source, threads, kMinPieceEvents);
  if (!pieces.ok() || pieces->size() < 2 || pieces->back().to > kMaxPiecedEvents) return std::nullopt;
  // The document's size is not known in advance: the builders grow their text in blocks.
  return replay::CardsInPieces(presenters::ReferencePresenters(), source, std::vector<uint64_t>(pieces->size(), 0),
                               [&](const std::vector<replay::PieceSink>& sinks) -> std::optional<std::string> {
                                 if (!store::ReadStoredPieces(**store, source, *pieces, replay::CardsNeed, sinks)) {
                                   return std::nullopt;
                                 }
                                 return source;
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
// log or session read in pieces is written once its pieces are joined.
Status WriteCards(const Context& ctx, const Args& a, size_t drain_bytes,
                  const std::function<Status(std::string_view)>& write) {
  std::string id = a.source;  // the document's head names the session before any call
  size_t reserve = drain_bytes ? 2 * drain_bytes : 0;
  if (IsFile(a.source)) {
    ASSIGN_OR_RETURN(std::unique_ptr<format::JsonlReader> reader, format::JsonlReader::Open(a.source));
    id = reader->header().id;
    if (std::optional<replay::CardBuilder> pieced = PiecedCards(a.source, id, a.threads)) {
      return WriteRest(*pieced, write);
    }
    std::error_code ec;
    if (!drain_bytes) reserve = replay::CardsSizeHint(std::filesystem::file_size(a.source, ec));
  } else if (std::optional<replay::CardBuilder> pieced = PiecedStoredCards(ctx, a.source, a.threads)) {
    return WriteRest(*pieced, write);
  }
  replay::CardBuilder builder(id, presenters::ReferencePresenters(), replay::CardBuilder::Keep::kText);
  builder.ReserveText(reserve);
  RETURN_IF_ERROR(ReadSource(ctx, a.source, replay::CardsNeed, [&](log::Event&& e) {
                    builder.Add(std::move(e));
                    return drain_bytes && builder.text_size() >= drain_bytes ? builder.DrainText(write) : Status::Ok();
                  }).status());
  return WriteRest(builder, write);
}

// Transcript, text or HTML: rendered whole.
Result<std::string> Render(const Context& ctx, const Args& a) {
  replay::TranscriptBuilder builder("", presenters::ReferencePresenters());
  ASSIGN_OR_RETURN(std::string id, ReadSource(ctx, a.source, replay::TranscriptNeeds, [&](log::Event&& e) {
                     builder.Add(std::move(e));
                     return Status::Ok();
                   }));
  builder.set_session_id(std::move(id));
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
  if (a.format == "cards" && !a.output.empty()) {
    // Into AtomicFile's temporary file as the cards are made: the file
    // appears only once it is complete.
    ASSIGN_OR_RETURN(format::AtomicFile file, format::AtomicFile::Create(a.output));
    RETURN_IF_ERROR(WriteCards(ctx, a, size_t{8} << 20, [&](std::string_view text) { return file.Append(text); }));
    return file.Commit(/*overwrite=*/true);
  }
  if (a.format == "cards") return WriteCards(ctx, a, 0, [&](std::string_view text) { return WriteStdout(ctx, text); });
  ASSIGN_OR_RETURN(std::string out, Render(ctx, a));
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
