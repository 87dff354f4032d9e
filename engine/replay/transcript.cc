#include "engine/replay/transcript.h"

#include <utility>

#include "engine/json/lenient.h"
#include "engine/json/writer.h"
#include "engine/log/surface_fold.h"

namespace retrace::replay {
namespace {

using json::Value;

class JsonWriter final : public TranscriptWriter {
 public:
  void Begin(const std::string& session_id) override {
    out_ += "{\"sessionId\":" + json::Serialize(Value(session_id)) + ",\"rows\":[";
  }
  void Row(const Value& row) override {
    if (rows_++ > 0) out_ += ',';
    out_ += json::Serialize(row);
  }
  void End() override { out_ += "]}\n"; }

 private:
  size_t rows_ = 0;
};

}  // namespace

Status StreamTranscript(const EventPass& pass, const presenters::PresenterSet& presenters, const RowEmit& emit) {
  log::SurfaceFold surface;
  int64_t last = -1;
  RETURN_IF_ERROR(pass([&](log::Event&& e) {
    (void)surface.Apply(e);  // a log the store accepted folds; a damaged one still renders what it can
    last = e.seq;
    return Status::Ok();
  }));
  Status emitted = Status::Ok();
  ConversationStream stream(
      presenters, [&](Value row) { emitted = emitted.ok() ? emit(std::move(row)) : emitted; }, &surface);
  RETURN_IF_ERROR(pass([&](log::Event&& e) {
    if (e.seq <= last) stream.Add(std::move(e));
    return emitted;
  }));
  stream.Finish();
  return emitted;
}

Result<Value> BuildTranscript(const std::string& session_id, const EventPass& pass,
                              const presenters::PresenterSet& presenters) {
  Value::Array rows;
  RETURN_IF_ERROR(StreamTranscript(pass, presenters, [&](Value row) {
    rows.push_back(std::move(row));
    return Status::Ok();
  }));
  return Value::MakeObject({{"sessionId", session_id}, {"rows", Value(std::move(rows))}});
}

std::unique_ptr<TranscriptWriter> JsonTranscriptWriter() { return std::make_unique<JsonWriter>(); }

std::string Render(TranscriptWriter& writer, const Value& transcript) {
  writer.Begin(json::Str(json::Get(transcript, "sessionId")));
  const Value* rows = json::Get(transcript, "rows");
  for (const Value& row : rows && rows->is_array() ? rows->as_array() : Value::Array{}) writer.Row(row);
  writer.End();
  return writer.Take();
}

std::string RenderText(const Value& transcript, bool color) {
  return Render(*TextTranscriptWriter(color), transcript);
}

std::string RenderHtml(const Value& transcript) { return Render(*HtmlTranscriptWriter(), transcript); }

}  // namespace retrace::replay
