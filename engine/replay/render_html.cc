// HtmlTranscriptWriter (transcript.h): one self-contained page. No scripts, no
// external resources; every string from the log goes through Escape().
#include "engine/json/writer.h"
#include "engine/json/lenient.h"
#include "engine/replay/transcript.h"
#include "presenters/card_reader.h"

namespace retrace::replay {
namespace {

using json::Value;

std::string Escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

constexpr char kStyle[] = R"(
body{font:14px/1.45 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1d2330}
main{max-width:960px;margin:0 auto;padding:24px}
h1{font-size:18px}
.turn{margin:24px 0 8px;font-weight:600;color:#4a5568;border-bottom:1px solid #d6dae1}
.turn-end{color:#718096;font-size:12px;margin:4px 0 16px}
.turn-end.aborted,.turn-end.interrupted,.turn-end.error{color:#b7791f}
.row{margin:8px 0;padding:8px 12px;border-radius:8px;background:#fff;box-shadow:0 1px 2px #0001}
.prompt{border-left:4px solid #3182ce}
.context{background:#fbfbf4;color:#4a5568;font-size:13px}
.assistant{border-left:4px solid #805ad5}
.reasoning{color:#718096;font-style:italic;white-space:pre-wrap}
.text{white-space:pre-wrap}
.tool{border-left:4px solid #38a169}
.tool.error{border-left-color:#e53e3e}
.title{font-weight:600}
.name{color:#718096;font-size:12px;margin-left:8px}
.out{opacity:.55}
.out .badge{display:inline-block;font-size:11px;background:#edf2f7;border-radius:4px;padding:0 4px;margin-left:6px}
.notice{background:#fffbea;color:#975a16;font-size:13px}
pre{background:#1a202c;color:#e2e8f0;padding:8px;border-radius:6px;overflow:auto;white-space:pre-wrap;margin:6px 0}
.diff .path{font-family:monospace;font-weight:600;margin-top:6px}
.diff pre{background:#fff;color:#1a202c;border:1px solid #e2e8f0}
.del{background:#fed7d7;display:block}.add{background:#c6f6d5;display:block}
.exit{font-size:12px;color:#718096}.exit.bad{color:#e53e3e}
.lines{font-family:monospace;font-size:13px;background:#fff;border:1px solid #e2e8f0;border-radius:6px;padding:4px 0;margin:6px 0}
.lines div{white-space:pre-wrap}.lines .n{display:inline-block;width:48px;text-align:right;color:#a0aec0;padding-right:10px}
ul{margin:4px 0;padding-left:20px}
.sub{margin:6px 0 0 16px;font-size:13px;color:#4a5568}
)";

// Markup and escaped text appended to a writer's text.
class Page {
 public:
  explicit Page(std::string& out) : out_(out) {}
  void Raw(std::string_view s) { out_ += s; }
  void Text(std::string_view s) { out_ += Escape(s); }

 private:
  std::string& out_;
};

void Pre(Page& p, std::string_view text, std::string_view cls = "") {
  p.Raw(cls.empty() ? "<pre>" : "<pre class=\"" + std::string(cls) + "\">");
  p.Text(text);
  p.Raw("</pre>");
}

void Content(Page& p, const Value* content) {
  if (!content || !content->is_array()) return;
  for (const Value& block : content->as_array()) {
    if (Str(Get(block, "type")) == "text") {
      Pre(p, Str(Get(block, "text")));
    } else {
      p.Raw("<div class=\"exit\">[");
      p.Text(Str(Get(block, "type")));
      p.Raw(" content]</div>");
    }
  }
}

void Diffs(Page& p, const presenters::DiffCard& card) {
  p.Raw("<div class=\"diff\">");
  for (const presenters::FileDiffView& d : card.diffs) {
    p.Raw("<div class=\"path\">");
    p.Text(d.path);
    p.Raw("</div><pre>");
    auto lines = [&](std::string_view text, const char* cls, const char* sign) {
      if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
      size_t start = 0;
      while (start <= text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        p.Raw(std::string("<span class=\"") + cls + "\">" + sign);
        p.Text(text.substr(start, end - start));
        p.Raw("</span>");
        start = end + 1;
      }
    };
    if (d.old_text) lines(*d.old_text, "del", "- ");
    lines(d.new_text.value_or(""), "add", "+ ");
    p.Raw("</pre>");
  }
  p.Raw("</div>");
}

void Exit(Page& p, std::string_view text, bool bad = false) {
  p.Raw(bad ? "<div class=\"exit bad\">" : "<div class=\"exit\">");
  p.Text(text);
  p.Raw("</div>");
}

void Terminal(Page& p, const presenters::TerminalCard& card) {
  Pre(p, card.output);
  if (card.signal) {
    Exit(p, "killed by signal " + std::string(*card.signal), true);
  } else {
    const std::string code = Num(card.exit_code);
    Exit(p, "exit " + code, code != "0");
  }
}

void Read(Page& p, const presenters::ReadCardView& card) {
  Exit(p, std::string(card.path) + " · " + Num(card.total_lines) + " lines");
  p.Raw("<div class=\"lines\">");
  for (const presenters::ReadLine& l : card.lines) {
    p.Raw("<div><span class=\"n\">");
    p.Text(Num(l.number));
    p.Raw("</span>");
    p.Text(l.text);
    p.Raw("</div>");
  }
  p.Raw("</div>");
}

void Search(Page& p, const presenters::SearchCard& card) {
  p.Raw("<ul>");
  for (const presenters::SearchFile& f : card.files) {
    p.Raw("<li><b>");
    p.Text(f.path);
    p.Raw("</b><ul>");
    for (const presenters::SearchMatch& m : f.matches) {
      p.Raw("<li><code>");
      p.Text(Num(m.line_number) + ": " + std::string(m.line));
      p.Raw("</code></li>");
    }
    p.Raw("</ul></li>");
  }
  for (std::string_view path : card.paths) {
    p.Raw("<li><code>");
    p.Text(path);
    p.Raw("</code></li>");
  }
  p.Raw("</ul>");
  Exit(p, Num(card.total) + " total" + (card.truncated ? ", truncated" : ""));
}

void Web(Page& p, const presenters::WebCard& card) {
  if (card.fetch) {
    Exit(p, std::string(card.url) + " → " + Num(card.status_code));
    return;
  }
  if (card.answer) Pre(p, *card.answer);
  p.Raw("<ul>");
  for (const presenters::WebSource& s : card.sources) {
    p.Raw("<li>");
    p.Text(std::string(s.title) + " — " + std::string(s.url));
    p.Raw("</li>");
  }
  p.Raw("</ul>");
}

void Result(Page& p, const Value& json) {
  const presenters::CardView card = presenters::ReadCard(json);
  if (const auto* terminal = card.As<presenters::TerminalCard>()) {
    Terminal(p, *terminal);
  } else if (const auto* diff = card.As<presenters::DiffCard>()) {
    Diffs(p, *diff);
  } else if (const auto* read = card.As<presenters::ReadCardView>()) {
    Read(p, *read);
  } else if (const auto* search = card.As<presenters::SearchCard>()) {
    Search(p, *search);
  } else if (const auto* web = card.As<presenters::WebCard>()) {
    Web(p, *web);
  } else {
    Content(p, card.As<presenters::GenericCard>()->content);
  }
}

void Tool(Page& p, const Value& row, bool out) {
  const Value* result = Get(row, "result");
  const bool failed = json::True(Get(row, "isError"));
  const presenters::CardView pending = presenters::ReadCard(Get(row, "pending"));
  p.Raw(std::string("<div class=\"row tool") + (failed ? " error" : "") + (out ? " out" : "") + "\"><span class=\"title\">");
  p.Text(pending.title);
  p.Raw("</span><span class=\"name\">");
  p.Text(Str(Get(row, "name")));
  p.Raw("</span>");
  if (out) p.Raw("<span class=\"badge\">out of context</span>");
  if (pending.description) Exit(p, *pending.description);
  if (const auto* diff = pending.As<presenters::DiffCard>(); diff && (!result || result->is_null())) Diffs(p, *diff);
  if (result && result->is_object()) {
    Result(p, *result);
  } else {
    p.Raw("<div class=\"exit\">no result</div>");
  }
  if (const Value* subs = Get(row, "subCalls"); subs && subs->is_array()) {
    for (const Value& sub : subs->as_array()) {
      p.Raw("<div class=\"sub\">↳ ");
      p.Text(Str(Get(sub, "name")));
      Content(p, Get(sub, "content"));
      p.Raw("</div>");
    }
  }
  p.Raw("</div>");
}

class HtmlWriter final : public TranscriptWriter {
 public:
  HtmlWriter() : p_(out_) {}
  void Begin(const std::string& session_id) override;
  void Row(const Value& row) override;
  void End() override { p_.Raw("</main></body></html>\n"); }

 private:
  Page p_;
};

void HtmlWriter::Begin(const std::string& id) {
  p_.Raw("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>");
  p_.Text("retrace · " + id);
  p_.Raw("</title><style>");
  p_.Raw(kStyle);
  p_.Raw("</style></head><body><main><h1>");
  p_.Text("Session " + id);
  p_.Raw("</h1>\n");
}

void HtmlWriter::Row(const Value& row) {
  Page& p = p_;
  const std::string kind = Str(Get(row, "kind"));
  const Value* in = Get(row, "inContext");
  const bool out = in && in->is_bool() && !in->as_bool();
  const std::string cls = out ? " out" : "";
  if (kind == "turn") {
    p.Raw("<div class=\"turn\">Turn ");
    p.Text(Num(Get(row, "turn")));
    p.Raw("</div>\n");
  } else if (kind == "turn-end") {
    const std::string reason = Str(Get(row, "reason"));
    p.Raw("<div class=\"turn-end " + Escape(reason) + "\">turn ");
    p.Text(Num(Get(row, "turn")) + " " + reason);
    p.Raw("</div>\n");
  } else if (kind == "prompt" || kind == "context" || kind == "assistant" || kind == "notice") {
    p.Raw("<div class=\"row " + kind + cls + "\">");
    if (kind == "context") {
      p.Raw("<span class=\"name\">");
      p.Text(Str(Get(row, "plugin")).empty() ? Str(Get(row, "source")) : Str(Get(row, "plugin")));
      if (const Value* form = Get(row, "form")) p.Text(" · " + Str(form));
      p.Raw("</span> ");
      if (const Value* summary = Get(row, "summary")) p.Text(Str(summary));
    }
    if (out) p.Raw("<span class=\"badge\">out of context</span>");
    if (const Value* r = Get(row, "reasoning")) {
      p.Raw("<div class=\"reasoning\">");
      p.Text(Str(r));
      p.Raw("</div>");
    }
    if (Str(Get(row, "form")) != "snapshot" && Get(row, "text")) {
      p.Raw("<div class=\"text\">");
      p.Text(Str(Get(row, "text")));
      if (True(Get(row, "interrupted"))) p.Raw(" <i>(interrupted)</i>");
      p.Raw("</div>");
    }
    p.Raw("</div>\n");
  } else if (kind == "tool") {
    Tool(p, row, out);
    p.Raw("\n");
  }
}

}  // namespace

std::unique_ptr<TranscriptWriter> HtmlTranscriptWriter() { return std::make_unique<HtmlWriter>(); }

}  // namespace retrace::replay
