// Reading a kept text (json::Value::kept_text()) in place, without building
// its value: for a reader that looks at a few members of many items and then
// writes the container again as it was (the read card's lines).
//
// A kept text is exactly what json::AppendSerialized writes: valid JSON
// without whitespace. So a value ends where its brackets balance outside
// strings, and a member's key is found by its written form.
#ifndef RETRACE_ENGINE_JSON_KEPT_READER_H_
#define RETRACE_ENGINE_JSON_KEPT_READER_H_

#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include <retrace/engine/json/value.h>

namespace retrace::json::kept {

// The text of the value that starts at text[at] (empty when at is past the end).
std::string_view ValueAt(std::string_view text, size_t at);

// The kind of the value a text holds; an empty text (an absent member) reads
// as null.
inline Value::Kind KindOf(std::string_view value) {
  if (value.empty()) return Value::Kind::kNull;
  switch (value[0]) {
    case '{': return Value::Kind::kObject;
    case '[': return Value::Kind::kArray;
    case '"': return Value::Kind::kString;
    case 't':
    case 'f': return Value::Kind::kBool;
    case 'n': return Value::Kind::kNull;
    default: return Value::Kind::kNumber;
  }
}

// The number a number's text holds. REQUIRES: KindOf(value) == kNumber.
double NumberOf(std::string_view value);

// A member of an object's text: its key as written, without the quotes (a
// key with an escape is not its value), and its value's text.
using Member = std::pair<std::string_view, std::string_view>;

// Splits the object that starts at text[at] into `members` (appended, in
// order); returns the index just past it, or `at` when it ends early.
size_t SplitObject(std::string_view text, size_t at, std::vector<Member>& members);

// The value of the first member `key` of `members` (as Value::Find), or
// empty. REQUIRES: `key` needs no escape when written.
inline std::string_view Find(std::span<const Member> members, std::string_view key) {
  for (const Member& m : members) {
    if (m.first == key) return m.second;
  }
  return {};
}

// Calls f(item text, members) for each item of an array's text until f
// returns false; returns false then, true otherwise. `members` splits an
// object item, in the same pass that finds its end; it is empty otherwise.
template <class F>
bool ForEachItem(std::string_view array, F f) {
  std::vector<Member> members;
  size_t at = 1;  // past '['
  if (at < array.size() && array[at] == ']') return true;
  while (at < array.size()) {
    members.clear();
    const size_t end = array[at] == '{' ? SplitObject(array, at, members) : at + ValueAt(array, at).size();
    if (end == at || !f(array.substr(at, end - at), std::span<const Member>(members))) return false;
    at = end;
    if (at >= array.size() || array[at] != ',') break;
    ++at;
  }
  return true;
}

}  // namespace retrace::json::kept

#endif  // RETRACE_ENGINE_JSON_KEPT_READER_H_
