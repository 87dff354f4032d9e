#include "engine/base/lexical_path.h"

#include <vector>

namespace retrace {

std::string ResolveLexically(std::string_view base, std::string_view path) {
  std::string joined = !path.empty() && path[0] == '/' ? std::string(path) : std::string(base) + "/" + std::string(path);
  std::vector<std::string_view> parts;
  std::string_view rest = joined;
  while (!rest.empty()) {
    const size_t slash = rest.find('/');
    const std::string_view part = rest.substr(0, slash);
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(part);
  }
  std::string out;
  for (std::string_view part : parts) {
    out += '/';
    out += part;
  }
  return out.empty() ? "/" : out;
}

}  // namespace retrace
