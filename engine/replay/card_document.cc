#include "engine/replay/card_document.h"

#include <algorithm>
#include <utility>

#include "engine/base/big_buffer.h"
#include "engine/json/writer.h"

namespace retrace::replay {
using json::Value;

namespace {

// A card entry's fields, in document order: the one place that says which
// they are. `out` is a TextEntry or a ValueEntry. A view shown twice (the
// tool's own view, displayed) is the same object both times, which lets the
// text repeat its first serialization.
template <typename Out>
void WriteEntry(const PresentedCall& call, Out& out) {
  Value fallback_pending;
  const Value* shown_pending = call.pending ? &*call.pending : &(fallback_pending = ShownPending(call));
  const Value* shown_result = !call.has_result ? nullptr : call.result ? &*call.result : &*call.fallback_result;
  out.Key("callId");
  out.String(call.call_id);
  out.Key("name");
  out.String(call.name);
  out.Key("args");
  out.View(&call.args);
  out.Key("pending");
  out.View(call.pending ? &*call.pending : nullptr);
  out.Key("result");
  out.View(call.result ? &*call.result : nullptr);
  out.Key("isError");
  out.Bool(call.has_result, call.is_error);
  out.Key("display");
  out.Open();
  out.Key("pending");
  out.View(shown_pending);
  out.Key("result");
  out.View(shown_result);
  out.Close();
}

// The entry as JSON text, each view serialized once.
class TextEntry {
 public:
  explicit TextEntry(std::string& out) : out_(out) { out_ += '{'; }
  ~TextEntry() { out_ += '}'; }
  TextEntry(const TextEntry&) = delete;
  TextEntry& operator=(const TextEntry&) = delete;

  void Key(std::string_view key) {
    if (!first_) out_ += ',';
    first_ = false;
    out_ += '"';
    out_ += key;  // the keys need no escaping
    out_ += "\":";
  }
  void String(const std::string& s) { json::AppendQuoted(out_, s); }
  void Bool(bool present, bool value) { out_ += !present ? "null" : value ? "true" : "false"; }
  void View(const Value* v) {
    if (!v) {
      out_ += "null";
      return;
    }
    for (const auto& [seen, at, end] : written_) {
      if (seen == v) {
        out_.append(out_, at, end - at);
        return;
      }
    }
    const size_t at = out_.size();
    json::AppendSerialized(out_, *v);
    written_.push_back({v, at, out_.size()});
  }
  void Open() {
    out_ += '{';
    first_ = true;
  }
  void Close() { out_ += '}'; }

 private:
  struct Written {
    const Value* view;
    size_t at, end;
  };
  std::string& out_;
  bool first_ = true;
  std::vector<Written> written_;
};

// The entry as a value.
class ValueEntry {
 public:
  void Key(std::string_view key) { key_ = key; }
  void String(const std::string& s) { Put(Value(s)); }
  void Bool(bool present, bool value) { Put(present ? Value(value) : Value()); }
  void View(const Value* v) { Put(v ? *v : Value()); }
  void Open() {
    outer_key_ = key_;
    inner_ = Value::MakeObject();
    in_inner_ = true;
  }
  void Close() {
    in_inner_ = false;
    entry_.Set(outer_key_, std::move(inner_));
  }
  Value Take() { return std::move(entry_); }

 private:
  void Put(Value v) { (in_inner_ ? inner_ : entry_).Set(key_, std::move(v)); }
  Value entry_ = Value::MakeObject();
  Value inner_;
  std::string key_, outer_key_;
  bool in_inner_ = false;
};

void AppendEntry(std::string& out, const PresentedCall& call) {
  TextEntry entry(out);
  WriteEntry(call, entry);
}

}  // namespace

Value CardEntryValue(const PresentedCall& call) {
  ValueEntry entry;
  WriteEntry(call, entry);
  return entry.Take();
}

Value CardDocumentValue(const std::string& session_id, const std::vector<PresentedCall>& calls) {
  Value::Array cards;
  cards.reserve(calls.size());
  for (const PresentedCall& call : calls) cards.push_back(CardEntryValue(call));
  return Value::MakeObject({{"sessionId", session_id}, {"calls", Value(std::move(cards))}});
}

void CardDocument::set_session_id(std::string id) {
  session_id_ = std::move(id);
  if (head_in_text_) {
    const std::string head = Head();
    blocks_[0].replace(0, head_in_text_, head);
    head_in_text_ = head.size();
  }
}

void CardDocument::Reserve(size_t bytes) { base::ReserveLarge(blocks_.back(), bytes); }

std::string CardDocument::Head() const {
  std::string head = "{\"sessionId\":";
  json::AppendQuoted(head, session_id_);
  head += ",\"calls\":[";
  return head;
}

std::string& CardDocument::BlockFor(size_t bytes) {
  if (next_ == 0 && !head_drained_ && !session_id_.empty() && blocks_.size() == 1 && blocks_[0].empty()) {
    blocks_[0] += Head();  // the first entry: the head goes first, where it belongs
    head_in_text_ = blocks_[0].size();
  }
  std::string* block = &blocks_.back();
  if (block->size() + bytes + 1 > block->capacity()) {  // a new block, rather than a copy of the text so far
    block = &blocks_.emplace_back();
    base::ReserveLarge(*block, std::max(bytes + 1, kBlock));
  }
  if (next_) *block += ',';
  return *block;
}

void CardDocument::Add(size_t index, const PresentedCall& call) {
  if (index != next_) {  // an earlier call still waits for its result
    AppendEntry(held_[index], call);
    return;
  }
  AppendEntry(BlockFor(kBlock / 4), call);
  ++next_;
  for (auto it = held_.begin(); it != held_.end() && it->first == next_; it = held_.erase(it), ++next_) {
    BlockFor(it->second.size()) += it->second;
  }
}

size_t CardDocument::size() const {
  size_t size = 0;
  for (const std::string& block : blocks_) size += block.size();
  return size;
}

Status CardDocument::Drain(const std::function<Status(std::string_view)>& write) {
  if (!head_drained_) {
    if (!head_in_text_) RETURN_IF_ERROR(write(Head()));  // else the first block starts with it
    head_drained_ = true;
    head_in_text_ = 0;
  }
  for (const std::string& block : blocks_) {
    if (!block.empty()) RETURN_IF_ERROR(write(block));
  }
  // Keep the roomiest block for what follows.
  std::swap(blocks_.front(), *std::max_element(blocks_.begin(), blocks_.end(), [](const std::string& a, const std::string& b) {
    return a.capacity() < b.capacity();
  }));
  blocks_.resize(1);
  blocks_.front().clear();  // keeps its capacity: the next entries reuse the same pages
  return Status::Ok();
}

void CardDocument::Append(CardDocument&& later) {
  // later's blocks read as one text, which follows this one's after a comma.
  // They are moved, not copied: Drain() writes them as they are, and
  // Finish() joins them in the first block when it has the room.
  if (later.head_in_text_) later.blocks_[0].erase(0, later.head_in_text_);  // one head is enough
  if (later.size()) {
    if (next_) BlockFor(0);
    for (std::string& block : later.blocks_) {
      if (!block.empty()) blocks_.push_back(std::move(block));
    }
  }
  next_ += later.next_;
  later.blocks_.assign(1, std::string());
  later.next_ = 0;
}

std::string CardDocument::Finish() {
  const std::string head = head_drained_ || head_in_text_ ? "" : Head();
  const size_t size = head.size() + this->size() + 3;  // room for "]}\n": callers end the document with a newline
  std::string out;
  if (blocks_.front().capacity() >= size) {  // reserved big enough: the rest joins it, the head goes in front
    out = std::move(blocks_.front());
    for (size_t i = 1; i < blocks_.size(); ++i) out += blocks_[i];
    if (!head.empty()) out.insert(0, head);
  } else {
    base::ReserveLarge(out, size);
    out += head;
    for (const std::string& block : blocks_) out += block;
  }
  blocks_.assign(1, std::string());
  head_in_text_ = 0;
  out += "]}";
  return out;
}

}  // namespace retrace::replay
