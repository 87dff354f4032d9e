#include "acp/session_updates.h"

#include <array>
#include <cmath>
#include <vector>

#include "engine/base/lexical_path.h"
#include "engine/json/lenient.h"
#include "engine/json/writer.h"

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

std::string_view CardType(const Value* card) { return StrView(card ? Get(*card, "card") : nullptr); }

std::string_view KindOf(const Value* pending, const Value* result) {
  const std::string_view r = CardType(result);
  if (r == "read" || r == "search") return r;
  if (r == "diff") return "edit";
  if (r == "terminal") return "execute";
  if (r == "web") return "fetch";
  const std::string_view p = CardType(pending);
  if (p == "diff") return "edit";
  if (p == "terminal") return "execute";
  const std::string_view kind = StrView(pending ? Get(*pending, "kind") : nullptr);
  return IsToolKind(kind) ? kind : "other";
}

std::string TitleOf(const Value* pending, const Value* result, std::string_view name) {
  for (const Value* card : {pending, result}) {
    const std::string_view title = StrView(card ? Get(*card, "title") : nullptr);
    if (!title.empty()) return std::string(title);
  }
  return std::string(name);
}

// A line ACP takes: an integer in uint32's range.
bool IsLine(const Value* line) {
  if (!line || !line->is_number()) return false;
  const double d = line->as_number();
  return d >= 0 && d <= 4294967295.0 && std::floor(d) == d;
}

class Locations {
 public:
  explicit Locations(std::string_view cwd) : cwd_(cwd) {}
  void Add(std::string_view path, const Value* line) {
    std::string abs = AbsolutePath(path, cwd_);
    if (abs.empty() || out_.size() >= kMax) return;
    Value loc = Value::MakeObject({{"path", std::move(abs)}});
    if (IsLine(line)) loc.Set("line", *line);
    out_.push_back(std::move(loc));
  }
  void AddAll(const Value* locations) {
    if (!locations || !locations->is_array()) return;
    for (const Value& loc : locations->as_array()) Add(StrView(Get(loc, "path")), Get(loc, "line"));
  }
  bool empty() const { return out_.empty(); }
  Value Take() { return Value(std::move(out_)); }

 private:
  static constexpr size_t kMax = 64;  // a follow-along hint, not a listing
  std::string_view cwd_;
  Value::Array out_;
};

Value LocationsOf(const Value* pending, const Value* result, std::string_view cwd) {
  Locations out(cwd);
  out.AddAll(pending ? Get(*pending, "locations") : nullptr);
  if (!out.empty()) return out.Take();
  const std::string_view r = CardType(result);
  if (r == "read") {
    out.Add(StrView(Get(*result, "path")), Get(*result, "offset"));
  } else if (r == "diff" || CardType(pending) == "diff") {
    const Value* diffs = Get(r == "diff" ? *result : *pending, "diffs");
    if (diffs && diffs->is_array()) {
      for (const Value& d : diffs->as_array()) out.Add(StrView(Get(d, "path")), nullptr);
    }
  } else if (r == "search") {
    if (const Value* files = Get(*result, "files"); files && files->is_array()) {
      for (const Value& f : files->as_array()) {
        const Value* matches = Get(f, "matches");
        const Value* first = matches && matches->is_array() && !matches->as_array().empty()
                                 ? &matches->as_array().front()
                                 : nullptr;
        out.Add(StrView(Get(f, "path")), first ? Get(*first, "lineNumber") : nullptr);
      }
    } else if (const Value* paths = Get(*result, "paths"); paths && paths->is_array()) {
      for (const Value& p : paths->as_array()) out.Add(StrView(&p), nullptr);
    }
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

void AddDiffs(const Value& card, std::string_view cwd, Value::Array& out) {
  const Value* diffs = Get(card, "diffs");
  if (!diffs || !diffs->is_array()) return;
  for (const Value& d : diffs->as_array()) {
    std::string path = AbsolutePath(StrView(Get(d, "path")), cwd);
    const Value* new_text = Get(d, "newText");
    if (path.empty() || !new_text || !new_text->is_string()) continue;
    const Value* old_text = Get(d, "oldText");
    out.push_back(Value::MakeObject({{"type", "diff"},
                                     {"path", std::move(path)},
                                     {"oldText", old_text && old_text->is_string() ? *old_text : Value()},
                                     {"newText", *new_text}}));
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

std::string ExitText(const Value& card) {
  if (const Value* code = Get(card, "exitCode"); code && code->is_number()) return "exit code " + json::Serialize(*code);
  if (const Value* signal = Get(card, "signal"); signal && signal->is_string()) return "signal " + signal->as_string();
  return "";
}

std::string ConsoleText(const Value& card) {
  std::string output(StrView(Get(card, "output")));
  while (!output.empty() && (output.back() == '\n' || output.back() == ' ')) output.pop_back();
  const std::string fence = Fence(output);
  std::string text = fence + "console\n" + output + "\n" + fence;
  if (std::string exit = ExitText(card); !exit.empty()) text += "\n" + exit;
  return text;
}

std::string ReadText(const Value& card) {
  std::string text;
  if (const Value* content = Get(card, "content"); content && content->is_array()) {
    for (const Value& b : content->as_array()) {
      if (StrView(Get(b, "type")) != "text") continue;
      if (!text.empty()) text += "\n\n";
      text += StrView(Get(b, "text"));
    }
    if (!text.empty()) return text;
  }
  if (const Value* lines = Get(card, "lines"); lines && lines->is_array()) {
    for (const Value& line : lines->as_array()) {
      const Value* number = Get(line, "number");
      text += (number ? json::Serialize(*number) : std::string("?")) + ": " + std::string(StrView(Get(line, "text"))) + "\n";
    }
  }
  return text;
}

std::string SearchText(const Value& card) {
  std::string text;
  if (const Value* files = Get(card, "files"); files && files->is_array()) {
    for (const Value& f : files->as_array()) {
      const std::string path(StrView(Get(f, "path")));
      const Value* matches = Get(f, "matches");
      if (!matches || !matches->is_array()) continue;
      for (const Value& m : matches->as_array()) {
        const Value* n = Get(m, "lineNumber");
        text += path + ":" + (n ? json::Serialize(*n) : std::string("?")) + ": " + std::string(StrView(Get(m, "line"))) +
                "\n";
      }
    }
  } else if (const Value* paths = Get(card, "paths"); paths && paths->is_array()) {
    for (const Value& p : paths->as_array()) text += std::string(StrView(&p)) + "\n";
  }
  if (text.empty()) text = "No matches.\n";
  const Value* truncated = Get(card, "truncated");
  if (truncated && truncated->is_bool() && truncated->as_bool()) {
    const Value* total = Get(card, "total");
    text += "(truncated" + (total ? "; " + json::Serialize(*total) + " in all" : std::string()) + ")\n";
  }
  return text;
}

std::string WebText(const Value& card) {
  std::string text;
  if (StrView(Get(card, "kind")) == "fetch") {
    text = "Fetched " + std::string(StrView(Get(card, "url")));
    if (const Value* status = Get(card, "statusCode")) text += " (HTTP " + json::Serialize(*status) + ")";
    text += "\n";
  } else {
    if (const Value* answer = Get(card, "answer"); answer && answer->is_string()) text += answer->as_string() + "\n\n";
    if (const Value* sources = Get(card, "sources"); sources && sources->is_array()) {
      for (const Value& s : sources->as_array()) {
        const std::string_view title = StrView(Get(s, "title"));
        text += "- " + std::string(title.empty() ? StrView(Get(s, "url")) : title) + " <" +
                std::string(StrView(Get(s, "url"))) + ">\n";
        if (const Value* snippet = Get(s, "snippet"); snippet && snippet->is_string()) {
          text += "  " + snippet->as_string() + "\n";
        }
      }
    }
  }
  const Value* truncated = Get(card, "truncated");
  if (truncated && truncated->is_bool() && truncated->as_bool()) text += "(truncated)\n";
  return text;
}

Value::Array ContentOf(const Value* pending, const Value* result, std::string_view cwd) {
  Value::Array out;
  const Value* card = result ? result : pending;  // the completed view replaces the pending card
  if (!card) return out;
  const std::string_view type = CardType(card);
  if (type == "diff") {
    AddDiffs(*card, cwd, out);
  } else if (type == "terminal") {
    if (card == result) {
      out.push_back(ContentItem(Text(ConsoleText(*card))));
    } else if (const Value* description = Get(*card, "description"); description && description->is_string()) {
      out.push_back(ContentItem(Text(description->as_string())));
    }
  } else if (type == "read") {
    out.push_back(ContentItem(Text(ReadText(*card))));
  } else if (type == "search") {
    out.push_back(ContentItem(Text(SearchText(*card))));
  } else if (type == "web") {
    out.push_back(ContentItem(Text(WebText(*card))));
  } else {
    AddBlocks(Get(*card, "content"), out);
  }
  return out;
}

std::string_view StatusOf(const Value& row) {
  const Value* result = Get(row, "result");
  if (!result || result->is_null()) return "pending";
  const Value* is_error = Get(row, "isError");
  return is_error && is_error->is_bool() && is_error->as_bool() ? "failed" : "completed";
}

void ToolUpdates(const Value& row, const UpdateOptions& options, const EmitUpdate& emit) {
  const std::string id(StrView(Get(row, "callId")));
  const std::string_view name = StrView(Get(row, "name"));
  const Value* pending = Get(row, "pending");
  const Value* result = Get(row, "result");
  if (pending && !pending->is_object()) pending = nullptr;
  if (result && !result->is_object()) result = nullptr;
  Value call = Value::MakeObject({{"sessionUpdate", "tool_call"},
                                  {"toolCallId", id},
                                  {"title", TitleOf(pending, result, name)},
                                  {"kind", KindOf(pending, result)},
                                  {"status", StatusOf(row)}});
  if (!name.empty()) call.Set("name", name);
  if (Value locations = LocationsOf(pending, result, options.cwd); !locations.as_array().empty()) {
    call.Set("locations", std::move(locations));
  }
  call.Set("rawInput", Get(row, "args") ? *Get(row, "args") : Value());
  if (!(options.terminal_output && CardType(result) == "terminal")) {
    call.Set("content", Value(ContentOf(pending, result, options.cwd)));
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
       {"_meta", Value::MakeObject({{"terminal_output",
                                     Value::MakeObject({{"terminal_id", id}, {"data", StrView(Get(*result, "output"))}})}})}}));
  const Value* code = Get(*result, "exitCode");
  const Value* signal = Get(*result, "signal");
  Value exit = Value::MakeObject({{"terminal_id", id},
                                  {"exit_code", code && code->is_number() ? *code : Value()},
                                  {"signal", signal && signal->is_string() ? *signal : Value()}});
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
