// Small pure formatting helpers for command output.
#ifndef RETRACE_CLI_FORMAT_H_
#define RETRACE_CLI_FORMAT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "engine/base/iso_time.h"  // IsoTime, for the commands
#include "engine/base/status.h"

namespace retrace::cli {

// Left-aligned columns separated by two spaces; the first row is the header.
std::string AlignedTable(const std::vector<std::vector<std::string>>& rows);

// A time given on the command line: Unix ms, or ISO 8601 UTC ("2026-11-30",
// "2026-11-30T06:00", "2026-11-30T06:00:00Z", with optional .mmm). With
// `end_of_day` a bare date means its last millisecond (for inclusive ends).
Result<int64_t> ParseTime(const std::string& text, bool end_of_day);

// "12.3 MB"
std::string HumanBytes(uint64_t bytes);

}  // namespace retrace::cli

#endif  // RETRACE_CLI_FORMAT_H_
