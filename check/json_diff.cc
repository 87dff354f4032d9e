#include "check/json_diff.h"

#include "engine/json/writer.h"

namespace retrace::check {
namespace {

using json::Value;

constexpr size_t kShown = 120;

std::string Shown(const Value& v) {
  std::string s = json::Serialize(v);
  if (s.size() > kShown) {
    size_t end = kShown;
    while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
    s = s.substr(0, end) + "…";
  }
  return s;
}

// JSON Pointer escaping of one path segment.
std::string Segment(const std::string& key) {
  std::string out;
  for (char c : key) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
  return out;
}

std::optional<JsonDifference> Diff(const Value& a, const Value& b, const std::string& path) {
  auto here = [&] { return JsonDifference{path, Shown(a), Shown(b)}; };
  if (a.kind() != b.kind()) return here();
  if (a.is_array()) {
    const auto& x = a.as_array();
    const auto& y = b.as_array();
    for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
      if (auto d = Diff(x[i], y[i], path + "/" + std::to_string(i))) return d;
    }
    if (x.size() != y.size()) {
      const size_t i = std::min(x.size(), y.size());
      return JsonDifference{path + "/" + std::to_string(i), i < x.size() ? Shown(x[i]) : "(absent)",
                            i < y.size() ? Shown(y[i]) : "(absent)"};
    }
    return std::nullopt;
  }
  if (a.is_object()) {
    const auto& x = a.as_object();
    const auto& y = b.as_object();
    for (size_t i = 0; i < x.size() || i < y.size(); ++i) {
      if (i >= x.size()) return JsonDifference{path + "/" + Segment(y[i].first), "(absent)", Shown(y[i].second)};
      if (i >= y.size()) return JsonDifference{path + "/" + Segment(x[i].first), Shown(x[i].second), "(absent)"};
      if (x[i].first != y[i].first) {  // a key missing, added or moved
        return JsonDifference{path + "/" + Segment(x[i].first), "key \"" + x[i].first + "\"", "key \"" + y[i].first + "\""};
      }
      if (auto d = Diff(x[i].second, y[i].second, path + "/" + Segment(x[i].first))) return d;
    }
    return std::nullopt;
  }
  return json::Serialize(a) == json::Serialize(b) ? std::nullopt : std::optional<JsonDifference>(here());
}

}  // namespace

std::optional<JsonDifference> FirstDifference(const Value& expected, const Value& actual) {
  if (expected == actual) return std::nullopt;  // equal values write the same text: the common case, without paths
  return Diff(expected, actual, "");
}

}  // namespace retrace::check
