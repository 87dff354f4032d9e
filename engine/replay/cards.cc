#include "engine/replay/cards.h"

#include <algorithm>

#include "engine/log/event_types.h"

namespace retrace::replay {
using json::Value;

bool CardsNeed(std::string_view type) {
  return type == log::kToolCall || type == log::kToolResult || type == log::kAssistantMessage ||
         type == log::kTurnStart || type == log::kToolRevision;
}

struct CardBuilder::Cards {
  Keep keep;
  CardDocument document;              // Keep::kText
  std::vector<PresentedCall> calls;   // Keep::kViews, in card order
  std::vector<Diagnostics> diagnostics;

  void Take(size_t index, PresentedCall&& call) {
    if (diagnostics.size() <= index) diagnostics.resize(index + 1);
    Diagnostics& d = diagnostics[index];
    d = {call.call_id, call.name, call.seq, call.presenter_version, call.pending_how, call.result_how, call.detail, {}, 0, false};
    if (call.upcast) {
      d.upcast = call.upcast->how;
      d.revision = call.upcast->from;
      d.revision_recorded = call.upcast->recorded;
    }
    if (keep == Keep::kText) {  // the entry is all FinishText() needs: the views go now
      document.Add(index, call);
      return;
    }
    if (calls.size() <= index) calls.resize(index + 1);
    calls[index] = std::move(call);
  }
};

CardBuilder::CardBuilder(std::string session_id, const presenters::PresenterSet& presenters, Keep keep)
    : session_id_(session_id),
      cards_(std::make_unique<Cards>(Cards{keep, CardDocument(std::move(session_id)), {}, {}})),
      fold_(std::make_unique<CardFold>(presenters, [cards = cards_.get()](size_t index, PresentedCall&& call) {
        cards->Take(index, std::move(call));
      })) {}

CardBuilder::CardBuilder(CardBuilder&&) noexcept = default;
CardBuilder& CardBuilder::operator=(CardBuilder&&) noexcept = default;
CardBuilder::~CardBuilder() = default;

void CardBuilder::set_session_id(std::string id) {
  session_id_ = id;
  cards_->document.set_session_id(std::move(id));
}

void CardBuilder::ReserveText(size_t bytes) { cards_->document.Reserve(bytes); }

void CardBuilder::Add(log::Event&& e) { fold_->Add(std::move(e)); }

Value CardBuilder::Finish() {
  fold_->Finish();
  return CardDocumentValue(session_id_, cards_->calls);
}

size_t CardBuilder::text_size() const { return cards_->document.size(); }

Status CardBuilder::DrainText(const std::function<Status(std::string_view)>& write) {
  return cards_->document.Drain(write);
}

size_t CardBuilder::results_without_call() const {
  return fold_->results_without_call() + appended_results_without_call_;
}

size_t CardBuilder::requests_held() const { return fold_->requests_held(); }

std::vector<CardBuilder::Diagnostics> CardBuilder::CallDiagnostics() {
  fold_->Finish();
  return cards_->diagnostics;
}

void CardBuilder::Append(CardBuilder&& later) {
  fold_->Finish();
  later.fold_->Finish();
  Cards& to = *cards_;
  Cards& from = *later.cards_;
  if (to.keep == Keep::kText) to.document.Append(std::move(from.document));
  for (PresentedCall& call : from.calls) to.calls.push_back(std::move(call));
  for (Diagnostics& d : from.diagnostics) to.diagnostics.push_back(std::move(d));
  from.calls.clear();
  from.diagnostics.clear();
  appended_results_without_call_ += later.results_without_call();
}

std::optional<CardBuilder> CardsInPieces(const presenters::PresenterSet& presenters, const std::string& session_id,
                                         const std::vector<uint64_t>& piece_bytes, const PieceReader& read) {
  std::vector<CardBuilder> builders;
  std::vector<PieceSink> sinks;
  builders.reserve(piece_bytes.size());  // the sinks hold addresses of the builders
  uint64_t log_bytes = 0;
  for (uint64_t bytes : piece_bytes) log_bytes += bytes;
  for (uint64_t bytes : piece_bytes) {
    // Only the first piece's cards begin the document, so only its builder writes the head.
    CardBuilder& builder =
        builders.emplace_back(builders.empty() ? session_id : std::string(), presenters, CardBuilder::Keep::kText);
    builder.ReserveText(CardsSizeHint(builders.size() == 1 ? log_bytes : bytes));
    sinks.push_back([&builder](log::Event&& e) {
      builder.Add(std::move(e));
      return Status::Ok();
    });
  }
  std::optional<std::string> read_id = read(sinks);
  if (!read_id) return std::nullopt;
  for (size_t i = 1; i < builders.size(); ++i) {
    if (builders[i].results_without_call()) return std::nullopt;
    builders[0].Append(std::move(builders[i]));
  }
  if (*read_id != session_id) builders[0].set_session_id(std::move(*read_id));
  return std::move(builders[0]);
}

std::string CardBuilder::FinishText() {
  fold_->Finish();
  if (cards_->keep == Keep::kText) return cards_->document.Finish();
  CardDocument document(session_id_);
  for (size_t i = 0; i < cards_->calls.size(); ++i) document.Add(i, cards_->calls[i]);
  return document.Finish();
}

}  // namespace retrace::replay
