#include "frontends/cli/format.h"

#include <algorithm>
#include <cstdio>
#include <ctime>

#include "engine/json/js_text.h"

namespace retrace::cli {

std::string AlignedTable(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width;
  for (const auto& row : rows) {
    width.resize(std::max(width.size(), row.size()));
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], json::Utf16Length(row[i]));
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line.append(width[i] - json::Utf16Length(row[i]) + 2, ' ');
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
  }
  return out;
}

Result<int64_t> ParseTime(const std::string& text, bool end_of_day) {
  if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos && text.size() <= 16) {
    return static_cast<int64_t>(std::stoll(text));
  }
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, ms = 0, used = 0;
  const int n = std::sscanf(text.c_str(), "%4d-%2d-%2d%n", &y, &mo, &d, &used);
  if (n < 3 || mo < 1 || mo > 12 || d < 1 || d > 31) {
    return Status::InvalidArgument("bad time \"" + text + "\": give Unix ms or an ISO date such as 2026-11-30T06:00:00Z");
  }
  std::string rest = text.substr(static_cast<size_t>(used));
  const bool date_only = rest.empty();
  if (!date_only) {
    int used2 = 0;
    if (std::sscanf(rest.c_str(), "T%2d:%2d%n", &h, &mi, &used2) < 2) return ParseTime("", false);
    rest = rest.substr(static_cast<size_t>(used2));
    if (!rest.empty() && rest[0] == ':') {
      if (std::sscanf(rest.c_str(), ":%2d%n", &s, &used2) < 1) return ParseTime("", false);
      rest = rest.substr(static_cast<size_t>(used2));
      if (!rest.empty() && rest[0] == '.') {
        if (std::sscanf(rest.c_str(), ".%3d%n", &ms, &used2) < 1) return ParseTime("", false);
        rest = rest.substr(static_cast<size_t>(used2));
      }
    }
    if (rest == "Z") rest.clear();
    if (!rest.empty() || h > 23 || mi > 59 || s > 60) {
      return Status::InvalidArgument("bad time \"" + text + "\": give Unix ms or an ISO date such as 2026-11-30T06:00:00Z");
    }
  }
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  const int64_t t = static_cast<int64_t>(timegm(&tm)) * 1000 + ms;
  return date_only && end_of_day ? t + 86400000 - 1 : t;
}

std::string HumanBytes(uint64_t bytes) {
  char buf[32];
  if (bytes < 1024) {
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  } else if (bytes < (1u << 20)) {
    std::snprintf(buf, sizeof buf, "%.1f KB", static_cast<double>(bytes) / 1024.0);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f MB", static_cast<double>(bytes) / 1048576.0);
  }
  return buf;
}

}  // namespace retrace::cli
