// The card vocabulary (dsh-tool-contract §6.1–§6.2): ToolCallView and
// ToolResultView as JSON, built field by field. Key order is output order
// and must follow upstream's order for each card (reference-tools spec);
// absent optional fields are omitted, never null.
//
//   Card("generic").Set("title", "Read a.ts").Set("kind", "read").Build()
//
// Call views: generic {title, kind?, rawInput?, content?, locations?},
// terminal {title, description?, cwd?}, diff {title, diffs, locations?}.
// Result views: generic {title?, content?}, terminal {title?, output?,
// exitCode? | signal?}, diff {title?, diffs}, search {shape: matches|paths,
// …, truncated, total}, read {path, offset, lines, totalLines, lang?,
// content?}, web {kind: search|fetch, …}.
#ifndef RETRACE_PRESENTERS_VIEWS_H_
#define RETRACE_PRESENTERS_VIEWS_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <retrace/engine/json/value.h>

namespace retrace::presenters {

class Card {
 public:
  explicit Card(std::string_view kind) : v_(json::Value::MakeObject({{"card", kind}})) {}
  Card& Set(std::string key, json::Value value) {
    v_.Set(std::move(key), std::move(value));
    return *this;
  }
  template <typename T>
  Card& SetIf(std::string key, const std::optional<T>& value) {
    if (value) v_.Set(std::move(key), json::Value(*value));
    return *this;
  }
  // Moves the card out: call once, last.
  json::Value Build() { return std::move(v_); }

 private:
  json::Value v_;
};

// {type:"text", text}
inline json::Value TextBlock(std::string text) {
  json::Value::Object members;  // not an initializer list: its members are copied, and a text may be long
  members.reserve(2);
  members.emplace_back("type", "text");
  members.emplace_back("text", std::move(text));
  return json::Value::MakeObject(std::move(members));
}

// {path, line?}
inline json::Value Location(std::string path, std::optional<json::Value> line = std::nullopt) {
  json::Value loc = json::Value::MakeObject({{"path", std::move(path)}});
  if (line) loc.Set("line", std::move(*line));
  return loc;
}

// {path, oldText: string|null, newText}
inline json::Value FileDiff(std::string path, std::optional<std::string> old_text, std::string new_text) {
  return json::Value::MakeObject({{"path", std::move(path)},
                                  {"oldText", old_text ? json::Value(std::move(*old_text)) : json::Value()},
                                  {"newText", std::move(new_text)}});
}

}  // namespace retrace::presenters

#endif  // RETRACE_PRESENTERS_VIEWS_H_
