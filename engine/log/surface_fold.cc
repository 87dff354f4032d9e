#include "engine/log/surface_fold.h"

#include <algorithm>
#include <string>

#include "engine/json/value.h"
#include "engine/json/writer.h"
#include "engine/log/event_types.h"

namespace retrace::log {
namespace {

using json::Value;

// Appends `object`'s JSON text without its member `skip` (none when empty),
// each other member's value written by `write`.
template <typename Write>
void AppendObjectWithout(std::string& out, const Value& object, std::string_view skip, Write write) {
  out.push_back('{');
  bool first = true;
  for (const auto& [key, value] : object.as_object()) {
    if (!skip.empty() && key == skip) continue;
    if (!first) out.push_back(',');
    first = false;
    json::AppendQuoted(out, key);
    out.push_back(':');
    write(key, value);
  }
  out.push_back('}');
}

// The JSON text of `data` with message.content[0].content left out: what a
// content-only rewrite keeps. Written from the tree as it stands (no copy of
// it), skipping that (possibly large) content.
void AppendWithoutResultContent(std::string& out, const Value& data) {
  if (!data.is_object()) return json::AppendSerialized(out, data);
  AppendObjectWithout(out, data, "", [&](const std::string& key, const Value& message) {
    if (key != "message" || !message.is_object()) return json::AppendSerialized(out, message);
    AppendObjectWithout(out, message, "", [&](const std::string& mkey, const Value& content) {
      if (mkey != "content" || !content.is_array() || content.as_array().empty()) {
        return json::AppendSerialized(out, content);
      }
      out.push_back('[');
      const Value::Array& blocks = content.as_array();
      for (size_t i = 0; i < blocks.size(); ++i) {
        if (i > 0) out.push_back(',');
        if (i == 0 && blocks[i].is_object()) {
          AppendObjectWithout(out, blocks[i], "content",
                              [&](const std::string&, const Value& v) { json::AppendSerialized(out, v); });
        } else {
          json::AppendSerialized(out, blocks[i]);
        }
      }
      out.push_back(']');
    });
  });
}

// Two independent 64-bit hashes of the content-stripped data's JSON text.
void Fingerprint(const Value& data, uint64_t out[2]) {
  thread_local std::string text;  // keeps its capacity: one per tool/result otherwise
  text.clear();
  AppendWithoutResultContent(text, data);
  out[0] = std::hash<std::string>{}(text);
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ULL;
  out[1] = h;
  constexpr size_t kKeep = size_t{1} << 20;
  if (text.capacity() > kKeep) std::string().swap(text);
}

std::string MessageIdOf(const Value& data) {
  const Value* m = data.Find("message");
  const Value* id = m != nullptr ? m->Find("id") : nullptr;
  return id != nullptr && id->is_string() ? id->as_string() : std::string();
}

}  // namespace

const std::string* SurfaceFold::ToolResultMessageId(int64_t seq) const {
  auto it = tool_results_.find(seq);
  return it == tool_results_.end() ? nullptr : &it->second.message_id;
}

void SurfaceFold::SetToolResult(int64_t seq, std::optional<ToolResultNode> node) {
  auto it = tool_results_.find(seq);
  mark_tool_results_.emplace_back(seq, it == tool_results_.end() ? std::nullopt : std::optional(it->second));
  if (node) {
    tool_results_[seq] = std::move(*node);
  } else if (it != tool_results_.end()) {
    tool_results_.erase(it);
  }
}

Status SurfaceFold::Apply(const Event& e) {
  if (!e.surface_op) return Status::Ok();
  std::optional<ToolResultNode> result_node;
  if (e.type == log::kToolResult) {
    result_node.emplace();
    Fingerprint(e.data, result_node->fingerprint);
    result_node->message_id = MessageIdOf(e.data);
  }
  if (e.surface_op->kind == SurfaceOp::Kind::kAppend) {
    nodes_.push_back(e.seq);
    if (result_node) SetToolResult(e.seq, std::move(result_node));
    return Status::Ok();
  }
  const std::string where = "surface replace at seq " + std::to_string(e.seq);
  const auto i = std::find(nodes_.begin(), nodes_.end(), e.surface_op->start);
  const auto j = std::find(nodes_.begin(), nodes_.end(), e.surface_op->end);
  if (i == nodes_.end() || j == nodes_.end()) {
    return Status::Corruption(where + ": range " + std::to_string(e.surface_op->start) + ".." +
                              std::to_string(e.surface_op->end) + " is not on the current surface");
  }
  if (i > j) return Status::Corruption(where + ": range start comes after its end on the surface");
  const std::vector<int64_t> shadowed(i, j + 1);
  const auto& sources = e.source_event_seqs ? *e.source_event_seqs : std::vector<int64_t>{};
  for (int64_t s : shadowed) {
    if (std::find(sources.begin(), sources.end(), s) == sources.end()) {
      return Status::Corruption(where + ": sourceEventSeqs must cite shadowed seq " + std::to_string(s));
    }
  }
  if (result_node) {
    auto old = shadowed.size() == 1 ? tool_results_.find(shadowed[0]) : tool_results_.end();
    if (old == tool_results_.end()) {
      return Status::Corruption(where + ": a tool/result may replace exactly one tool/result");
    }
    if (old->second.fingerprint[0] != result_node->fingerprint[0] ||
        old->second.fingerprint[1] != result_node->fingerprint[1]) {
      return Status::Corruption(where + ": a tool/result replacement may change only message.content[0].content");
    }
  }
  // Copy-on-write for Rollback(): until the first replace after Mark() only
  // appends happened, so the marked state is the first mark_size_ nodes.
  if (!mark_nodes_) mark_nodes_.emplace(nodes_.begin(), nodes_.begin() + static_cast<std::ptrdiff_t>(mark_size_));
  const auto pos = nodes_.erase(i, j + 1);
  nodes_.insert(pos, e.seq);
  for (int64_t s : shadowed) {
    if (shadowed_.insert(s).second) mark_shadowed_.push_back(s);
    if (tool_results_.count(s) != 0) SetToolResult(s, std::nullopt);
  }
  if (result_node) SetToolResult(e.seq, std::move(result_node));
  ++generation_;
  return Status::Ok();
}

void SurfaceFold::Mark() {
  mark_size_ = nodes_.size();
  mark_generation_ = generation_;
  mark_nodes_.reset();
  mark_shadowed_.clear();
  mark_tool_results_.clear();
}

void SurfaceFold::Rollback() {
  if (mark_nodes_) {
    nodes_ = std::move(*mark_nodes_);
  } else {
    nodes_.resize(mark_size_);
  }
  for (int64_t s : mark_shadowed_) shadowed_.erase(s);
  for (auto it = mark_tool_results_.rbegin(); it != mark_tool_results_.rend(); ++it) {
    if (it->second) {
      tool_results_[it->first] = std::move(*it->second);
    } else {
      tool_results_.erase(it->first);
    }
  }
  generation_ = mark_generation_;
  Mark();
}

SurfaceClass SurfaceFold::Classify(int64_t seq) const {
  if (shadowed_.count(seq) != 0) {
    // A shadowed replacement can never come back, but a seq is in at most one of the two.
    return SurfaceClass::kShadowed;
  }
  return std::find(nodes_.begin(), nodes_.end(), seq) != nodes_.end() ? SurfaceClass::kCurrent
                                                                       : SurfaceClass::kLogOnly;
}

}  // namespace retrace::log
