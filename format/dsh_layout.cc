#include "format/dsh_layout.h"

#include <cstdio>
#include <vector>

namespace retrace::format {
namespace {

// UTF-16 code units of a WTF-8 string.
std::vector<uint16_t> CodeUnits(std::string_view s) {
  std::vector<uint16_t> units;
  for (size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    uint32_t cp = b;
    size_t n = 1;
    if (b >= 0xF0) {
      cp = b & 0x07, n = 4;
    } else if (b >= 0xE0) {
      cp = b & 0x0F, n = 3;
    } else if (b >= 0xC0) {
      cp = b & 0x1F, n = 2;
    }
    for (size_t k = 1; k < n && i + k < s.size(); ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    i += n;
    if (cp >= 0x10000) {
      cp -= 0x10000;
      units.push_back(static_cast<uint16_t>(0xD800 + (cp >> 10)));
      units.push_back(static_cast<uint16_t>(0xDC00 + (cp & 0x3FF)));
    } else {
      units.push_back(static_cast<uint16_t>(cp));
    }
  }
  return units;
}

bool IsSafe(uint16_t u) {
  return (u >= 'A' && u <= 'Z') || (u >= 'a' && u <= 'z') || (u >= '0' && u <= '9') || u == '.' || u == '_' || u == '-';
}

void AppendEscape(std::string& out, uint16_t u) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "~%04X", u);
  out += buf;
}

}  // namespace

std::string EncodeSegment(std::string_view id) {
  if (id == ".") return "~002E";
  if (id == "..") return "~002E~002E";
  std::string out;
  for (uint16_t u : CodeUnits(id)) {
    if (IsSafe(u)) {
      out += static_cast<char>(u);
    } else {
      AppendEscape(out, u);
    }
  }
  return out;
}

std::string ProjectKey(std::string_view cwd) {
  std::string readable;
  bool separator_run = false;
  for (uint16_t u : CodeUnits(cwd)) {
    if (u == '/' || u == '\\' || u == ':') {
      if (!separator_run) readable += '-';
      separator_run = true;
      continue;
    }
    separator_run = false;
    if (IsSafe(u)) {
      readable += static_cast<char>(u);
    } else {
      AppendEscape(readable, u);
    }
  }
  const size_t start = readable.find_first_not_of('-');
  std::string key = start == std::string::npos ? "" : readable.substr(start);
  if (key.empty()) key = "root";
  return "--" + key.substr(0, 251) + "--";
}

Result<std::string> DshLogPath(std::string_view session_id, const std::optional<std::string>& cwd, bool zstd) {
  if (session_id.empty()) return Status::InvalidArgument("cannot encode an empty session id");
  if (cwd && cwd->empty()) return Status::InvalidArgument("cannot encode an empty project path");
  const std::string project = cwd ? ProjectKey(*cwd) : std::string("_no-cwd");
  return project + "/" + EncodeSegment(session_id) + (zstd ? "/session.jsonl.zstd" : "/session.jsonl");
}

}  // namespace retrace::format
