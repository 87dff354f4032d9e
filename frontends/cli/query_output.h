// Writes a query's rows as an aligned table (for people), JSON (an array of
// objects, for programs) or CSV (RFC 4180, for spreadsheets). Shared by
// `retrace query` and `retrace audit`.
#ifndef RETRACE_CLI_QUERY_OUTPUT_H_
#define RETRACE_CLI_QUERY_OUTPUT_H_

#include <cstdio>
#include <string>

#include "frontends/cli/options.h"
#include "service/reports.h"

namespace retrace::cli {

enum class OutputFormat { kTable, kJson, kCsv };

// Adds --json and --csv to `sub`.
void AddOutputFlags(Options sub, bool& json, bool& csv);
OutputFormat ChosenFormat(bool json, bool csv);

// In the table, times (created_at, *_time) are ISO 8601 and long or
// multi-line text is cut to its first line; JSON and CSV keep every value whole.
std::string FormatTable(const query::QueryTable& table, OutputFormat format);

}  // namespace retrace::cli

#endif  // RETRACE_CLI_QUERY_OUTPUT_H_
