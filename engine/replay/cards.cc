#include "engine/replay/cards.h"

#include <algorithm>

#include "engine/base/big_buffer.h"
#include "engine/json/lenient.h"
#include "engine/json/parser.h"
#include "engine/log/tool_arguments.h"
#include "engine/log/tool_events.h"
#include "engine/json/writer.h"
#include "engine/log/event_types.h"

namespace retrace::replay {
using json::Value;

bool CardsNeed(std::string_view type) {
  return type == log::kToolCall || type == log::kToolResult || type == log::kAssistantMessage;
}

Value ParseLoggedArguments(std::string_view text) { return log::ParseToolArguments(text, log::NumberOverflow::kKeepText); }

void CardBuilder::Add(log::Event&& e) {
  if (e.type == log::kAssistantMessage) {
    const Value* content = json::Get(json::Get(&e.data, "message"), "content");  // const: never unshares
    if (!content || !content->is_array()) return;
    for (const Value& block : content->as_array()) {
      if (Str(Get(block, "type")) == "tool-call") {
        asked_[Str(Get(block, "id"))] = {Str(Get(block, "name")), Str(Get(block, "arguments"))};
      }
    }
  } else if (const std::optional<log::ToolCallView> requested = log::ReadToolCall(e)) {
    Call call{std::string(requested->call_id), std::string(requested->name), ParseLoggedArguments(requested->arguments),
              e.seq};
    asked_.erase(call.call_id);  // its result will find the call: the request's text is not needed
    open_[call.call_id] = calls_.size();
    calls_.push_back(std::move(call));
  } else if (const std::optional<log::ToolResultView> result = log::ReadToolResult(e)) {
    if (!result->append) return;  // replacements (e.g. compaction pruning) are model-only: no card
    const std::string call_id(result->call_id);
    size_t index;
    if (auto it = open_.find(call_id); it != open_.end()) {
      index = it->second;
      open_.erase(it);
    } else {  // a result without a call: named from the assistant's request
      ++results_without_call_;
      std::pair<std::string, std::string> asked;  // (name, arguments); none when never requested
      if (auto a = asked_.find(call_id); a != asked_.end()) {
        asked = std::move(a->second);
        asked_.erase(a);
      }
      index = calls_.size();
      calls_.push_back({call_id, std::move(asked.first), ParseLoggedArguments(asked.second), e.seq});
    }
    Call& call = calls_[index];
    call.has_result = true;
    call.is_error = result->is_error;
    static const Value::Array kNoContent;
    Present(call, result->content ? &result->content->as_array() : &kNoContent, result->meta);
  }
}

void CardBuilder::Present(Call& call, const Value::Array* content, const Value* meta) const {
  const presenters::ToolPresenter* p = presenters_.Find(call.name);
  if (p) {
    presenters::PresentOutcome pending = presenters::PresentCallOutcome(*p, call.args);
    call.pending = std::move(pending.view);
    call.pending_how = pending.how;
    call.detail = std::move(pending.detail);
  }
  if (p && content) {
    presenters::PresentOutcome result = presenters::PresentResultOutcome(*p, call.args, {*content, call.is_error, meta});
    call.result = std::move(result.view);
    call.result_how = result.how;
    if (call.detail.empty()) call.detail = std::move(result.detail);
  }
  if (content && !call.result) call.fallback_result = presenters::FallbackResult(ShownPending(call), *content);
  call.presented = true;
  if (keep_ == Keep::kText) {  // the entry is all FinishText() needs: drop the views now
    if (static_cast<size_t>(&call - calls_.data()) == flushed_) {  // next in order: straight into the text
      AppendEntry(BlockFor(kTextBlock / 4), call);
      ++flushed_;
    } else {
      AppendEntry(call.text, call);
    }
    call.args = Value();
    call.pending.reset();
    call.result.reset();
    call.fallback_result.reset();
    FlushPresented();
  }
}

void CardBuilder::ReserveText(size_t bytes) { base::ReserveLarge(text_.back(), bytes); }

std::string& CardBuilder::BlockFor(size_t bytes) const {
  if (flushed_ == 0 && !head_drained_ && !session_id_.empty() && text_.size() == 1 && text_[0].empty()) {
    text_[0] += Head();  // the first card: the head goes first, where it belongs
    head_in_text_ = text_[0].size();
  }
  std::string* block = &text_.back();
  if (block->size() + bytes + 1 > block->capacity()) {  // a new block, rather than a copy of the text so far
    block = &text_.emplace_back();
    base::ReserveLarge(*block, std::max(bytes + 1, kTextBlock));
  }
  if (flushed_) *block += ',';
  return *block;
}

void CardBuilder::FlushPresented() const {
  for (; flushed_ < calls_.size() && calls_[flushed_].presented; ++flushed_) {
    std::string& entry = calls_[flushed_].text;
    BlockFor(entry.size()) += entry;
    std::string().swap(entry);
  }
}

std::vector<CardBuilder::Diagnostics> CardBuilder::CallDiagnostics() const {
  std::vector<Diagnostics> out;
  for (size_t i = 0; i < calls_.size(); ++i) {
    const Call& c = Presented(i);
    const presenters::ToolPresenter* p = presenters_.Find(c.name);
    out.push_back({c.call_id, c.name, c.seq, p ? p->version : std::string(), c.pending_how, c.result_how, c.detail});
  }
  return out;
}

Value CardBuilder::ShownPending(const Call& call) {
  return call.pending ? *call.pending : presenters::FallbackCall(call.name, call.args);
}

const CardBuilder::Call& CardBuilder::Presented(size_t index) const {
  Call& call = calls_[index];
  if (!call.presented) Present(call, nullptr, nullptr);
  return call;
}

Value CardBuilder::Finish() const {
  Value::Array cards;
  cards.reserve(calls_.size());
  for (size_t i = 0; i < calls_.size(); ++i) {
    const Call& call = Presented(i);
    Value shown_result = !call.has_result ? Value() : call.result ? *call.result : *call.fallback_result;
    cards.push_back(Value::MakeObject({
        {"callId", call.call_id},
        {"name", call.name},
        {"args", call.args},
        {"pending", call.pending ? *call.pending : Value()},
        {"result", call.result ? *call.result : Value()},
        {"isError", call.has_result ? Value(call.is_error) : Value()},
        {"display", Value::MakeObject({{"pending", ShownPending(call)}, {"result", std::move(shown_result)}})},
    }));
  }
  return Value::MakeObject({{"sessionId", session_id_}, {"calls", Value(std::move(cards))}});
}

void CardBuilder::AppendEntry(std::string& out, const Call& call) {
  // Where the tool's own view is also the one displayed, it is written once
  // and its text repeated.
  out += "{\"callId\":";
  json::AppendQuoted(out, call.call_id);
  out += ",\"name\":";
  json::AppendQuoted(out, call.name);
  out += ",\"args\":";
  json::AppendSerialized(out, call.args);
  out += ",\"pending\":";
  const size_t pending_at = out.size();
  if (call.pending) json::AppendSerialized(out, *call.pending); else out += "null";
  const size_t pending_end = out.size();
  out += ",\"result\":";
  const size_t result_at = out.size();
  if (call.result) json::AppendSerialized(out, *call.result); else out += "null";
  const size_t result_end = out.size();
  out += ",\"isError\":";
  out += !call.has_result ? "null" : call.is_error ? "true" : "false";
  out += ",\"display\":{\"pending\":";
  if (call.pending) {
    out.append(out, pending_at, pending_end - pending_at);
  } else {
    json::AppendSerialized(out, presenters::FallbackCall(call.name, call.args));
  }
  out += ",\"result\":";
  if (call.result || !call.has_result) {
    out.append(out, result_at, result_end - result_at);
  } else {
    json::AppendSerialized(out, *call.fallback_result);
  }
  out += "}}";
}

void CardBuilder::set_session_id(std::string id) {
  session_id_ = std::move(id);
  if (head_in_text_) {
    const std::string head = Head();
    text_[0].replace(0, head_in_text_, head);
    head_in_text_ = head.size();
  }
}

std::string CardBuilder::Head() const {
  std::string head = "{\"sessionId\":";
  json::AppendQuoted(head, session_id_);
  head += ",\"calls\":[";
  return head;
}

size_t CardBuilder::text_size() const {
  size_t size = 0;
  for (const std::string& block : text_) size += block.size();
  return size;
}

Status CardBuilder::DrainText(const std::function<Status(std::string_view)>& write) {
  if (!head_drained_) {
    if (!head_in_text_) RETURN_IF_ERROR(write(Head()));  // else the first block starts with it
    head_drained_ = true;
    head_in_text_ = 0;
  }
  for (const std::string& block : text_) {
    if (!block.empty()) RETURN_IF_ERROR(write(block));
  }
  // Keep the roomiest block for what follows.
  std::swap(text_.front(), *std::max_element(text_.begin(), text_.end(), [](const std::string& a, const std::string& b) {
    return a.capacity() < b.capacity();
  }));
  text_.resize(1);
  text_.front().clear();  // keeps its capacity: the next entries reuse the same pages
  return Status::Ok();
}

void CardBuilder::FlushAll() const {
  for (size_t i = flushed_; i < calls_.size(); ++i) Presented(i);  // calls left without a result
  FlushPresented();
}

void CardBuilder::Append(CardBuilder&& later) {
  if (keep_ == Keep::kText) {
    FlushAll();
    later.FlushAll();
    // later's blocks read as one text, which follows this one's after a comma.
    // They are moved, not copied: DrainText() writes them as they are, and
    // FinishText() joins them in the first block when it has the room.
    if (later.head_in_text_) later.text_[0].erase(0, later.head_in_text_);  // one head is enough
    if (later.text_size()) {
      if (flushed_) BlockFor(0);
      for (std::string& block : later.text_) {
        if (!block.empty()) text_.push_back(std::move(block));
      }
    }
    later.text_.assign(1, std::string());
  }
  calls_.insert(calls_.end(), std::make_move_iterator(later.calls_.begin()),
                std::make_move_iterator(later.calls_.end()));
  later.calls_.clear();
  if (keep_ == Keep::kText) flushed_ = calls_.size();
  results_without_call_ += later.results_without_call_;
}

std::optional<CardBuilder> CardsInPieces(const presenters::PresenterSet& presenters, const std::string& session_id,
                                         const std::vector<uint64_t>& piece_bytes, const PieceReader& read) {
  std::vector<CardBuilder> builders;
  std::vector<PieceSink> sinks;
  builders.reserve(piece_bytes.size());  // the sinks hold addresses of the builders
  uint64_t log_bytes = 0;
  for (uint64_t bytes : piece_bytes) log_bytes += bytes;
  for (uint64_t bytes : piece_bytes) {
    // Only the first piece's cards begin the document, so only its builder writes the head.
    CardBuilder& builder =
        builders.emplace_back(builders.empty() ? session_id : std::string(), presenters, CardBuilder::Keep::kText);
    builder.ReserveText(CardsSizeHint(builders.size() == 1 ? log_bytes : bytes));
    sinks.push_back([&builder](log::Event&& e) {
      builder.Add(std::move(e));
      return Status::Ok();
    });
  }
  std::optional<std::string> read_id = read(sinks);
  if (!read_id) return std::nullopt;
  for (size_t i = 1; i < builders.size(); ++i) {
    if (builders[i].results_without_call()) return std::nullopt;
    builders[0].Append(std::move(builders[i]));
  }
  if (*read_id != session_id) builders[0].set_session_id(std::move(*read_id));
  return std::move(builders[0]);
}

std::string CardBuilder::FinishText() {
  if (keep_ == Keep::kText) FlushAll();  // may write the first card, and with it the head
  const std::string head = head_drained_ || head_in_text_ ? "" : Head();
  if (keep_ == Keep::kText) {
    const size_t size = head.size() + text_size() + 3;  // room for "]}\n": callers end the document with a newline
    std::string out;
    if (text_.front().capacity() >= size) {  // reserved big enough: the rest joins it, the head goes in front
      out = std::move(text_.front());
      for (size_t i = 1; i < text_.size(); ++i) out += text_[i];
      if (!head.empty()) out.insert(0, head);
    } else {
      base::ReserveLarge(out, size);
      out += head;
      for (const std::string& block : text_) out += block;
    }
    text_.assign(1, std::string());
    head_in_text_ = 0;
    out += "]}";
    return out;
  }
  std::string out = head;
  for (size_t i = 0; i < calls_.size(); ++i) {
    if (i) out += ',';
    AppendEntry(out, Presented(i));
  }
  out += "]}";
  return out;
}

}  // namespace retrace::replay
