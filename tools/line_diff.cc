#include "tools/line_diff.h"

#include <optional>

namespace retrace::tools {
namespace {

// One run of the edit script: `count` tokens kept, added or removed.
struct Component {
  int64_t count;
  bool added, removed;
  int64_t previous;  // index into the component pool, -1 for none
};

struct Path {
  int64_t old_pos;
  int64_t last;  // component index, -1 for none
};

// jsdiff's Diff.diffWithOptionsObj: the shortest edit script, explored
// diagonal by diagonal in jsdiff's order, so ties break exactly as there.
std::vector<Component> Diff(const std::vector<std::string>& old_tokens, const std::vector<std::string>& new_tokens) {
  const int64_t old_len = static_cast<int64_t>(old_tokens.size()), new_len = static_cast<int64_t>(new_tokens.size());
  std::vector<Component> pool;
  auto add_to_path = [&](const Path& path, bool added, bool removed, int64_t old_inc) {
    const int64_t last = path.last;
    if (last >= 0 && pool[last].added == added && pool[last].removed == removed) {
      pool.push_back({pool[last].count + 1, added, removed, pool[last].previous});
    } else {
      pool.push_back({1, added, removed, last});
    }
    return Path{path.old_pos + old_inc, static_cast<int64_t>(pool.size()) - 1};
  };
  auto extract_common = [&](Path& path, int64_t diagonal) {
    int64_t old_pos = path.old_pos, new_pos = old_pos - diagonal, common = 0;
    while (new_pos + 1 < new_len && old_pos + 1 < old_len && old_tokens[old_pos + 1] == new_tokens[new_pos + 1]) {
      ++new_pos, ++old_pos, ++common;
    }
    if (common) {
      pool.push_back({common, false, false, path.last});
      path.last = static_cast<int64_t>(pool.size()) - 1;
    }
    path.old_pos = old_pos;
    return new_pos;
  };
  auto build = [&](int64_t last) {
    std::vector<Component> out;
    for (int64_t c = last; c >= 0; c = pool[c].previous) out.push_back(pool[c]);
    return std::vector<Component>(out.rbegin(), out.rend());
  };

  const int64_t max_edit = new_len + old_len;
  const int64_t offset = max_edit + 1;  // diagonals run from -max_edit-1 to max_edit+1
  std::vector<std::optional<Path>> best(static_cast<size_t>(2 * offset + 1));
  auto at = [&](int64_t diagonal) -> std::optional<Path>& { return best[static_cast<size_t>(diagonal + offset)]; };

  Path first{-1, -1};
  int64_t new_pos = extract_common(first, 0);
  at(0) = first;
  if (first.old_pos + 1 >= old_len && new_pos + 1 >= new_len) return build(first.last);
  int64_t min_diag = INT64_MIN / 2, max_diag = INT64_MAX / 2;
  for (int64_t edit = 1; edit <= max_edit; ++edit) {
    for (int64_t d = std::max(min_diag, -edit); d <= std::min(max_diag, edit); d += 2) {
      std::optional<Path> remove_path = at(d - 1), add_path = at(d + 1);
      if (remove_path) at(d - 1).reset();
      bool can_add = false;
      if (add_path) {
        const int64_t add_new_pos = add_path->old_pos - d;
        can_add = 0 <= add_new_pos && add_new_pos < new_len;
      }
      const bool can_remove = remove_path && remove_path->old_pos + 1 < old_len;
      if (!can_add && !can_remove) {
        at(d).reset();
        continue;
      }
      Path base = (!can_remove || (can_add && remove_path->old_pos < add_path->old_pos))
                      ? add_to_path(*add_path, true, false, 0)
                      : add_to_path(*remove_path, false, true, 1);
      new_pos = extract_common(base, d);
      if (base.old_pos + 1 >= old_len && new_pos + 1 >= new_len) return build(base.last);
      at(d) = base;
      if (base.old_pos + 1 >= old_len) max_diag = std::min(max_diag, d - 1);
      if (new_pos + 1 >= new_len) min_diag = std::max(min_diag, d + 1);
    }
  }
  return {};  // unreachable: an edit script of length max_edit always exists
}

}  // namespace

std::vector<std::string> LineTokens(std::string_view text) {
  // value.split(/(\n|\r\n)/), the final empty piece dropped, separators glued to their lines.
  std::vector<std::string> tokens;
  size_t start = 0;
  while (start < text.size()) {
    const size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) {
      tokens.emplace_back(text.substr(start));
      break;
    }
    tokens.emplace_back(text.substr(start, nl + 1 - start));
    start = nl + 1;
  }
  return tokens;
}

json::Value ComputeHunkDiffs(const std::string& path, std::string_view before, std::string_view after) {
  const std::vector<std::string> old_tokens = LineTokens(before), new_tokens = LineTokens(after);
  const std::vector<Component> script = Diff(old_tokens, new_tokens);

  // structuredPatch's grouping (context 3): each component's lines, then hunks.
  struct Change {
    bool added = false, removed = false;
    std::vector<std::string> lines;
  };
  std::vector<Change> diff;
  size_t old_pos = 0, new_pos = 0;  // jsdiff's buildValues
  for (const Component& c : script) {
    Change ch{c.added, c.removed, {}};
    const auto count = static_cast<size_t>(c.count);
    if (c.removed) {
      ch.lines.assign(old_tokens.begin() + static_cast<ptrdiff_t>(old_pos), old_tokens.begin() + static_cast<ptrdiff_t>(old_pos + count));
      old_pos += count;
    } else {
      ch.lines.assign(new_tokens.begin() + static_cast<ptrdiff_t>(new_pos), new_tokens.begin() + static_cast<ptrdiff_t>(new_pos + count));
      new_pos += count;
      if (!c.added) old_pos += count;
    }
    diff.push_back(std::move(ch));
  }
  diff.push_back(Change{});  // jsdiff's trailing empty value, to close the last hunk

  constexpr size_t kContext = 3;
  std::vector<std::vector<std::string>> hunks;
  std::vector<std::string> current;
  bool open = false;
  for (size_t i = 0; i < diff.size(); ++i) {
    const Change& ch = diff[i];
    if (ch.added || ch.removed) {
      if (!open) {
        open = true;
        current.clear();
        if (i > 0) {
          const auto& prev = diff[i - 1].lines;
          for (size_t k = prev.size() > kContext ? prev.size() - kContext : 0; k < prev.size(); ++k) current.push_back(" " + prev[k]);
        }
      }
      for (const std::string& line : ch.lines) current.push_back((ch.added ? "+" : "-") + line);
    } else if (open) {
      if (ch.lines.size() <= kContext * 2 && i + 2 < diff.size()) {
        for (const std::string& line : ch.lines) current.push_back(" " + line);
      } else {
        const size_t n = std::min(ch.lines.size(), kContext);
        for (size_t k = 0; k < n; ++k) current.push_back(" " + ch.lines[k]);
        hunks.push_back(std::move(current));
        current.clear();
        open = false;
      }
    }
  }

  json::Value::Array diffs;
  for (const std::vector<std::string>& hunk : hunks) {
    std::vector<std::string> old_lines, new_lines;
    for (std::string line : hunk) {
      // A line without its newline is the file's last; jsdiff marks it with
      // "\ No newline at end of file", which computeHunkDiffs skips.
      if (!line.empty() && line.back() == '\n') line.pop_back();
      const std::string text = line.substr(1);
      if (line[0] == '-') {
        old_lines.push_back(text);
      } else if (line[0] == '+') {
        new_lines.push_back(text);
      } else {
        old_lines.push_back(text);
        new_lines.push_back(text);
      }
    }
    auto join = [](const std::vector<std::string>& lines) {
      std::string out;
      for (size_t k = 0; k < lines.size(); ++k) out += (k ? "\n" : "") + lines[k];
      return out;
    };
    diffs.push_back(json::Value::MakeObject({{"path", path},
                                             {"oldText", old_lines.empty() ? json::Value() : json::Value(join(old_lines))},
                                             {"newText", join(new_lines)}}));
  }
  return json::Value(std::move(diffs));
}

}  // namespace retrace::tools
