#include "engine/base/iso_time.h"

#include <cstdio>
#include <ctime>

namespace retrace {

std::string IsoTime(int64_t ms) {
  const int64_t secs = ms >= 0 ? ms / 1000 : (ms - 999) / 1000;
  const time_t t = static_cast<time_t>(secs);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms - secs * 1000));
  return buf;
}

}  // namespace retrace
