// Small pure formatting helpers for command output.
#ifndef RETRACE_CLI_FORMAT_H_
#define RETRACE_CLI_FORMAT_H_

#include <cstdint>
#include <string>
#include <vector>

namespace retrace::cli {

// "2026-11-30T02:40:57.123Z" for a Unix-ms time.
std::string IsoTime(int64_t ms);

// Left-aligned columns separated by two spaces; the first row is the header.
std::string AlignedTable(const std::vector<std::vector<std::string>>& rows);

// "12.3 MB"
std::string HumanBytes(uint64_t bytes);

}  // namespace retrace::cli

#endif  // RETRACE_CLI_FORMAT_H_
