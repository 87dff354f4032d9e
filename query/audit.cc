#include "query/audit.h"

#include <algorithm>

#include "store/event_id.h"

namespace retrace::query {
namespace {

// A report: its SQL with a "{where}" placeholder, and the columns the
// filters apply to (empty: the filter is refused for this report).
struct Report {
  std::string name;
  std::string sql;
  std::string session_col, tool_col, time_col, outcome_col;
};

const std::vector<Report>& Reports() {
  static const std::vector<Report> reports = {
      {"tools",
       "WITH c AS MATERIALIZED (SELECT tool_name, outcome, error_code, duration_ms FROM v_tool_calls WHERE {where}),"
       " d AS MATERIALIZED (SELECT tool_name, duration_ms,"
       "   ROW_NUMBER() OVER (PARTITION BY tool_name ORDER BY duration_ms) AS r,"
       "   COUNT(*) OVER (PARTITION BY tool_name) AS n FROM c WHERE duration_ms IS NOT NULL),"
       " codes AS MATERIALIZED (SELECT tool_name, group_concat(code || ' ' || k, ', ') AS error_codes FROM"
       "   (SELECT tool_name, COALESCE(error_code, outcome) AS code, COUNT(*) AS k FROM c WHERE outcome <> 'ok'"
       "    GROUP BY 1, 2 ORDER BY 1, 3 DESC, 2) GROUP BY tool_name)"
       " SELECT c.tool_name AS tool, COUNT(*) AS calls, SUM(c.outcome <> 'ok') AS errors,"
       "   (SELECT error_codes FROM codes WHERE codes.tool_name IS c.tool_name) AS error_codes,"
       "   (SELECT duration_ms FROM d WHERE d.tool_name IS c.tool_name AND d.r = (d.n * 50 + 99) / 100) AS p50_ms,"
       "   (SELECT duration_ms FROM d WHERE d.tool_name IS c.tool_name AND d.r = (d.n * 95 + 99) / 100) AS p95_ms"
       " FROM c GROUP BY c.tool_name ORDER BY calls DESC, tool",
       "session_id", "tool_name", "COALESCE(call_time, result_time)", "outcome"},
      {"failures",
       "SELECT session_id AS session, call_id, tool_name AS tool, outcome, error_code, error_text, call_seq,"
       " result_seq, duration_ms, parent_call_id AS parent FROM v_tool_calls WHERE outcome <> 'ok' AND {where}"
       " ORDER BY session_id, COALESCE(call_seq, result_seq, requested_seq)",
       "session_id", "tool_name", "COALESCE(call_time, result_time)", "outcome"},
      {"injections",
       "SELECT session_id AS session, message_id, plugin, form, summary, target, state, pending_seq, claimed_seq"
       " FROM v_injections WHERE {where} ORDER BY session_id, COALESCE(pending_seq, claimed_seq)",
       "session_id", "", "COALESCE(pending_time, claimed_time)", ""},
      {"sessions",
       "SELECT s.session_id AS session, s.created_at,"
       " (SELECT e.seq + e.count FROM events e WHERE " + store::SessionRangeSql("e.event_id", "s.id") +
       "  ORDER BY e.event_id DESC LIMIT 1) AS events,"
       " (SELECT COUNT(*) FROM turns t WHERE t.session = s.id) AS turns,"
       " (SELECT COUNT(*) FROM tool_calls c WHERE c.session = s.id) AS tool_calls,"
       " (SELECT COUNT(*) FROM tool_calls c WHERE c.session = s.id AND c.outcome <> 'ok') AS failed_calls,"
       " (SELECT COUNT(*) FROM injections i WHERE i.session = s.id) AS injections,"
       " (SELECT SUM(p.input_tokens) FROM steps p WHERE p.session = s.id) AS input_tokens,"
       " (SELECT SUM(p.output_tokens) FROM steps p WHERE p.session = s.id) AS output_tokens,"
       " s.cwd FROM sessions s WHERE {where} ORDER BY s.created_at DESC, s.session_id",
       "s.session_id", "", "s.created_at", ""},
      {"turns",
       "SELECT session_id AS session, turn, reason, steps, tool_calls, input_tokens, output_tokens, duration_ms,"
       " error_text, start_seq, end_seq FROM v_turns WHERE {where} ORDER BY session_id, turn",
       "session_id", "", "start_time", ""},
  };
  return reports;
}

}  // namespace

const std::vector<std::string>& AuditReports() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const Report& r : Reports()) n.push_back(r.name);
    return n;
  }();
  return names;
}

const std::vector<std::string>& CallOutcomes() {
  static const std::vector<std::string> outcomes = {"ok",          "error",           "plain-error",   "aborted",
                                                    "not-started", "outcome-unknown", "missing-result"};
  return outcomes;
}

Result<QueryTable> RunAudit(ReadOnlyDb& db, const std::string& name, const AuditFilters& f,
                            const std::function<bool()>& interrupt) {
  auto report = std::find_if(Reports().begin(), Reports().end(), [&](const Report& r) { return r.name == name; });
  if (report == Reports().end()) return Status::InvalidArgument("unknown audit report \"" + name + "\"");
  std::vector<std::string> where;
  std::vector<store::SqlValue> params;
  auto add = [&](const std::string& column, const char* filter, store::SqlValue value, const char* op) -> Status {
    if (column.empty()) return Status::InvalidArgument("the " + name + " report has no " + filter + " to filter on");
    params.push_back(std::move(value));
    where.push_back(column + " " + op + " ?" + std::to_string(params.size()));
    return Status::Ok();
  };
  if (f.session) RETURN_IF_ERROR(add(report->session_col, "session", *f.session, "="));
  if (f.tool) RETURN_IF_ERROR(add(report->tool_col, "tool", *f.tool, "="));
  if (f.since_ms) RETURN_IF_ERROR(add(report->time_col, "time", *f.since_ms, ">="));
  if (f.until_ms) RETURN_IF_ERROR(add(report->time_col, "time", *f.until_ms, "<="));
  if (f.outcome) {
    if (std::find(CallOutcomes().begin(), CallOutcomes().end(), *f.outcome) == CallOutcomes().end()) {
      return Status::InvalidArgument("unknown outcome \"" + *f.outcome + "\"");
    }
    RETURN_IF_ERROR(add(report->outcome_col, "outcome", *f.outcome, "="));
  }
  std::string clause;
  for (const std::string& w : where) clause += (clause.empty() ? "" : " AND ") + w;
  std::string sql = report->sql;
  sql.replace(sql.find("{where}"), 7, clause.empty() ? "1" : clause);
  return db.Run(sql, params, interrupt);
}

}  // namespace retrace::query
