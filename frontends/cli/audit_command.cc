// retrace audit <report> [--session ID] [--tool NAME] [--since T] [--until T] [--outcome O] [--json|--csv]
#include "frontends/cli/command.h"
#include "frontends/cli/exit_codes.h"
#include "frontends/cli/format.h"
#include "frontends/cli/query_output.h"
#include "service/reports.h"

namespace retrace::cli {

std::function<bool()> Deadline(double seconds);  // query_command.cc

namespace {

struct Args {
  std::string report;
  std::string session, tool, since, until, outcome;
  bool json = false, csv = false;
};

Result<query::AuditFilters> Filters(const Args& a) {
  query::AuditFilters f;
  if (!a.session.empty()) f.session = a.session;
  if (!a.tool.empty()) f.tool = a.tool;
  if (!a.outcome.empty()) f.outcome = a.outcome;
  if (!a.since.empty()) {
    ASSIGN_OR_RETURN(int64_t ms, ParseTime(a.since, /*end_of_day=*/false));
    f.since_ms = ms;
  }
  if (!a.until.empty()) {
    ASSIGN_OR_RETURN(int64_t ms, ParseTime(a.until, /*end_of_day=*/true));
    f.until_ms = ms;
  }
  return f;
}

int Run(const Context& ctx, const Args& a) {
  auto filters = Filters(a);
  if (!filters.ok()) return ctx.Fail(filters.status());
  auto table = service::RunAudit(ctx.catalog(), a.report, *filters, Deadline(60));
  if (!table.ok()) return ctx.Fail(table.status());
  std::fputs(FormatTable(*table, ChosenFormat(a.json, a.csv)).c_str(), ctx.out);
  return kExitOk;
}

std::string Join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

}  // namespace

Command AuditCommand() {
  return {"audit", "Canned reports over stored sessions: tools, failures, injections, sessions, turns",
          [](Options sub, Context& ctx) -> Handler {
            auto a = std::make_shared<Args>();
            sub.Add("report", a->report, "Which report").Required().OneOf(query::AuditReports());
            sub.Add("--session", a->session, "Only this session");
            sub.Add("--tool", a->tool, "Only calls of this tool (tools, failures)");
            sub.Add("--since", a->since, "From this time: Unix ms, 2026-11-30 or 2026-11-30T06:00:00Z");
            sub.Add("--until", a->until, "Up to this time, inclusive (a date means its whole day)");
            sub.Add("--outcome", a->outcome, "Only calls with this outcome (tools, failures)")
                .OneOf(query::CallOutcomes());
            AddOutputFlags(sub, a->json, a->csv);
            sub.Footer(
                "Reports:\n"
                "  tools       per tool: calls, errors (every outcome but ok), error codes, p50/p95 duration (ms)\n"
                "  failures    every call whose outcome is not ok, with its error code and text\n"
                "  injections  injected context: plugin, form, summary, pending or claimed\n"
                "  sessions    per session: events, turns, tool calls, failed calls, injections, tokens\n"
                "  turns       per turn: end reason, steps, tool calls, tokens, duration\n"
                "Outcomes: " + Join(query::CallOutcomes(), ", ") + ".\n"
                "Times filter on the call's start (tools, failures), the injection, the session's creation\n"
                "or the turn's start. For ad hoc questions use `retrace query`.");
            return [&ctx, a] { return Run(ctx, *a); };
          }};
}

}  // namespace retrace::cli
