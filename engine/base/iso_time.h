// ISO 8601 UTC text of a Unix-ms time, as JavaScript's Date#toISOString
// writes it: "2026-11-30T02:40:57.123Z". Pure (no clock, no time zone).
#ifndef RETRACE_ENGINE_BASE_ISO_TIME_H_
#define RETRACE_ENGINE_BASE_ISO_TIME_H_

#include <cstdint>
#include <string>

namespace retrace {

std::string IsoTime(int64_t ms);

}  // namespace retrace

#endif  // RETRACE_ENGINE_BASE_ISO_TIME_H_
