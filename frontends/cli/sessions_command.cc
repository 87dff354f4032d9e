// retrace sessions [--json]
#include <filesystem>
#include <limits>

#include "frontends/cli/command.h"
#include "frontends/cli/exit_codes.h"
#include "frontends/cli/format.h"
#include "engine/json/writer.h"

namespace retrace::cli {
namespace {

int Run(const Context& ctx, bool as_json) {
  if (!std::filesystem::exists(ctx.db_path)) return ctx.Fail(Status::NotFound("no database at " + ctx.db_path));
  service::SessionQuery every;
  every.limit = std::numeric_limits<size_t>::max();
  auto page = ctx.catalog().List(every);
  if (!page.ok()) return ctx.Fail(page.status());
  const std::vector<service::SessionListing>* sessions = &page->sessions;
  if (as_json) {
    json::Value::Array all;
    for (const auto& s : *sessions) all.push_back(service::SessionJson(s));
    std::fprintf(ctx.out, "%s\n", json::Serialize(json::Value(std::move(all))).c_str());
    return kExitOk;
  }
  if (sessions->empty()) {
    std::fprintf(ctx.err, "no sessions in %s (import some with 'retrace import <file|dir>')\n", ctx.db_path.c_str());
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows = {{"SESSION", "CREATED", "EVENTS", "TURNS", "TOOL CALLS", "CWD", "TITLE"}};
  for (const auto& [s, title] : *sessions) {
    rows.push_back({s.id, IsoTime(s.created_at), std::to_string(s.events), std::to_string(s.turns),
                    std::to_string(s.tool_calls), s.cwd.value_or("-"), title.value_or("-")});
  }
  std::fputs(AlignedTable(rows).c_str(), ctx.out);
  return kExitOk;
}

}  // namespace

Command SessionsCommand() {
  return {"sessions", "List stored sessions with their event, turn and tool-call counts, cwd and title",
          [](Options sub, Context& ctx) -> Handler {
            auto as_json = std::make_shared<bool>(false);
            sub.Flag("--json", *as_json, "Print a JSON array instead of a table");
            return [&ctx, as_json] { return Run(ctx, *as_json); };
          }};
}

}  // namespace retrace::cli
