// retrace lineage <session> [--json]
#include "frontends/cli/command.h"
#include "frontends/cli/exit_codes.h"
#include "frontends/cli/format.h"
#include "engine/json/writer.h"
#include "service/inspect.h"

namespace retrace::cli {
namespace {

struct Args {
  std::string session;
  bool json = false;
};

std::string Line(const json::Value& record) {
  const json::Value& h = *record.Find("header");
  return h.Find("id")->as_string() + "  (created " + IsoTime(static_cast<int64_t>(h.Find("createdAt")->as_number())) + ")";
}

void PrintTree(const Context& ctx, const json::Value& nodes, const std::string& indent) {
  for (const json::Value& n : nodes.as_array()) {
    std::fprintf(ctx.out, "%s└ %s\n", indent.c_str(), Line(*n.Find("session")).c_str());
    PrintTree(ctx, *n.Find("descendants"), indent + "  ");
  }
}

int Run(const Context& ctx, const Args& a) {
  auto lineage = service::TraceLineage(ctx.catalog(), a.session);
  if (!lineage.ok()) return ctx.Fail(lineage.status());
  if (a.json) {
    std::fprintf(ctx.out, "%s\n", json::Serialize(*lineage).c_str());
    return kExitOk;
  }
  const auto& ancestors = lineage->Find("ancestors")->as_array();
  if (const json::Value* missing = lineage->Find("unresolvedParentId")) {
    std::fprintf(ctx.out, "(parent %s is not in this database)\n", missing->as_string().c_str());
  }
  std::string indent;
  for (auto it = ancestors.rbegin(); it != ancestors.rend(); ++it) {
    std::fprintf(ctx.out, "%s%s\n", indent.empty() ? "" : (indent + "└ ").c_str(), Line(*it).c_str());
    indent += "  ";
  }
  std::fprintf(ctx.out, "%s%s  ← this session\n", indent.empty() ? "" : (indent + "└ ").c_str(),
               Line(*lineage->Find("target")).c_str());
  PrintTree(ctx, *lineage->Find("descendants"), indent + "  ");
  return kExitOk;
}

}  // namespace

Command LineageCommand() {
  return {"lineage", "Show a session's parents and the sessions forked from it",
          [](Options sub, Context& ctx) -> Handler {
            auto a = std::make_shared<Args>();
            sub.Add("session", a->session, "Session id").Required();
            sub.Flag("--json", a->json, "Print dsh's traceSession shape");
            return [&ctx, a] { return Run(ctx, *a); };
          }};
}

}  // namespace retrace::cli
