// TextTranscriptWriter (transcript.h): the transcript for a terminal.
#include "engine/json/writer.h"
#include "engine/json/lenient.h"
#include "engine/replay/transcript.h"

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

void Diffs(Out& out, const Value* diffs) {
  if (!diffs || !diffs->is_array()) return;
  for (const Value& d : diffs->as_array()) {
    out.Line("    " + Str(Get(d, "path")), kBold);
    const Value* old_text = Get(d, "oldText");
    if (old_text && old_text->is_string()) out.Lines(old_text->as_string(), "    - ", kRed);
    out.Lines(Str(Get(d, "newText")), "    + ", kGreen);
  }
}

void ResultCard(Out& out, const Value& card, bool is_error) {
  const std::string kind = Str(Get(card, "card"));
  if (kind == "terminal") {
    out.Lines(Str(Get(card, "output")), "    ");
    if (const Value* sig = Get(card, "signal")) {
      out.Line("    killed by signal " + Str(sig), kRed);
    } else {
      const std::string code = Num(Get(card, "exitCode"));
      out.Line("    exit " + code, code == "0" ? kDim : kRed);
    }
  } else if (kind == "diff") {
    Diffs(out, Get(card, "diffs"));
  } else if (kind == "read") {
    const Value* lines = Get(card, "lines");
    out.Line("    " + Str(Get(card, "path")) + " (" + std::to_string(lines && lines->is_array() ? lines->as_array().size() : 0) +
                 " of " + Num(Get(card, "totalLines")) + " lines)",
             kDim);
    if (lines && lines->is_array()) {
      for (const Value& l : lines->as_array()) out.Line("    " + Num(Get(l, "number")) + "  " + Str(Get(l, "text")));
    }
  } else if (kind == "search") {
    if (const Value* files = Get(card, "files"); files && files->is_array()) {
      for (const Value& f : files->as_array()) {
        out.Line("    " + Str(Get(f, "path")), kBold);
        const Value* matches = Get(f, "matches");
        if (!matches || !matches->is_array()) continue;
        for (const Value& m : matches->as_array()) out.Line("      " + Num(Get(m, "lineNumber")) + ": " + Str(Get(m, "line")));
      }
    } else if (const Value* paths = Get(card, "paths"); paths && paths->is_array()) {
      for (const Value& p : paths->as_array()) out.Line("    " + Str(&p));
    }
    const Value* truncated = Get(card, "truncated");
    out.Line("    " + Num(Get(card, "total")) + " total" + (truncated && truncated->is_bool() && truncated->as_bool() ? ", truncated" : ""), kDim);
  } else if (kind == "web") {
    if (Str(Get(card, "kind")) == "fetch") {
      out.Line("    " + Str(Get(card, "url")) + " → " + Num(Get(card, "statusCode")), kDim);
    } else if (const Value* sources = Get(card, "sources"); sources && sources->is_array()) {
      if (const Value* answer = Get(card, "answer")) out.Lines(Str(answer), "    ");
      for (const Value& s : sources->as_array()) out.Line("    - " + Str(Get(s, "title")) + " " + Str(Get(s, "url")));
    }
  } else {
    out.Lines(ContentText(Get(card, "content")), "    ", is_error ? kRed : "");
  }
}

void ToolRow(Out& out, const Value& row, const std::string& marker) {
  const Value* pending = Get(row, "pending");
  const Value* result = Get(row, "result");
  const Value* is_error = Get(row, "isError");
  const bool failed = is_error && is_error->is_bool() && is_error->as_bool();
  const std::string status = !result || result->is_null() ? " (no result)" : failed ? " ✗" : " ✓";
  out.Line("  ⚙ " + Str(pending ? Get(*pending, "title") : nullptr) + "  [" + Str(Get(row, "name")) + "]" + status + marker,
           failed ? kRed : kCyan);
  if (pending && Str(Get(*pending, "card")) == "diff" && (!result || result->is_null())) Diffs(out, Get(*pending, "diffs"));
  if (result && result->is_object()) ResultCard(out, *result, failed);
  if (const Value* subs = Get(row, "subCalls"); subs && subs->is_array()) {
    for (const Value& sub : subs->as_array()) {
      const Value* e = Get(sub, "isError");
      out.Line("    ↳ " + Str(Get(sub, "name")) + (e && e->is_bool() && e->as_bool() ? " ✗" : " ✓"), kDim);
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
