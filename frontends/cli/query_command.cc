// retrace query "SELECT ..." [--timeout S] [--json|--csv]
#include <chrono>

#include "frontends/cli/command.h"
#include "frontends/cli/exit_codes.h"
#include "frontends/cli/query_output.h"
#include "service/reports.h"

namespace retrace::cli {

// Polls the clock for a read-only query's time limit (only frontends/cli/ reads clocks).
std::function<bool()> Deadline(double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  return [end] { return std::chrono::steady_clock::now() > end; };
}

namespace {

struct Args {
  std::string sql;
  double timeout = 10;
  bool json = false, csv = false;
};

int Run(const Context& ctx, const Args& a) {
  auto table = service::RunQuery(ctx.catalog(), a.sql, Deadline(a.timeout));
  if (!table.ok()) return ctx.Fail(table.status());
  std::fputs(FormatTable(*table, ChosenFormat(a.json, a.csv)).c_str(), ctx.out);
  return kExitOk;
}

}  // namespace

Command QueryCommand() {
  return {"query", "Run one read-only SQL statement over the documented views (docs/AUDIT.md)",
          [](Options sub, Context& ctx) -> Handler {
            auto a = std::make_shared<Args>();
            sub.Add("sql", a->sql, "One SELECT statement, e.g. \"SELECT tool_name, COUNT(*) FROM v_tool_calls GROUP BY 1\"")
                .Required();
            sub.Add("--timeout", a->timeout, "Interrupt the query after this many seconds (default 10)")
                .Positive();
            AddOutputFlags(sub, a->json, a->csv);
            sub.Footer(
                "The database is opened read-only, and writes, schema changes, ATTACH, setting PRAGMAs and\n"
                "load_extension() are refused. Views: v_sessions, v_events, v_tool_calls, v_turns, v_steps,\n"
                "v_injections, v_replacements, v_retries, v_search_docs (columns in docs/AUDIT.md).");
            return [&ctx, a] { return Run(ctx, *a); };
          }};
}

}  // namespace retrace::cli
