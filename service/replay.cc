#include "service/replay.h"

#include <memory>
#include <vector>

#include "engine/json/writer.h"
#include "engine/replay/cards.h"
#include "engine/replay/conversation.h"
#include "engine/replay/transcript.h"
#include "presenters/reference_tools.h"

namespace retrace::service {
namespace {

const presenters::PresenterSet& Or(const presenters::PresenterSet* p) {
  return p ? *p : presenters::ReferencePresenters();
}

// The cards read their events' types and write their values again.
const store::ReadNeeds kCardsRead{replay::CardsNeed, /*write_again=*/true};

// Writes the cards the builder holds, then the document's end.
Status WriteRest(replay::CardBuilder& builder, const TextSink& write) {
  RETURN_IF_ERROR(builder.DrainText(write));
  return write(builder.FinishText() + "\n");
}

// The transcript's passes over `source`.
replay::EventPass TranscriptPass(const store::EventSource& source) {
  return [&source](const replay::EventSink& sink) { return source.Read(replay::TranscriptNeeds, sink); };
}

std::unique_ptr<replay::TranscriptWriter> WriterFor(ReplayFormat format, bool color) {
  switch (format) {
    case ReplayFormat::kText: return replay::TextTranscriptWriter(color);
    case ReplayFormat::kHtml: return replay::HtmlTranscriptWriter();
    case ReplayFormat::kTranscript:
    case ReplayFormat::kCards: break;  // the cards have their own writer (WriteCards)
  }
  return replay::JsonTranscriptWriter();
}

}  // namespace

std::optional<replay::CardBuilder> PiecedCards(const store::EventSource& source, const ReplayOptions& o) {
  if (o.threads < 2) return std::nullopt;
  const std::vector<store::Piece> pieces = source.PlanPieces(o.threads);
  if (pieces.size() < 2) return std::nullopt;
  return replay::CardsInPieces(Or(o.presenters), source.session_id(), source.PieceBytes(pieces),
                               [&](const std::vector<replay::PieceSink>& sinks) -> std::optional<std::string> {
                                 if (!source.ReadPieces(pieces, kCardsRead, sinks)) return std::nullopt;
                                 return source.session_id();
                               });
}

std::optional<ReplayFormat> ReplayFormatNamed(std::string_view name) {
  if (name == "cards") return ReplayFormat::kCards;
  if (name == "transcript") return ReplayFormat::kTranscript;
  if (name == "text") return ReplayFormat::kText;
  if (name == "html") return ReplayFormat::kHtml;
  return std::nullopt;
}

Status WriteCards(const store::EventSource& source, const ReplayOptions& o, const TextSink& write) {
  if (std::optional<replay::CardBuilder> pieced = PiecedCards(source, o)) return WriteRest(*pieced, write);
  replay::CardBuilder builder(source.session_id(), Or(o.presenters), replay::CardBuilder::Keep::kText);
  builder.ReserveText(o.drain_bytes ? 2 * o.drain_bytes : replay::CardsSizeHint(source.LogBytes()));
  RETURN_IF_ERROR(source.Read(kCardsRead, [&](log::Event&& e) {
    builder.Add(std::move(e));
    return o.drain_bytes && builder.text_size() >= o.drain_bytes ? builder.DrainText(write) : Status::Ok();
  }));
  return WriteRest(builder, write);
}

Status WriteReplay(const store::EventSource& source, ReplayFormat format, const ReplayOptions& o,
                   const TextSink& write) {
  if (format == ReplayFormat::kCards) return WriteCards(source, o, write);
  const std::unique_ptr<replay::TranscriptWriter> writer = WriterFor(format, o.color);
  writer->Begin(source.session_id());
  RETURN_IF_ERROR(replay::StreamTranscript(TranscriptPass(source), Or(o.presenters), [&](const json::Value& row) {
    writer->Row(row);
    return o.drain_bytes && writer->size() >= o.drain_bytes ? write(writer->Take()) : Status::Ok();
  }));
  writer->End();
  return write(writer->Take());
}

Status StreamConversation(const store::EventSource& source, const RowSink& emit,
                          const presenters::PresenterSet* presenters) {
  bool stopped = false;
  replay::ConversationStream stream(Or(presenters), [&](json::Value row) { stopped = stopped || !emit(std::move(row)); });
  Status read = source.Read(replay::ConversationNeeds, [&](log::Event&& e) {
    stream.Add(std::move(e));
    return stopped ? Status::FailedPrecondition("stopped") : Status::Ok();
  });
  if (stopped) return Status::Ok();
  RETURN_IF_ERROR(read);
  stream.Finish();
  return Status::Ok();
}

}  // namespace retrace::service
