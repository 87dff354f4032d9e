// SurfaceFold: the canonical replay rule for the model-visible surface
// (dsh-session-log §11.1).
//
// The surface is an ordered list of seqs of message-producing events. `append`
// pushes; `{op:'replace', start, end}` swaps the positional run of current nodes
// from `start` to `end` for the new event. Shadowed seqs stay in the log.
#ifndef RETRACE_ENGINE_LOG_SURFACE_FOLD_H_
#define RETRACE_ENGINE_LOG_SURFACE_FOLD_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <retrace/engine/base/status.h>
#include <retrace/engine/log/event.h>

namespace retrace::log {

enum class SurfaceClass { kCurrent, kShadowed, kLogOnly };

class SurfaceFold {
 public:
  // Applies one event (REQUIRES: envelope rules hold; events in seq order).
  // Refuses a replace whose range is not on the current surface, whose
  // sources miss a shadowed seq, or a tool/result replace that is not a
  // content-only rewrite of exactly one tool/result. For that last check the
  // fold keeps a fingerprint of each current tool/result's data without its
  // content (never the events themselves: memory stays small).
  Status Apply(const Event& event);

  // The message id of a current tool/result node, or nullptr.
  const std::string* ToolResultMessageId(int64_t seq) const;

  // Savepoint: Rollback() restores the state of the last Mark(). Cheap: an
  // append is undone by truncation; the nodes are copied only if a replace
  // happens after the mark.
  void Mark();
  void Rollback();

  const std::vector<int64_t>& nodes() const { return nodes_; }
  int64_t replace_generation() const { return generation_; }
  SurfaceClass Classify(int64_t seq) const;

 private:
  struct ToolResultNode {
    uint64_t fingerprint[2];  // of data without message.content[0].content
    std::string message_id;
  };
  // Sets (or with nullopt removes) a tool/result node, journaling the prior value for Rollback().
  void SetToolResult(int64_t seq, std::optional<ToolResultNode> node);

  std::vector<int64_t> nodes_;
  std::unordered_set<int64_t> shadowed_;
  std::unordered_map<int64_t, ToolResultNode> tool_results_;  // current tool/result nodes
  int64_t generation_ = 0;
  // Savepoint state.
  size_t mark_size_ = 0;
  int64_t mark_generation_ = 0;
  std::optional<std::vector<int64_t>> mark_nodes_;
  std::vector<int64_t> mark_shadowed_;
  std::vector<std::pair<int64_t, std::optional<ToolResultNode>>> mark_tool_results_;  // prior values
};

}  // namespace retrace::log

#endif  // RETRACE_ENGINE_LOG_SURFACE_FOLD_H_
