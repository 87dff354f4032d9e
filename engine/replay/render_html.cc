// HtmlTranscriptWriter (transcript.h): one self-contained page. No scripts, no
// external resources; every string from the log goes through Escape().
#include "engine/json/writer.h"
#include "engine/json/lenient.h"
#include "engine/replay/transcript.h"

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

void Diffs(Page& p, const Value* diffs) {
  if (!diffs || !diffs->is_array()) return;
  p.Raw("<div class=\"diff\">");
  for (const Value& d : diffs->as_array()) {
    p.Raw("<div class=\"path\">");
    p.Text(Str(Get(d, "path")));
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
    if (const Value* old_text = Get(d, "oldText"); old_text && old_text->is_string()) lines(old_text->as_string(), "del", "- ");
    lines(Str(Get(d, "newText")), "add", "+ ");
    p.Raw("</pre>");
  }
  p.Raw("</div>");
}

void Result(Page& p, const Value& card) {
  const std::string kind = Str(Get(card, "card"));
  if (kind == "terminal") {
    Pre(p, Str(Get(card, "output")));
    if (const Value* sig = Get(card, "signal")) {
      p.Raw("<div class=\"exit bad\">killed by signal ");
      p.Text(Str(sig));
      p.Raw("</div>");
    } else {
      const std::string code = Num(Get(card, "exitCode"));
      p.Raw(std::string("<div class=\"exit") + (code == "0" ? "" : " bad") + "\">exit ");
      p.Text(code);
      p.Raw("</div>");
    }
  } else if (kind == "diff") {
    Diffs(p, Get(card, "diffs"));
  } else if (kind == "read") {
    p.Raw("<div class=\"exit\">");
    p.Text(Str(Get(card, "path")) + " · " + Num(Get(card, "totalLines")) + " lines");
    p.Raw("</div><div class=\"lines\">");
    if (const Value* lines = Get(card, "lines"); lines && lines->is_array()) {
      for (const Value& l : lines->as_array()) {
        p.Raw("<div><span class=\"n\">");
        p.Text(Num(Get(l, "number")));
        p.Raw("</span>");
        p.Text(Str(Get(l, "text")));
        p.Raw("</div>");
      }
    }
    p.Raw("</div>");
  } else if (kind == "search") {
    p.Raw("<ul>");
    if (const Value* files = Get(card, "files"); files && files->is_array()) {
      for (const Value& f : files->as_array()) {
        p.Raw("<li><b>");
        p.Text(Str(Get(f, "path")));
        p.Raw("</b><ul>");
        if (const Value* ms = Get(f, "matches"); ms && ms->is_array()) {
          for (const Value& m : ms->as_array()) {
            p.Raw("<li><code>");
            p.Text(Num(Get(m, "lineNumber")) + ": " + Str(Get(m, "line")));
            p.Raw("</code></li>");
          }
        }
        p.Raw("</ul></li>");
      }
    } else if (const Value* paths = Get(card, "paths"); paths && paths->is_array()) {
      for (const Value& path : paths->as_array()) {
        p.Raw("<li><code>");
        p.Text(Str(&path));
        p.Raw("</code></li>");
      }
    }
    p.Raw("</ul><div class=\"exit\">");
    p.Text(Num(Get(card, "total")) + " total" + (True(Get(card, "truncated")) ? ", truncated" : ""));
    p.Raw("</div>");
  } else if (kind == "web") {
    if (Str(Get(card, "kind")) == "fetch") {
      p.Raw("<div class=\"exit\">");
      p.Text(Str(Get(card, "url")) + " → " + Num(Get(card, "statusCode")));
      p.Raw("</div>");
    } else {
      if (const Value* answer = Get(card, "answer")) Pre(p, Str(answer));
      p.Raw("<ul>");
      if (const Value* sources = Get(card, "sources"); sources && sources->is_array()) {
        for (const Value& s : sources->as_array()) {
          p.Raw("<li>");
          p.Text(Str(Get(s, "title")) + " — " + Str(Get(s, "url")));
          p.Raw("</li>");
        }
      }
      p.Raw("</ul>");
    }
  } else {
    Content(p, Get(card, "content"));
  }
}

void Tool(Page& p, const Value& row, bool out) {
  const Value* pending = Get(row, "pending");
  const Value* result = Get(row, "result");
  const bool failed = True(Get(row, "isError"));
  p.Raw(std::string("<div class=\"row tool") + (failed ? " error" : "") + (out ? " out" : "") + "\"><span class=\"title\">");
  p.Text(Str(pending ? Get(*pending, "title") : nullptr));
  p.Raw("</span><span class=\"name\">");
  p.Text(Str(Get(row, "name")));
  p.Raw("</span>");
  if (out) p.Raw("<span class=\"badge\">out of context</span>");
  if (pending) {
    if (const Value* desc = Get(*pending, "description")) {
      p.Raw("<div class=\"exit\">");
      p.Text(Str(desc));
      p.Raw("</div>");
    }
    if (Str(Get(*pending, "card")) == "diff" && (!result || result->is_null())) Diffs(p, Get(*pending, "diffs"));
  }
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
