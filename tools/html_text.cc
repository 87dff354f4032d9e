#include "tools/html_text.h"

#include <map>
#include <set>
#include <vector>

#include "engine/json/utf8.h"

namespace retrace::tools {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(tolower(static_cast<unsigned char>(c)));
  return out;
}

struct Tag {
  std::string name;  // lower case, without '/'
  bool closing = false;
  std::map<std::string, std::string> attrs;
};

// Parses the tag starting at html[i] == '<'; returns the index past '>'.
size_t ParseTag(std::string_view html, size_t i, Tag& tag) {
  size_t j = i + 1;
  if (j < html.size() && html[j] == '/') tag.closing = true, ++j;
  size_t start = j;
  while (j < html.size() && (isalnum(static_cast<unsigned char>(html[j])) || html[j] == '-')) ++j;
  tag.name = Lower(html.substr(start, j - start));
  while (j < html.size() && html[j] != '>') {
    while (j < html.size() && (isspace(static_cast<unsigned char>(html[j])) || html[j] == '/')) ++j;
    size_t name_start = j;
    while (j < html.size() && !isspace(static_cast<unsigned char>(html[j])) && html[j] != '=' && html[j] != '>' &&
           html[j] != '/') {
      ++j;
    }
    std::string name = Lower(html.substr(name_start, j - name_start));
    std::string value;
    if (j < html.size() && html[j] == '=') {
      ++j;
      if (j < html.size() && (html[j] == '"' || html[j] == '\'')) {
        const char quote = html[j++];
        size_t end = html.find(quote, j);
        if (end == std::string_view::npos) end = html.size();
        value = html.substr(j, end - j);
        j = std::min(end + 1, html.size());
      } else {
        size_t v = j;
        while (j < html.size() && !isspace(static_cast<unsigned char>(html[j])) && html[j] != '>') ++j;
        value = html.substr(v, j - v);
      }
    }
    if (!name.empty()) tag.attrs[name] = DecodeEntities(value);
    if (name.empty() && j < html.size() && html[j] != '>') ++j;
  }
  return std::min(j + 1, html.size());
}

class Converter {
 public:
  std::string Run(std::string_view html) {
    size_t i = 0;
    while (i < html.size()) {
      if (html[i] != '<') {
        size_t next = html.find('<', i);
        if (next == std::string_view::npos) next = html.size();
        Text(DecodeEntities(html.substr(i, next - i)));
        i = next;
        continue;
      }
      if (html.substr(i, 4) == "<!--") {
        size_t end = html.find("-->", i + 4);
        i = end == std::string_view::npos ? html.size() : end + 3;
        continue;
      }
      if (i + 1 < html.size() && (html[i + 1] == '!' || html[i + 1] == '?')) {
        size_t end = html.find('>', i);
        i = end == std::string_view::npos ? html.size() : end + 1;
        continue;
      }
      Tag tag;
      i = ParseTag(html, i, tag);
      if (!tag.closing && (tag.name == "script" || tag.name == "style" || tag.name == "noscript" || tag.name == "head")) {
        size_t end = Lower(html.substr(i)).find("</" + tag.name);  // raw text up to the close tag
        i = end == std::string::npos ? html.size() : html.find('>', i + end) + 1;
        if (i == 0) i = html.size();
        continue;
      }
      Element(tag);
    }
    return Finish();
  }

 private:
  void Emit(std::string_view s) { out_ += s; }

  // A block boundary: `n` newlines, without stacking them.
  void Break(int n) {
    if (out_.empty()) return;
    size_t have = 0;
    while (have < out_.size() && out_[out_.size() - 1 - have] == '\n') ++have;
    while (!out_.empty() && out_.back() == ' ' && have == 0) out_.pop_back();
    for (size_t k = have; k < static_cast<size_t>(n); ++k) out_ += '\n';
    if (n > 0) out_ += quote_prefix_;
  }

  void Text(const std::string& text) {
    if (pre_ > 0) {
      Emit(text);
      return;
    }
    std::string collapsed;
    for (char c : text) {
      const bool space = c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f';
      if (space) {
        if (collapsed.empty() ? !out_.empty() && out_.back() != ' ' && out_.back() != '\n' : collapsed.back() != ' ') {
          collapsed += ' ';
        }
      } else {
        collapsed += c;
      }
    }
    if (table_cell_) {
      for (char c : collapsed) cell_ += c == '|' ? std::string("\\|") : std::string(1, c);
      return;
    }
    Emit(collapsed);
  }

  void Element(const Tag& t) {
    static const std::set<std::string> kBlocks = {"p", "div", "section", "article", "header", "footer", "main", "nav",
                                                  "aside", "figure", "form", "address", "dl", "dd", "dt", "body", "html"};
    const std::string& n = t.name;
    if (table_cell_ && !(n == "td" || n == "th" || n == "tr")) return;  // cells keep their text only
    if (n.size() == 2 && n[0] == 'h' && n[1] >= '1' && n[1] <= '6') {
      Break(2);
      if (!t.closing) Emit(std::string(n[1] - '0', '#') + " ");
    } else if (kBlocks.count(n)) {
      Break(2);
    } else if (n == "br") {
      Emit("  \n" + quote_prefix_);
    } else if (n == "hr") {
      Break(2);
      Emit("* * *");
      Break(2);
    } else if (n == "ul" || n == "ol") {
      if (t.closing) {
        if (!lists_.empty()) lists_.pop_back();
        Break(lists_.empty() ? 2 : 1);
      } else {
        Break(lists_.empty() ? 2 : 1);
        lists_.push_back(n == "ol" ? 1 : 0);
      }
    } else if (n == "li" && !t.closing) {
      Break(1);
      const size_t depth = lists_.empty() ? 0 : lists_.size() - 1;
      Emit(std::string(depth * 4, ' '));
      if (!lists_.empty() && lists_.back() > 0) {
        Emit(std::to_string(lists_.back()++) + ".  ");
      } else {
        Emit("-   ");
      }
    } else if (n == "blockquote") {
      quote_prefix_ = t.closing ? "" : "> ";
      Break(2);
    } else if (n == "pre") {
      if (t.closing) {
        if (pre_ > 0) --pre_;
        if (!out_.empty() && out_.back() != '\n') Emit("\n");
        Emit("```");
        Break(2);
      } else {
        Break(2);
        ++pre_;
        Emit("```\n");
      }
    } else if (n == "code" && pre_ == 0) {
      Emit("`");
    } else if (n == "strong" || n == "b") {
      Emit("**");
    } else if (n == "em" || n == "i") {
      Emit("_");
    } else if (n == "a") {
      if (!t.closing) {
        auto href = t.attrs.find("href");
        links_.push_back(href == t.attrs.end() ? "" : href->second);
        if (!links_.back().empty()) Emit("[");
      } else if (!links_.empty()) {
        if (!links_.back().empty()) Emit("](" + links_.back() + ")");
        links_.pop_back();
      }
    } else if (n == "img" && !t.closing) {
      auto src = t.attrs.find("src");
      if (src != t.attrs.end()) {
        auto alt = t.attrs.find("alt");
        Emit("![" + (alt == t.attrs.end() ? std::string() : alt->second) + "](" + src->second + ")");
      }
    } else if (n == "table") {
      Break(2);
      header_done_ = false;
    } else if (n == "tr") {
      if (t.closing) {
        EndRow();
      } else {
        row_.clear();
        row_is_header_ = true;
      }
    } else if (n == "td" || n == "th") {
      if (t.closing) {
        EndCell();
      } else {
        table_cell_ = true;
        cell_.clear();
        if (n == "td") row_is_header_ = false;
      }
    }
  }

  void EndCell() {
    if (!table_cell_) return;
    table_cell_ = false;
    size_t a = cell_.find_first_not_of(' '), b = cell_.find_last_not_of(' ');
    std::string text = a == std::string::npos ? "" : cell_.substr(a, b - a + 1);
    while (text.size() < 3) text += ' ';
    row_.push_back(text);
  }

  void EndRow() {
    EndCell();
    if (row_.empty()) return;
    std::string line;
    for (size_t k = 0; k < row_.size(); ++k) line += (k == 0 ? "| " : " ") + row_[k] + " |";
    Break(1);
    Emit(line);
    if (!header_done_ && row_is_header_) {
      std::string sep;
      for (size_t k = 0; k < row_.size(); ++k) sep += std::string(k == 0 ? "| " : " ") + "---" + " |";
      Emit("\n" + sep);
    }
    header_done_ = true;
    row_.clear();
  }

  std::string Finish() {
    std::string result;
    int newlines = 0;
    for (char c : out_) {  // at most one blank line between blocks
      newlines = c == '\n' ? newlines + 1 : 0;
      if (newlines <= 2) result += c;
    }
    size_t a = result.find_first_not_of(" \n"), b = result.find_last_not_of(" \n");
    return a == std::string::npos ? "" : result.substr(a, b - a + 1);
  }

  std::string out_, quote_prefix_, cell_;
  std::vector<int> lists_;  // 0: bullets; n: the next ordinal
  std::vector<std::string> links_;
  std::vector<std::string> row_;
  int pre_ = 0;
  bool table_cell_ = false, row_is_header_ = false, header_done_ = false;
};

}  // namespace

std::string DecodeEntities(std::string_view text) {
  static const std::map<std::string, uint32_t, std::less<>> kNamed = {
      {"amp", '&'},     {"lt", '<'},       {"gt", '>'},       {"quot", '"'},    {"apos", '\''},   {"nbsp", 0xA0},
      {"copy", 0xA9},   {"reg", 0xAE},     {"mdash", 0x2014}, {"ndash", 0x2013}, {"hellip", 0x2026},
      {"lsquo", 0x2018}, {"rsquo", 0x2019}, {"ldquo", 0x201C}, {"rdquo", 0x201D}, {"trade", 0x2122}};
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '&') {
      out += text[i];
      continue;
    }
    const size_t semi = text.find(';', i);
    if (semi == std::string_view::npos || semi - i > 10) {
      out += '&';
      continue;
    }
    std::string_view name = text.substr(i + 1, semi - i - 1);
    uint32_t cp = 0;
    if (!name.empty() && name[0] == '#') {
      const bool hex = name.size() > 1 && (name[1] == 'x' || name[1] == 'X');
      try {
        cp = static_cast<uint32_t>(std::stoul(std::string(name.substr(hex ? 2 : 1)), nullptr, hex ? 16 : 10));
      } catch (...) {
        cp = 0;
      }
      if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
    } else if (auto it = kNamed.find(name); it != kNamed.end()) {
      cp = it->second;
    }
    if (cp == 0) {
      out += '&';
      continue;
    }
    json::AppendCodePoint(out, cp);
    i = semi;
  }
  return out;
}

std::string HtmlToMarkdown(std::string_view html) { return Converter().Run(html); }

}  // namespace retrace::tools
