// retrace replay <session|file.jsonl[.zstd]> [--format cards] [-o FILE]
#include <filesystem>

#include "cli/command.h"
#include "cli/exit_codes.h"
#include "engine/json/writer.h"
#include "engine/replay/cards.h"
#include "presenters/reference_tools.h"
#include "store/atomic_file.h"
#include "store/event_source.h"

namespace retrace::cli {
namespace {

struct Args {
  std::string source;
  std::string format = "cards";
  std::string output;
};

// A path to an existing file is read directly; anything else names a stored session.
bool IsFile(const std::string& source) {
  std::error_code ec;
  return std::filesystem::is_regular_file(source, ec);
}

Result<std::string> Cards(const Context& ctx, const std::string& source) {
  std::optional<replay::CardBuilder> builder;
  auto sink = [&](log::Event&& e) {
    builder->Add(std::move(e));
    return Status::Ok();
  };
  if (IsFile(source)) {
    builder.emplace("", presenters::ReferencePresenters());
    ASSIGN_OR_RETURN(std::string id, store::ReadFileEvents(source, replay::CardsNeed, sink));
    builder->set_session_id(std::move(id));  // known once the header has been read
    return builder->FinishText() + "\n";
  }
  ASSIGN_OR_RETURN(std::unique_ptr<store::EventStore> store, ctx.OpenStore(false, /*create=*/false));
  builder.emplace(source, presenters::ReferencePresenters());
  RETURN_IF_ERROR(store::ReadStoredEvents(*store, source, replay::CardsNeed, sink));
  return builder->FinishText() + "\n";
}

int Run(const Context& ctx, const Args& a) {
  Result<std::string> out = Cards(ctx, a.source);
  if (!out.ok()) return ctx.Fail(out.status());
  if (!a.output.empty()) {
    Result<store::AtomicFile> file = store::AtomicFile::Create(a.output);
    Status st = file.ok() ? file->Append(*out) : file.status();
    if (st.ok()) st = file->Commit(/*overwrite=*/true);
    return st.ok() ? kExitOk : ctx.Fail(st);
  }
  return std::fwrite(out->data(), 1, out->size(), ctx.out) == out->size() ? kExitOk
                                                                          : ctx.Fail(Status::IoError("cannot write to stdout"));
}

}  // namespace

Command ReplayCommand() {
  return {"replay", "Rebuild a session's tool cards from its log with the tools' pure presenters",
          [](CLI::App& sub, Context& ctx) -> Handler {
            auto a = std::make_shared<Args>();
            sub.add_option("source", a->source, "A stored session id, or a dsh JSONL file (.jsonl or .jsonl.zstd)")
                ->required();
            sub.add_option("--format", a->format, "Output format")->check(CLI::IsMember({"cards"}));
            sub.add_option("-o,--output", a->output, "Write to FILE (atomically) instead of stdout");
            sub.footer(
                "cards: one JSON document {sessionId, calls:[{callId, name, args, pending, result, isError,\n"
                "display:{pending, result}}]} — each call's own views from the tool's presenters (soft-validated:\n"
                "arguments that fail the tool's schema give null) and the generic fallback shown instead.\n"
                "The same log always gives byte-identical output.\n");
            return [&ctx, a] { return Run(ctx, *a); };
          }};
}

}  // namespace retrace::cli
