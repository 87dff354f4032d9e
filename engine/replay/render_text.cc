// TextTranscriptWriter (transcript.h): the transcript for a terminal.
#include "engine/json/writer.h"
#include "engine/json/lenient.h"
#include "engine/replay/transcript.h"
#include "presenters/card_reader.h"

namespace retrace::replay {
namespace {

using json::Value;

// Lines appended to a writer's text.
class Out {
 public:
  Out(std::string& out, bool color) : out_(out), color_(color) {}
  // Appends `text` with every line prefixed by `indent`, in `style` (an ANSI SGR code).
  void Lines(std::string_view text, std::string_view indent = "", std::string_view style = "") {
    if (!text.empty() && text.back() == '\n') text.remove_suffix(1);  // a final newline ends the last line
    size_t start = 0;
    while (start <= text.size()) {
      size_t end = text.find('\n', start);
      if (end == std::string_view::npos) end = text.size();
      std::string line = std::string(indent) + std::string(text.substr(start, end - start));
      while (!line.empty() && line.back() == ' ') line.pop_back();  // no trailing blanks on empty lines
      Line(line, style);
      start = end + 1;
    }
  }
  void Line(std::string_view text, std::string_view style = "") {
    if (color_ && !style.empty()) {
      out_ += "\x1b[" + std::string(style) + "m" + std::string(text) + "\x1b[0m\n";
    } else {
      out_ += text;
      out_ += '\n';
    }
  }

 private:
  std::string& out_;
  bool color_;
};

constexpr std::string_view kDim = "2", kRed = "31", kGreen = "32", kCyan = "36", kBold = "1", kYellow = "33";

std::string ContentText(const Value* content) {
  std::string out;
  if (!content || !content->is_array()) return out;
  for (const Value& block : content->as_array()) {
    if (!out.empty()) out += "\n";
    out += Str(Get(block, "type")) == "text" ? Str(Get(block, "text")) : "[" + Str(Get(block, "type")) + " content]";
  }
  return out;
}

void Diffs(Out& out, const presenters::DiffCard& card) {
  for (const presenters::FileDiffView& d : card.diffs) {
    out.Line("    " + std::string(d.path), kBold);
    if (d.old_text) out.Lines(*d.old_text, "    - ", kRed);
    out.Lines(d.new_text.value_or(""), "    + ", kGreen);
  }
}

void Terminal(Out& out, const presenters::TerminalCard& card) {
  out.Lines(card.output, "    ");
  if (card.signal) {
    out.Line("    killed by signal " + std::string(*card.signal), kRed);
  } else {
    const std::string code = Num(card.exit_code);
    out.Line("    exit " + code, code == "0" ? kDim : kRed);
  }
}

void Read(Out& out, const presenters::ReadCardView& card) {
  out.Line("    " + std::string(card.path) + " (" + std::to_string(card.lines.size()) + " of " + Num(card.total_lines) +
               " lines)",
           kDim);
  for (const presenters::ReadLine& l : card.lines) out.Line("    " + Num(l.number) + "  " + std::string(l.text));
}

void Search(Out& out, const presenters::SearchCard& card) {
  for (const presenters::SearchFile& f : card.files) {
    out.Line("    " + std::string(f.path), kBold);
    for (const presenters::SearchMatch& m : f.matches) out.Line("      " + Num(m.line_number) + ": " + std::string(m.line));
  }
  for (std::string_view p : card.paths) out.Line("    " + std::string(p));
  out.Line("    " + Num(card.total) + " total" + (card.truncated ? ", truncated" : ""), kDim);
}

void Web(Out& out, const presenters::WebCard& card) {
  if (card.fetch) {
    out.Line("    " + std::string(card.url) + " → " + Num(card.status_code), kDim);
  } else if (card.has_sources) {
    if (card.answer) out.Lines(*card.answer, "    ");
    for (const presenters::WebSource& s : card.sources) out.Line("    - " + std::string(s.title) + " " + std::string(s.url));
  }
}

void ResultCard(Out& out, const Value& json, bool is_error) {
  const presenters::CardView card = presenters::ReadCard(json);
  if (const auto* terminal = card.As<presenters::TerminalCard>()) {
    Terminal(out, *terminal);
  } else if (const auto* diff = card.As<presenters::DiffCard>()) {
    Diffs(out, *diff);
  } else if (const auto* read = card.As<presenters::ReadCardView>()) {
    Read(out, *read);
  } else if (const auto* search = card.As<presenters::SearchCard>()) {
    Search(out, *search);
  } else if (const auto* web = card.As<presenters::WebCard>()) {
    Web(out, *web);
  } else {
    out.Lines(ContentText(card.As<presenters::GenericCard>()->content), "    ", is_error ? kRed : "");
  }
}

void ToolRow(Out& out, const Value& row, const std::string& marker) {
  const Value* result = Get(row, "result");
  const bool failed = json::True(Get(row, "isError"));
  const bool no_result = !result || result->is_null();
  const std::string status = no_result ? " (no result)" : failed ? " ✗" : " ✓";
  const presenters::CardView pending = presenters::ReadCard(Get(row, "pending"));
  out.Line("  ⚙ " + std::string(pending.title) + "  [" + Str(Get(row, "name")) + "]" + status + marker,
           failed ? kRed : kCyan);
  if (const auto* diff = pending.As<presenters::DiffCard>(); diff && no_result) Diffs(out, *diff);
  if (result && result->is_object()) ResultCard(out, *result, failed);
  if (const Value* subs = Get(row, "subCalls"); subs && subs->is_array()) {
    for (const Value& sub : subs->as_array()) {
      out.Line("    ↳ " + Str(Get(sub, "name")) + (json::True(Get(sub, "isError")) ? " ✗" : " ✓"), kDim);
      out.Lines(ContentText(Get(sub, "content")), "      ", kDim);
    }
  }
}

class TextWriter final : public TranscriptWriter {
 public:
  explicit TextWriter(bool color) : lines_(out_, color) {}
  void Begin(const std::string& session_id) override { lines_.Line("session " + session_id, kBold); }
  void Row(const Value& row) override;
  void End() override {}

 private:
  Out lines_;
};

void TextWriter::Row(const Value& row) {
  const std::string kind = Str(Get(row, "kind"));
  const Value* in = Get(row, "inContext");
  const std::string marker = in && in->is_bool() && !in->as_bool() ? "  (out of context)" : "";
  if (kind == "turn") {
    lines_.Line("");
    lines_.Line("── turn " + Num(Get(row, "turn")) + " ──", kBold);
  } else if (kind == "turn-end") {
    const std::string reason = Str(Get(row, "reason"));
    lines_.Line("── turn " + Num(Get(row, "turn")) + " " + reason + " ──", reason == "completed" ? kDim : kYellow);
  } else if (kind == "prompt") {
    lines_.Lines(Str(Get(row, "text")) + marker, "› ", kBold);
  } else if (kind == "context") {
    const std::string form = Str(Get(row, "form"));
    const std::string who = Str(Get(row, "plugin")).empty() ? Str(Get(row, "source")) : Str(Get(row, "plugin"));
    if (form == "snapshot") {
      lines_.Line("  ⟪" + who + "⟫ runtime context snapshot" + marker, kDim);
    } else if (const Value* summary = Get(row, "summary")) {
      lines_.Line("  ⟪" + who + (form.empty() ? "" : " · " + form) + "⟫ " + Str(summary) + marker, kDim);
    } else {
      lines_.Lines(Str(Get(row, "text")) + marker, "  ⟪" + who + "⟫ ", kDim);
    }
  } else if (kind == "assistant") {
    if (const Value* r = Get(row, "reasoning")) lines_.Lines(Str(r), "  ∴ ", kDim);
    const Value* interrupted = Get(row, "interrupted");
    if (const Value* t = Get(row, "text")) {
      lines_.Lines(Str(t) + (interrupted ? " [interrupted]" : "") + marker, "● ");
    }
  } else if (kind == "tool") {
    ToolRow(lines_, row, marker);
  } else if (kind == "notice") {
    lines_.Line("  ※ " + Str(Get(row, "text")), kYellow);
  }
}

}  // namespace

std::unique_ptr<TranscriptWriter> TextTranscriptWriter(bool color) { return std::make_unique<TextWriter>(color); }

}  // namespace retrace::replay
