// retrace repair <session>
#include "frontends/cli/command.h"
#include "frontends/cli/exit_codes.h"
#include "service/maintain.h"

namespace retrace::cli {
namespace {

int Run(const Context& ctx, const std::string& session) {
  auto repaired = service::RepairSession(ctx.catalog(), session);
  if (!repaired.ok()) return ctx.Fail(repaired.status());
  const int64_t before = repaired->first_seq, added = repaired->added;
  if (added == 0) {
    std::fprintf(ctx.out, "session %s: nothing to repair (its last turn is closed)\n", session.c_str());
  } else {
    std::fprintf(ctx.out, "session %s: closed the interrupted turn with %lld events (seq %lld..%lld)\n",
                 session.c_str(), static_cast<long long>(added), static_cast<long long>(before),
                 static_cast<long long>(before + added - 1));
  }
  return kExitOk;
}

}  // namespace

Command RepairCommand() {
  return {"repair", "Close a turn a crash left open, exactly as dsh's cold load does (one transaction)",
          [](Options sub, Context& ctx) -> Handler {
            auto session = std::make_shared<std::string>();
            sub.Add("session", *session, "Session id").Required();
            sub.Footer(
                "Appends dsh's interrupted-turn closers: a tool/result for each pending call\n"
                "(TOOL_OUTCOME_UNKNOWN if its tool/call was recorded, TOOL_NOT_STARTED if not),\n"
                "step/end if a step is open, and turn/end {kind:'interrupted'}. Idempotent.\n");
            return [&ctx, session] { return Run(ctx, *session); };
          }};
}

}  // namespace retrace::cli
