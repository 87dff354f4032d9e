// The canned audit reports of `retrace audit`: SQL over the documented views
// (docs/AUDIT.md), run read-only, with the same filters for every report.
#ifndef RETRACE_QUERY_AUDIT_H_
#define RETRACE_QUERY_AUDIT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "query/sql_query.h"

namespace retrace::query {

struct AuditFilters {
  std::optional<std::string> session;  // session id
  std::optional<std::string> tool;     // tool name
  std::optional<int64_t> since_ms;     // inclusive, on the row's time
  std::optional<int64_t> until_ms;     // inclusive
  std::optional<std::string> outcome;  // ok|error|plain-error|aborted|not-started|outcome-unknown|missing-result
};

// The report names, in `--help` order.
const std::vector<std::string>& AuditReports();

// Every outcome a tool call can have.
const std::vector<std::string>& CallOutcomes();

// Runs report `name`. Filters a report has no column for are refused by name.
Result<QueryTable> RunAudit(ReadOnlyDb& db, const std::string& name, const AuditFilters& filters,
                            const std::function<bool()>& interrupt = {});

}  // namespace retrace::query

#endif  // RETRACE_QUERY_AUDIT_H_
