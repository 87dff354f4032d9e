// retrace show <session> <seq> [--before N] [--after N] [--json]
#include "frontends/cli/command.h"
#include "frontends/cli/exit_codes.h"
#include "engine/json/writer.h"
#include "service/inspect.h"

namespace retrace::cli {
namespace {

struct Args {
  std::string session;
  int64_t seq = 0, before = 0, after = 0;
  bool json = false;
};

int Run(const Context& ctx, const Args& a) {
  auto window = service::ShowEvent(ctx.catalog(), a.session, a.seq, a.before, a.after);
  if (!window.ok()) return ctx.Fail(window.status());
  if (a.json) {
    std::fprintf(ctx.out, "%s\n", json::Serialize(*window).c_str());
    return kExitOk;
  }
  // One event per line, exactly as stored; the target is marked with '>'.
  for (const json::Value& e : window->Find("events")->as_array()) {
    const bool target = e.Find("seq")->as_number() == static_cast<double>(a.seq);
    std::fprintf(ctx.out, "%s %s\n", target ? ">" : " ", json::Serialize(e).c_str());
  }
  return kExitOk;
}

}  // namespace

Command ShowCommand() {
  return {"show", "Print one stored event, with a window of events around it",
          [](Options sub, Context& ctx) -> Handler {
            auto a = std::make_shared<Args>();
            sub.Add("session", a->session, "Session id").Required();
            sub.Add("seq", a->seq, "The event's seq").Required();
            sub.Add("--before", a->before, "Also this many events before it (0-50)");
            sub.Add("--after", a->after, "Also this many events after it (0-50)");
            sub.Flag("--json", a->json, "Print {session, target, events, startSeq, endSeq} (dsh's readEvent)");
            return [&ctx, a] { return Run(ctx, *a); };
          }};
}

}  // namespace retrace::cli
