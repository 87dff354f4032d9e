#include "frontends/acp/session_updates.h"

#include <array>
#include <cmath>
#include <optional>
#include <vector>

#include "engine/base/lexical_path.h"
#include "engine/json/lenient.h"
#include "engine/json/writer.h"
#include "presenters/card_reader.h"

namespace retrace::acp {
namespace {

using json::Get;
using json::StrView;
using json::Value;

constexpr std::array<std::string_view, 10> kToolKinds = {"read",    "edit",  "delete", "move",        "search",
                                                         "execute", "think", "fetch",  "switch_mode", "other"};

// "m" and the row's seq as JavaScript writes it (a row from a log holds a
// safe integer; a hostile one may hold 1e59, which no int64 can).
std::string MessageId(const Value& row) {
  const Value* seq = Get(row, "seq");
  return "m" + (seq && seq->is_number() ? json::FormatNumber(seq->as_number()) : std::string("0"));
}

Value Text(std::string text) { return Value::MakeObject({{"type", "text"}, {"text", std::move(text)}}); }

Value Chunk(std::string_view tag, std::string text, const Value& row) {
  return Value::MakeObject({{"sessionUpdate", tag}, {"content", Text(std::move(text))}, {"messageId", MessageId(row)}});
}

using presenters::CardView;

// A tool row's cards: nullptr when it has none (yet).
struct Cards {
  std::optional<CardView> pending, result;
};

std::string_view KindOf(const Cards& cards) {
  const std::string_view r = cards.result ? cards.result->kind : "";
  if (r == presenters::kReadCard || r == presenters::kSearchCard) return r;
  if (r == presenters::kDiffCard) return "edit";
  if (r == presenters::kTerminalCard) return "execute";
  if (r == presenters::kWebCard) return "fetch";
  if (!cards.pending) return "other";
  if (cards.pending->As<presenters::DiffCard>()) return "edit";
  if (cards.pending->As<presenters::TerminalCard>()) return "execute";
  const auto* generic = cards.pending->As<presenters::GenericCard>();
  return generic && IsToolKind(generic->kind) ? generic->kind : "other";
}

std::string TitleOf(const Cards& cards, std::string_view name) {
  for (const std::optional<CardView>* card : {&cards.pending, &cards.result}) {
    if (*card && !(*card)->title.empty()) return std::string((*card)->title);
  }
  return std::string(name);
}

// A line ACP takes: an integer in uint32's range.
bool IsLine(presenters::Number line) {
  if (!line) return false;
  const double d = line->as_number();
  return d >= 0 && d <= 4294967295.0 && std::floor(d) == d;
}

class Locations {
 public:
  explicit Locations(std::string_view cwd) : cwd_(cwd) {}
  void Add(std::string_view path, presenters::Number line) {
    std::string abs = AbsolutePath(path, cwd_);
    if (abs.empty() || out_.size() >= kMax) return;
    Value loc = Value::MakeObject({{"path", std::move(abs)}});
    if (IsLine(line)) loc.Set("line", *line);
    out_.push_back(std::move(loc));
  }
  bool empty() const { return out_.empty(); }
  Value Take() { return Value(std::move(out_)); }

 private:
  static constexpr size_t kMax = 64;  // a follow-along hint, not a listing
  std::string_view cwd_;
  Value::Array out_;
};

// The result's diff, else the pending one's (an edit whose result is not a diff).
const presenters::DiffCard* DiffOf(const Cards& cards) {
  const presenters::DiffCard* diff = cards.result ? cards.result->As<presenters::DiffCard>() : nullptr;
  if (!diff && cards.pending) diff = cards.pending->As<presenters::DiffCard>();
  return diff;
}

Value LocationsOf(const Cards& cards, std::string_view cwd) {
  Locations out(cwd);
  if (cards.pending) {
    for (const presenters::CardLocation& loc : cards.pending->locations) out.Add(loc.path, loc.line);
  }
  if (!out.empty()) return out.Take();
  const CardView* result = cards.result ? &*cards.result : nullptr;
  if (const auto* read = result ? result->As<presenters::ReadCardView>() : nullptr) {
    out.Add(read->path, read->offset);
  } else if (const presenters::DiffCard* diff = DiffOf(cards)) {
    for (const presenters::FileDiffView& d : diff->diffs) out.Add(d.path, nullptr);
  } else if (const auto* search = result ? result->As<presenters::SearchCard>() : nullptr) {
    for (const presenters::SearchFile& f : search->files) {
      out.Add(f.path, f.matches.empty() ? nullptr : f.matches.front().line_number);
    }
    for (std::string_view path : search->paths) out.Add(path, nullptr);
  }
  return out.Take();
}

Value ContentItem(Value block) { return Value::MakeObject({{"type", "content"}, {"content", std::move(block)}}); }

// A content block as ACP's ContentBlock: the shapes MCP and ACP share, rebuilt
// field by field; anything else as its JSON text (an invalid item would be
// skipped by the client without a word).
Value Block(const Value& b) {
  const std::string_view type = StrView(Get(b, "type"));
  auto str = [&](std::string_view key) { return Get(b, key) && Get(b, key)->is_string(); };
  if (type == "text" && str("text")) return Text(Get(b, "text")->as_string());
  if ((type == "image" || type == "audio") && str("data") && str("mimeType")) {
    Value out = Value::MakeObject({{"type", type}, {"data", *Get(b, "data")}, {"mimeType", *Get(b, "mimeType")}});
    if (type == "image" && str("uri")) out.Set("uri", *Get(b, "uri"));
    return out;
  }
  if (type == "resource_link" && str("uri") && str("name")) {
    Value out = Value::MakeObject({{"type", type}, {"uri", *Get(b, "uri")}, {"name", *Get(b, "name")}});
    for (const char* key : {"title", "description", "mimeType"}) {
      if (str(key)) out.Set(key, *Get(b, key));
    }
    if (const Value* size = Get(b, "size"); size && size->is_safe_integer() && size->as_number() >= 0) {
      out.Set("size", *size);
    }
    return out;
  }
  if (type == "resource") {
    const Value* r = Get(b, "resource");
    auto rstr = [&](std::string_view key) { return r && Get(*r, key) && Get(*r, key)->is_string(); };
    if (rstr("uri") && (rstr("text") || rstr("blob"))) {
      Value res = Value::MakeObject({{"uri", *Get(*r, "uri")}});
      for (const char* key : {"mimeType", "text", "blob"}) {
        if (rstr(key)) res.Set(key, *Get(*r, key));
      }
      return Value::MakeObject({{"type", "resource"}, {"resource", std::move(res)}});
    }
  }
  return Text(json::Serialize(b));
}

void AddBlocks(const Value* content, Value::Array& out) {
  if (!content || !content->is_array()) return;
  for (const Value& b : content->as_array()) out.push_back(ContentItem(Block(b)));
}

void AddDiffs(const presenters::DiffCard& card, std::string_view cwd, Value::Array& out) {
  for (const presenters::FileDiffView& d : card.diffs) {
    std::string path = AbsolutePath(d.path, cwd);
    if (path.empty() || !d.new_text) continue;
    out.push_back(Value::MakeObject({{"type", "diff"},
                                     {"path", std::move(path)},
                                     {"oldText", d.old_text ? Value(std::string(*d.old_text)) : Value()},
                                     {"newText", std::string(*d.new_text)}}));
  }
}

// A fence longer than any run of backticks in `text` (CommonMark).
std::string Fence(std::string_view text) {
  size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return std::string(std::max<size_t>(3, longest + 1), '`');
}

std::string NumberText(presenters::Number n) { return n ? json::Serialize(*n) : std::string("?"); }

std::string ExitText(const presenters::TerminalCard& card) {
  if (card.exit_code) return "exit code " + json::Serialize(*card.exit_code);
  if (card.signal) return "signal " + std::string(*card.signal);
  return "";
}

std::string ConsoleText(const presenters::TerminalCard& card) {
  std::string output(card.output);
  while (!output.empty() && (output.back() == '\n' || output.back() == ' ')) output.pop_back();
  const std::string fence = Fence(output);
  std::string text = fence + "console\n" + output + "\n" + fence;
  if (std::string exit = ExitText(card); !exit.empty()) text += "\n" + exit;
  return text;
}

std::string ReadText(const presenters::ReadCardView& card) {
  std::string text;
  if (card.content) {
    for (const Value& b : card.content->as_array()) {
      if (StrView(Get(b, "type")) != "text") continue;
      if (!text.empty()) text += "\n\n";
      text += StrView(Get(b, "text"));
    }
    if (!text.empty()) return text;
  }
  for (const presenters::ReadLine& line : card.lines) text += NumberText(line.number) + ": " + std::string(line.text) + "\n";
  return text;
}

std::string SearchText(const presenters::SearchCard& card) {
  std::string text;
  for (const presenters::SearchFile& f : card.files) {
    for (const presenters::SearchMatch& m : f.matches) {
      text += std::string(f.path) + ":" + NumberText(m.line_number) + ": " + std::string(m.line) + "\n";
    }
  }
  for (std::string_view path : card.paths) text += std::string(path) + "\n";
  if (text.empty()) text = "No matches.\n";
  if (card.truncated) text += "(truncated" + (card.total ? "; " + json::Serialize(*card.total) + " in all" : std::string()) + ")\n";
  return text;
}

std::string WebText(const presenters::WebCard& card) {
  std::string text;
  if (card.fetch) {
    text = "Fetched " + std::string(card.url);
    if (card.status_code) text += " (HTTP " + json::Serialize(*card.status_code) + ")";
    text += "\n";
  } else {
    if (card.answer) text += std::string(*card.answer) + "\n\n";
    for (const presenters::WebSource& s : card.sources) {
      text += "- " + std::string(s.title.empty() ? s.url : s.title) + " <" + std::string(s.url) + ">\n";
      if (s.snippet) text += "  " + std::string(*s.snippet) + "\n";
    }
  }
  if (card.truncated) text += "(truncated)\n";
  return text;
}

Value::Array ContentOf(const Cards& cards, std::string_view cwd) {
  Value::Array out;
  // The completed view replaces the pending card.
  const CardView* card = cards.result ? &*cards.result : cards.pending ? &*cards.pending : nullptr;
  if (!card) return out;
  if (const auto* diff = card->As<presenters::DiffCard>()) {
    AddDiffs(*diff, cwd, out);
  } else if (const auto* terminal = card->As<presenters::TerminalCard>()) {
    if (cards.result) {
      out.push_back(ContentItem(Text(ConsoleText(*terminal))));
    } else if (card->description) {
      out.push_back(ContentItem(Text(std::string(*card->description))));
    }
  } else if (const auto* read = card->As<presenters::ReadCardView>()) {
    out.push_back(ContentItem(Text(ReadText(*read))));
  } else if (const auto* search = card->As<presenters::SearchCard>()) {
    out.push_back(ContentItem(Text(SearchText(*search))));
  } else if (const auto* web = card->As<presenters::WebCard>()) {
    out.push_back(ContentItem(Text(WebText(*web))));
  } else {
    AddBlocks(card->As<presenters::GenericCard>()->content, out);
  }
  return out;
}

std::string_view StatusOf(const Value& row) {
  const Value* result = Get(row, "result");
  if (!result || result->is_null()) return "pending";
  return json::True(Get(row, "isError")) ? "failed" : "completed";
}

// The row's card `key` when it is one (an object).
std::optional<CardView> CardAt(const Value& row, std::string_view key) {
  const Value* card = Get(row, key);
  if (!card || !card->is_object()) return std::nullopt;
  return presenters::ReadCard(*card);
}

void ToolUpdates(const Value& row, const UpdateOptions& options, const EmitUpdate& emit) {
  const std::string id(StrView(Get(row, "callId")));
  const std::string_view name = StrView(Get(row, "name"));
  const Cards cards{CardAt(row, "pending"), CardAt(row, "result")};
  Value call = Value::MakeObject({{"sessionUpdate", "tool_call"},
                                  {"toolCallId", id},
                                  {"title", TitleOf(cards, name)},
                                  {"kind", KindOf(cards)},
                                  {"status", StatusOf(row)}});
  if (!name.empty()) call.Set("name", name);
  if (Value locations = LocationsOf(cards, options.cwd); !locations.as_array().empty()) {
    call.Set("locations", std::move(locations));
  }
  call.Set("rawInput", Get(row, "args") ? *Get(row, "args") : Value());
  const auto* terminal = cards.result ? cards.result->As<presenters::TerminalCard>() : nullptr;
  if (!(options.terminal_output && terminal)) {
    call.Set("content", Value(ContentOf(cards, options.cwd)));
    emit(std::move(call));
    return;
  }
  // The terminal convention: the card's output as a terminal's, then its exit.
  const std::string status(StrView(Get(call, "status")));
  call.Set("status", "in_progress");
  call.Set("content", Value(Value::Array{Value::MakeObject({{"type", "terminal"}, {"terminalId", id}})}));
  call.Set("_meta", Value::MakeObject({{"terminal_info", Value::MakeObject({{"terminal_id", id}})}}));
  emit(std::move(call));
  emit(Value::MakeObject(
      {{"sessionUpdate", "tool_call_update"},
       {"toolCallId", id},
       {"_meta", Value::MakeObject({{"terminal_output", Value::MakeObject({{"terminal_id", id}, {"data", terminal->output}})}})}}));
  Value exit = Value::MakeObject({{"terminal_id", id},
                                  {"exit_code", terminal->exit_code ? *terminal->exit_code : Value()},
                                  {"signal", terminal->signal ? Value(std::string(*terminal->signal)) : Value()}});
  emit(Value::MakeObject({{"sessionUpdate", "tool_call_update"},
                          {"toolCallId", id},
                          {"status", status},
                          {"_meta", Value::MakeObject({{"terminal_exit", std::move(exit)}})}}));
}

}  // namespace

bool IsToolKind(std::string_view kind) {
  for (std::string_view k : kToolKinds) {
    if (k == kind) return true;
  }
  return false;
}

std::string AbsolutePath(std::string_view path, std::string_view cwd) {
  if (path.empty()) return "";
  if (path.front() == '/') return ResolveLexically("/", path);
  return !cwd.empty() && cwd.front() == '/' ? ResolveLexically(cwd, path) : "";
}

void RowUpdates(const Value& row, const UpdateOptions& options, const EmitUpdate& emit) {
  const std::string_view kind = StrView(Get(row, "kind"));
  if (kind == "prompt") {
    emit(Chunk("user_message_chunk", std::string(StrView(Get(row, "text"))), row));
  } else if (kind == "context") {
    Value chunk = Chunk("user_message_chunk", std::string(StrView(Get(row, "text"))), row);
    Value context = Value::MakeObject({{"source", StrView(Get(row, "source"))}});
    for (const char* key : {"plugin", "form", "summary"}) {
      if (const Value* v = Get(row, key)) context.Set(key, *v);
    }
    chunk.Set("_meta", Value::MakeObject({{"retrace", Value::MakeObject({{"context", std::move(context)}})}}));
    emit(std::move(chunk));
  } else if (kind == "assistant") {
    if (const Value* reasoning = Get(row, "reasoning"); reasoning && reasoning->is_string()) {
      emit(Chunk("agent_thought_chunk", reasoning->as_string(), row));
    }
    if (const Value* text = Get(row, "text"); text && text->is_string()) {
      emit(Chunk("agent_message_chunk", text->as_string(), row));
    }
  } else if (kind == "tool") {
    ToolUpdates(row, options, emit);
  }
}

}  // namespace retrace::acp
